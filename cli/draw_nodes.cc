// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The node rows of `--draw` (cli/draw.h): which package each NUMA node is in, its bar of marks, the ranks
// there and the devices near it.

#include <algorithm>

#include "cli/draw.h"
#include "planner/devices.h"

namespace numabind::cli {
namespace {

/// What each CPU holds: how many items run there and the first of them.
struct Owners {
  std::vector<uint32_t> count;
  std::vector<size_t> first;
};

Owners FindOwners(const planner::Topology& topo, const Drawing& d) {
  Owners o;
  size_t n = static_cast<size_t>(std::max<int64_t>(topo.complete.Last(), topo.online.Last()) + 1);
  o.count.assign(n, 0);
  o.first.assign(n, 0);
  for (size_t i = 0; i < d.items.size(); ++i) {
    for (uint32_t cpu : d.items[i].cpus.Members()) {
      if (cpu >= n) continue;
      if (o.count[cpu]++ == 0) o.first[cpu] = i;
    }
  }
  return o;
}

char CpuChar(const Owners& o, const planner::CpuSet& usable, uint32_t cpu) {
  if (cpu < o.count.size() && o.count[cpu] == 1) return DrawMark(o.first[cpu]);
  if (cpu < o.count.size() && o.count[cpu] > 1) return '#';
  return usable.Has(cpu) ? '.' : 'x';
}

/// The node's bar: `per` CPUs a cell, each cell the most common mark of its CPUs (the first one on a tie);
/// a space where the CPU numbers jump, when the node has at most 4 runs and the jump falls between cells.
std::string Bar(const planner::TopoNode& node, const Owners& o, const planner::CpuSet& usable, size_t per) {
  std::vector<uint32_t> cpus = node.cpus.Members();
  size_t runs = 1;
  for (size_t i = 1; i < cpus.size(); ++i) runs += cpus[i] != cpus[i - 1] + 1;
  std::string bar;
  for (size_t start = 0; start < cpus.size(); start += per) {
    if (start > 0 && runs <= 4 && cpus[start] != cpus[start - 1] + 1) bar += ' ';
    std::string chars;
    for (size_t i = start; i < std::min(cpus.size(), start + per); ++i) chars += CpuChar(o, usable, cpus[i]);
    char best = chars[0];
    size_t best_n = 0;
    for (char c : chars) {
      size_t k = static_cast<size_t>(std::count(chars.begin(), chars.end(), c));
      if (k > best_n) best = c, best_n = k;
    }
    bar += best;
  }
  return bar;
}

/// "gpu" (accelerators), "ib", "eth", "net" (network cards by PCI class), "dev" (another device a rank
/// uses); "" for the devices not worth drawing.
std::string DeviceKind(const planner::PciDevice& dev, bool used) {
  if (planner::IsAccelerator(dev)) return "gpu";
  if (dev.class_id == 0x0207 || dev.class_id == 0x0c06) return "ib";  // InfiniBand: network or serial bus
  if (dev.class_id == 0x0200) return "eth";
  if (dev.class_id >> 8 == 0x02) return "net";
  return used ? "dev" : "";
}

/// An RDMA device with what of it is down: "rxe0", "rxe3 down" (no usable port), "mlx5_4 port 2 down".
std::string NicLabel(const planner::Nic& n) {
  if (n.ports.empty()) return n.name + " down";
  if (n.down.empty()) return n.name;
  std::string s = n.name + (n.down.size() > 1 ? " ports " : " port ");
  for (size_t i = 0; i < n.down.size(); ++i) s += (i > 0 ? "," : "") + std::to_string(n.down[i]);
  return s + " down";
}

/// " rxe0 rxe1": the labels of the RDMA devices on PCI function `bus_id`, "" for none.
std::string NicsOn(const planner::Topology& topo, const std::string& bus_id) {
  std::string s;
  for (const planner::Nic& n : topo.nics)
    if (n.bus_id == bus_id) s += " " + NicLabel(n);
  return s;
}

/// The items that use `bus_id`, as " (rank 0,3)"; "" for none.
std::string DeviceUsers(const Drawing& d, const std::string& bus_id) {
  planner::CpuSet users;
  for (size_t i = 0; i < d.items.size(); ++i)
    if (d.items[i].device == bus_id) users.Set(static_cast<uint32_t>(i));
  if (users.Empty()) return "";
  return " (" + (users.Count() > 1 ? d.items_word : d.item_word) + " " + CutList(users, 16) + ")";
}

/// A node with what it is drawn with.
struct NodeRow {
  planner::TopoNode node;
  std::string label;         ///< the node number, "-" for the CPUs outside every node
  planner::CpuSet packages;  ///< package os numbers
  int64_t first_package;     ///< index into topo.packages, or a big number
  std::vector<std::string> devices;
};

/// The RDMA devices on no network function in `named` (drawn with their NICs): "rdma NAME" under the
/// first node near them, else in *floating.
void AddOtherNics(const planner::Topology& topo, const std::vector<std::string>& named,
                  std::vector<NodeRow>* rows, std::vector<std::string>* floating) {
  for (const planner::Nic& n : topo.nics) {
    if (std::find(named.begin(), named.end(), n.bus_id) != named.end()) continue;
    auto row = std::find_if(rows->begin(), rows->end(), [&](const NodeRow& r) {
      return n.locality_known && r.label != "-" && n.nodes.Has(r.node.os);
    });
    (row == rows->end() ? *floating : row->devices).push_back("rdma " + NicLabel(n));
  }
}

/// The nodes in package order, CPU-less nodes after the others of their package, with the devices near
/// them; devices near no node go to *floating.
std::vector<NodeRow> NodeRows(const planner::Topology& topo, const Drawing& d,
                              std::vector<std::string>* floating) {
  std::vector<NodeRow> rows;
  for (const planner::TopoNode& n : topo.nodes)
    rows.push_back(NodeRow{n, std::to_string(n.os), {}, 1 << 30, {}});
  // CPUs outside every node (a restricted topology's): a row of their own, so that every CPU is drawn.
  planner::TopoNode none;
  for (const planner::TopoPu& pu : topo.pus)
    if (pu.node < 0) none.cpus.Set(pu.os);
  if (!none.cpus.Empty()) rows.push_back(NodeRow{none, "-", {}, 1 << 30, {}});
  for (NodeRow& r : rows) {
    const planner::CpuSet& near = r.node.cpus.Empty() ? r.node.locality : r.node.cpus;
    for (size_t p = 0; p < topo.packages.size(); ++p) {
      if (!topo.packages[p].cpus.Intersects(near)) continue;
      r.packages.Set(topo.packages[p].os);
      r.first_package = std::min<int64_t>(r.first_package, static_cast<int64_t>(p));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const NodeRow& a, const NodeRow& b) {
    if (a.first_package != b.first_package) return a.first_package < b.first_package;
    return a.node.cpus.Empty() < b.node.cpus.Empty();
  });
  // Devices: under the first node near them (naming the others), or on a line of their own.
  std::vector<std::string> used;
  for (const DrawItem& it : d.items)
    if (!it.device.empty()) used.push_back(it.device);
  std::vector<std::string> placed, named;  // drawn devices; network functions drawn with their NICs
  for (const planner::PciDevice& dev : topo.pci) {
    bool is_used = std::find(used.begin(), used.end(), dev.bus_id) != used.end();
    std::string kind = DeviceKind(dev, is_used);
    if (kind.empty()) continue;
    // RDMA devices sit on network functions (class 0x02, or 0x0c06 for InfiniBand).
    std::string nics = kind == "eth" || kind == "ib" || kind == "net" ? NicsOn(topo, dev.bus_id) : "";
    if (!nics.empty()) named.push_back(dev.bus_id);
    placed.push_back(dev.bus_id);
    std::string text = kind + " " + ShortBusId(dev.bus_id) + nics + DeviceUsers(d, dev.bus_id);
    auto row = std::find_if(rows.begin(), rows.end(), [&](const NodeRow& r) {
      return dev.locality_known && r.label != "-" && dev.nodes.Has(r.node.os);
    });
    if (row == rows.end()) {
      floating->push_back(text);
      continue;
    }
    if (dev.nodes.Count() > 1) text += " [nodes " + dev.nodes.ToList() + "]";
    row->devices.push_back(text);
  }
  AddOtherNics(topo, named, &rows, floating);
  // Devices the ranks use that the topology does not list (synthetic topologies, no PCI data).
  for (const std::string& bus : used) {
    if (std::find(placed.begin(), placed.end(), bus) != placed.end()) continue;
    placed.push_back(bus);
    floating->push_back("dev " + ShortBusId(bus) + DeviceUsers(d, bus));
  }
  return rows;
}

}  // namespace

/// The table's header line, then each node's row with its devices: at the end of the row when they fit,
/// else on lines under it.
std::vector<std::vector<std::string>> NodeBlocks(const planner::Topology& topo, const Drawing& d,
                                                 const planner::CpuSet& usable, size_t per,
                                                 std::vector<std::string>* floating) {
  const std::vector<NodeRow> rows = NodeRows(topo, d, floating);
  const Owners owners = FindOwners(topo, d);
  std::vector<std::vector<std::string>> cells = {{"pkg", "node", "memory", "cpus", "map", d.items_word}};
  std::string last_pkg = "?";
  for (const NodeRow& r : rows) {
    const planner::TopoNode& n = r.node;
    std::string pkg = r.packages.Empty() ? "-" : CutList(r.packages, 5);
    planner::CpuSet here;
    for (size_t i = 0; i < d.items.size(); ++i)
      if (d.items[i].cpus.Intersects(n.cpus) || (r.label != "-" && d.items[i].nodes.Has(n.os)))
        here.Set(static_cast<uint32_t>(i));
    std::string mem = DrawSize(n.memory);
    if (!n.subtype.empty()) mem += " " + Cut(n.subtype, 6);
    bool memory_only = n.cpus.Empty();
    cells.push_back({pkg == last_pkg ? "" : pkg, r.label, r.label == "-" ? "" : mem,
                     memory_only ? "memory only" : CutList(n.cpus, 20),
                     memory_only ? "" : Bar(n, owners, usable, per), CutList(here, 12)});
    last_pkg = pkg;
  }
  std::vector<std::string> table = Columns(cells);
  size_t width = 0;
  for (const std::string& l : table) width = std::max(width, l.size());
  std::vector<std::vector<std::string>> blocks = {{table[0]}};
  bool inline_devices = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string line = table[i + 1];
    std::vector<std::string> below;
    WrapList(std::string(table[0].find("memory"), ' ') + "near: ", rows[i].devices, &below);
    std::vector<std::string> after;
    WrapList("", rows[i].devices, &after);
    if (after.size() == 1 && width + 2 + after[0].size() <= kDrawWidth) {
      blocks.push_back({line + std::string(width + 2 - line.size(), ' ') + after[0]});
      inline_devices = true;
    } else {
      blocks.push_back({line});
      blocks.back().insert(blocks.back().end(), below.begin(), below.end());
    }
  }
  if (inline_devices) blocks[0][0] += std::string(width + 2 - table[0].size(), ' ') + "near";
  return blocks;
}

}  // namespace numabind::cli
