// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The picture of `--draw` (cli/draw.h): node rows grouped by package, their bars and devices, the legend,
// all within kDrawWidth x kDrawHeight.

#include "cli/draw.h"

#include <algorithm>

#include "cli/cli.h"

namespace numabind::cli {
namespace {

constexpr char kMarks[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr size_t kMarkCount = sizeof(kMarks) - 1;

/// `text` wrapped at kDrawWidth, appended line by line to *lines.
void AddWrapped(const std::string& text, std::vector<std::string>* lines) {
  std::string wrapped = Wrap(text, 0, kDrawWidth);
  for (size_t pos = 0; pos < wrapped.size();) {
    size_t end = wrapped.find('\n', pos);
    lines->push_back(Cut(wrapped.substr(pos, end - pos), kDrawWidth));
    pos = end + 1;
  }
}

/// The title, the machine's line and the key to the map.
std::vector<std::string> Head(const planner::Topology& topo, const Drawing& d, const planner::CpuSet& usable,
                              size_t per) {
  std::vector<std::string> head;
  AddWrapped(d.title, &head);
  size_t cpu_nodes = 0;
  uint64_t memory = 0;
  for (const planner::TopoNode& n : topo.nodes) {
    cpu_nodes += !n.cpus.Empty();
    memory += n.memory;
  }
  auto count = [](size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::string machine = "machine: " + count(topo.online.Count(), "CPU");
  planner::CpuSet offline = topo.complete.Minus(topo.online);
  if (!offline.Empty()) machine += " (offline: " + CutList(offline, 20) + ")";
  machine += ", " + count(topo.nodes.size(), "NUMA node");
  if (cpu_nodes < topo.nodes.size())
    machine += " (" + std::to_string(topo.nodes.size() - cpu_nodes) + " memory only)";
  machine += ", " + count(topo.packages.size(), "package");
  if (memory > 0) machine += ", " + DrawSize(memory) + " memory";
  head.push_back(Cut(machine, kDrawWidth));
  std::string key = "map: a cell is " + count(per, "CPU") + (per == 1 ? "" : " (the most common mark)") +
                    "; 0-9A-Za-z: a " + d.item_word + ", #: several, .: free";
  if (!usable.IsSubsetOf(topo.online) || !topo.online.IsSubsetOf(usable)) key += ", x: not usable";
  if (d.items.size() > kMarkCount) key += "; marks repeat after " + std::to_string(kMarkCount);
  AddWrapped(key, &head);
  return head;
}

/// One legend entry per placed item; the node field only when some item's memory nodes are not the nodes
/// of its CPUs, the device field only when some item has a device.
std::vector<std::vector<std::string>> LegendEntries(const planner::Topology& topo, const Drawing& d,
                                                    std::string* fields) {
  bool nodes_differ = false, devices = false;
  for (const DrawItem& it : d.items) {
    if (!it.error.empty()) continue;
    nodes_differ |= !it.nodes.Empty() && it.nodes != topo.NodesOfCpus(it.cpus);
    devices |= !it.device.empty();
  }
  *fields = std::string("mark=") + (d.plan ? "rank" : "pid") + ", cpus";
  if (nodes_differ) *fields += ", memory nodes";
  if (devices) *fields += ", device";
  if (!d.plan)
    *fields += ", " + (d.detail_fields.empty() ? std::string("memory policy, command") : d.detail_fields);
  std::vector<std::vector<std::string>> entries;
  for (size_t i = 0; i < d.items.size(); ++i) {
    const DrawItem& it = d.items[i];
    if (!it.error.empty()) continue;
    std::vector<std::string> e = {std::string(1, DrawMark(i)) + "=" + it.id, CutList(it.cpus, 24)};
    if (nodes_differ)
      e.push_back(it.nodes.Empty() ? "-"
                                   : (it.nodes.Count() > 1 ? "nodes " : "node ") + CutList(it.nodes, 12));
    if (devices) e.push_back(it.device.empty() ? "-" : ShortBusId(it.device));
    e.insert(e.end(), it.details.begin(), it.details.end());
    entries.push_back(e);
  }
  return entries;
}

}  // namespace

char DrawMark(size_t i) { return kMarks[i % kMarkCount]; }

Drawing ProcessesDrawing(const std::string& command, size_t count, const std::string& where) {
  Drawing d;
  d.title = "numabind " + command + ": " + std::to_string(count) + " process" + (count == 1 ? "" : "es") +
            " " + where;
  d.item_word = "process";
  d.items_word = "processes";
  d.plan = false;
  return d;
}

std::string Draw(const planner::Topology& topo, const Drawing& d) {
  const planner::CpuSet usable = d.plan ? topo.allowed : topo.online.Intersect(topo.hwloc_allowed);
  size_t biggest = 1;
  for (const planner::TopoNode& n : topo.nodes) biggest = std::max<size_t>(biggest, n.cpus.Count());
  const size_t per = (biggest + kDrawCells - 1) / kDrawCells;
  const std::vector<std::string> head = Head(topo, d, usable, per);
  std::vector<std::string> floating;
  const std::vector<std::vector<std::string>> blocks = NodeBlocks(topo, d, usable, per, &floating);
  std::vector<std::string> tail;
  WrapList("devices of unknown locality: ", floating, &tail);
  std::string fields;
  const std::vector<std::vector<std::string>> entries = LegendEntries(topo, d, &fields);
  std::vector<std::string> errors;
  for (const DrawItem& it : d.items)
    if (!it.error.empty()) errors.push_back(Cut(it.error, kDrawWidth));
  if (errors.size() > 3) {
    size_t more = errors.size() - 2;
    errors.resize(2);
    errors.push_back("... and " + std::to_string(more) + " more " + d.items_word + " without a place");
  }

  // Height: the node rows give way to the legend's first lines, then the legend to the node rows.
  const size_t fixed = head.size() + tail.size() + errors.size() + (entries.empty() ? 0 : 2);
  const size_t legend_min = std::min<size_t>(4, entries.size());
  size_t body = 0;
  for (const auto& b : blocks) body += b.size();
  const size_t room = kDrawHeight > fixed + legend_min + 2 ? kDrawHeight - fixed - legend_min : 2;
  size_t kept = blocks.size();
  if (body > room) {
    body = 1;  // the "... more" line
    kept = 0;
    while (kept < blocks.size() && body + blocks[kept].size() <= room) body += blocks[kept++].size();
  }
  std::string out;
  for (const std::string& l : head) out += l + "\n";
  for (size_t i = 0; i < kept; ++i)
    for (const std::string& l : blocks[i]) out += l + "\n";
  if (kept < blocks.size()) out += "... and " + std::to_string(blocks.size() - kept) + " more NUMA nodes\n";
  for (const std::string& l : tail) out += l + "\n";
  if (!entries.empty()) {
    out += "\nlegend: " + fields + "\n";
    std::string more = d.plan ? "numabind plan without --draw lists every rank" : "numabind show lists them";
    size_t left = kDrawHeight > fixed + body ? kDrawHeight - fixed - body : 1;
    for (const std::string& l : LegendLines(entries, left, more)) out += l + "\n";
  }
  for (const std::string& l : errors) out += l + "\n";
  return out;
}

bool DrawOn(const char* spec, const Drawing& drawing, std::string* out, std::string* err) {
  planner::Topology topo;
  planner::LoadOptions options;
  options.pci = true;
  options.nics = true;  // the RDMA devices on the network functions, by name
  // A device a rank was given by bus id may be one hwloc does not keep by default (the planner loads them
  // all for a list too): every PCI device then, so that it is drawn where it is.
  for (const DrawItem& item : drawing.items) options.all_pci |= !item.device.empty();
  if (!planner::LoadTopology(spec, options, &topo, err)) return false;
  *out = Draw(topo, drawing);
  return true;
}

}  // namespace numabind::cli
