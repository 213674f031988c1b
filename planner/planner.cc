// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Policies -> PlanBasis. How this follows torch/numa/binding.py (`torchrun --numa-binding`):
//  - A device's node: torch reads /sys/bus/pci/devices/ID/numa_node and takes -1 as node 0. numabind takes
//    hwloc's locality (the nodes covering the device's first non-I/O ancestor, the same source on Linux)
//    and treats an unknown locality as near every node: binding such a rank to node 0 would be a guess.
//  - node: the node's CPUs intersected with the allowed CPUs (torch: sysfs cpulist ∩ sched_getaffinity).
//  - socket: torch takes the package of the node's lowest allowed CPU and every node whose lowest allowed
//    CPU is in that package; numabind takes the allowed CPUs of the package(s) holding the node's allowed
//    CPUs, which is the same set, and the nodes with CPUs there for memory.
//  - exclusive: as torch, physical cores keyed by their lowest sibling (allowed or not) in that order, only
//    their allowed PUs, C/k cores each and one more for the first C%k; torch divides among the GPUs of the
//    node, numabind among the ranks whose slots share the node, which is the same when there is one rank
//    per device. Fewer cores than ranks fails every rank of the node, as torch raises for every GPU there.
//  - core-complex: as torch, the node's allowed CPUs grouped by their last-level data/unified cache,
//    ordered by (-allowed CPUs, lowest CPU of the cache), rank index mod caches. Memory-side caches (KNL)
//    are not CPU caches, as sysfs does not list them either.
//  - Without devices torch does not bind; numabind spreads ranks over nodes in contiguous blocks.

#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <tuple>

#include "planner/devices.h"
#include "planner/plan_pack.h"

namespace numabind::planner {

namespace {

struct Target {
  NodeSet nodes;
  bool unknown = false;  // locality unknown: every node, every allowed CPU
  std::string device, uuid;
  uint32_t vendor = 0;
  int32_t ordinal = -1;
};

// The index of `d` among the topology's accelerators of its vendor in bus id order: the number CUDA and
// ROCm give it when nothing hides devices (CUDA_DEVICE_ORDER=PCI_BUS_ID; see planner/devices.cc). -1 when
// the topology does not have it.
int32_t Ordinal(const Topology& topo, const PciDevice& d) {
  int32_t before = 0;
  bool found = false;
  auto key = [](const PciDevice& p) { return std::make_tuple(p.domain, p.bus, p.dev, p.func); };
  for (const PciDevice& p : topo.pci) {
    if (!IsAccelerator(p) || p.vendor != d.vendor) continue;
    if (p.bus_id == d.bus_id) found = true;
    if (key(p) < key(d)) ++before;
  }
  return found ? before : -1;
}

std::string NodeLabel(const NodeSet& nodes, bool unknown) {
  if (nodes.Empty()) return "CPUs outside every node";  // a file exported inside a cgroup (issue 17)
  std::string l = "node " + nodes.ToList();
  if (unknown) l += " (locality unknown)";
  return l;
}

// The distinct cores (or caches) of the PUs in `cpus`, by index.
std::vector<int32_t> Touched(const Topology& topo, const CpuSet& cpus, int32_t TopoPu::*field) {
  std::vector<int32_t> out;
  for (int64_t c = cpus.First(); c >= 0; c = cpus.Next(c)) {
    const TopoPu* pu = topo.FindPu(static_cast<uint32_t>(c));
    if (pu && pu->*field >= 0) out.push_back(pu->*field);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool IsMap(config::PolicyKind k) {
  return k == config::PolicyKind::kCpuMap || k == config::PolicyKind::kNodeMap;
}

/// Explicit maps: every entry its own slot and group; CPUs limited to the allowed ones.
void MapDrafts(const Topology& topo, const Policy& policy, std::vector<Draft>* drafts,
               std::vector<CpuSet>* units) {
  NodeSet existing;
  for (const TopoNode& n : topo.nodes) existing.Set(n.os);
  for (size_t i = 0; i < policy.entries.size(); ++i) {
    const CpuSet& entry = policy.entries[i];
    Draft d;
    d.group = static_cast<int32_t>(i);
    CpuSet cpus;
    if (policy.kind == config::PolicyKind::kCpuMap) {
      cpus = entry.Intersect(topo.allowed);
      d.nodes = topo.NodesOfCpus(cpus.Empty() ? entry : cpus);
      d.label = "cpus " + entry.ToList();
    } else {
      d.nodes = entry.Intersect(existing);
      cpus = topo.CpusOfNodes(entry).IntersectWith(topo.allowed);
      d.label = "node " + entry.ToList();
    }
    d.place.nodes = d.nodes;
    d.place.unknown = d.nodes.Empty();
    if (!cpus.Empty()) {
      d.first_unit = static_cast<uint32_t>(units->size());
      d.unit_count = 1;
      units->push_back(cpus);
    }
    drafts->push_back(d);
  }
}

/// Where ranks go: the devices, or (none) the nodes with allowed CPUs.
std::vector<Target> Targets(const Topology& topo, const std::vector<PciDevice>& devices) {
  NodeSet cpu_nodes = topo.CpuNodes();
  std::vector<Target> targets;
  if (devices.empty()) {
    NodeSet nodes = topo.NodesWithAllowedCpus();
    for (int64_t n = nodes.First(); n >= 0; n = nodes.Next(n)) {
      Target t;
      t.nodes.Set(static_cast<uint32_t>(n));
      targets.push_back(t);
    }
    if (targets.empty()) {  // the allowed CPUs belong to no node (a restricted file): one place for all
      Target t;
      t.nodes = cpu_nodes;
      t.unknown = true;
      targets.push_back(t);
    }
    return targets;
  }
  for (const PciDevice& d : devices) {
    Target t;
    t.device = d.bus_id;
    t.vendor = d.vendor;
    t.ordinal = Ordinal(topo, d);
    t.uuid = d.uuid;
    t.nodes = d.nodes.Intersect(cpu_nodes);
    if (!d.locality_known || t.nodes.Empty()) {
      t.nodes = cpu_nodes;
      t.unknown = true;
    }
    targets.push_back(t);
  }
  return targets;
}

/// Targets with the same node set (and knowledge of it) share units: one group each.
struct Group {
  NodeSet nodes;
  bool unknown;
  uint32_t first_unit = 0, unit_count = 0;
  uint32_t fast_units = 0;
  NodeSet mem_nodes;
  std::string label;
};

/// The groups of `targets`, and the group of each target in *group_of. one_group: auto without devices,
/// one group over every node, whose ranks auto spreads itself (plan_auto.h).
std::vector<Group> GroupTargets(const std::vector<Target>& targets, bool one_group,
                                std::vector<int32_t>* group_of) {
  std::vector<Group> groups;
  for (const Target& t : targets) {
    int32_t g = -1;
    for (size_t i = 0; i < groups.size(); ++i)
      if (groups[i].unknown == t.unknown && groups[i].nodes == t.nodes) g = static_cast<int32_t>(i);
    if (one_group && !groups.empty()) {
      groups[0].nodes.UnionWith(t.nodes);
      g = 0;
    }
    if (g < 0) {
      g = static_cast<int32_t>(groups.size());
      Group grp;
      grp.nodes = t.nodes;
      grp.unknown = t.unknown;
      groups.push_back(grp);
    }
    group_of->push_back(g);
  }
  return groups;
}

/// socket: the allowed CPUs of the package(s) holding the group's CPUs, labelled by package; memory over
/// the nodes of those packages that have allowed CPUs, as torch's --preferred-many.
void SocketUnits(const Topology& topo, const CpuSet& scope, Group* g, std::vector<CpuSet>* units) {
  CpuSet cpus = scope;
  NodeSet packages;
  if (!g->unknown) {
    for (int64_t c = scope.First(); c >= 0; c = scope.Next(c)) {
      const TopoPu* pu = topo.FindPu(static_cast<uint32_t>(c));
      if (pu && pu->package >= 0 && !packages.Has(static_cast<uint32_t>(pu->package))) {
        packages.Set(static_cast<uint32_t>(pu->package));
        cpus.UnionWith(topo.packages[pu->package].cpus);
      }
    }
    cpus.IntersectWith(topo.allowed);
    NodeSet os;
    for (int64_t p = packages.First(); p >= 0; p = packages.Next(p)) os.Set(topo.packages[p].os);
    if (!os.Empty()) g->label = "package " + os.ToList() + " (node " + g->nodes.ToList() + ")";
    g->mem_nodes.UnionWith(topo.NodesOfCpus(cpus));
  }
  if (!cpus.Empty()) units->push_back(cpus);
}

/// exclusive: physical cores in CPU order (keyed by the core's lowest PU, allowed or not), their allowed
/// PUs.
void CoreUnits(const Topology& topo, const CpuSet& scope, std::vector<CpuSet>* units) {
  std::vector<std::pair<int64_t, CpuSet>> cores;
  for (int32_t i : Touched(topo, scope, &TopoPu::core)) {
    const TopoCore& c = topo.cores[i];
    cores.emplace_back(c.cpus.First(), c.cpus.Intersect(scope));
  }
  std::sort(cores.begin(), cores.end(),
            [](const std::pair<int64_t, CpuSet>& a, const std::pair<int64_t, CpuSet>& b) {
              return a.first < b.first;
            });
  for (auto& c : cores) units->push_back(c.second);
}

/// core-complex: last-level caches, more allowed CPUs first, ties to the cache's lowest CPU.
void CacheUnits(const Topology& topo, const CpuSet& scope, std::vector<CpuSet>* units) {
  struct Complex {
    uint32_t count;
    int64_t key;
    CpuSet cpus;
  };
  std::vector<Complex> complexes;
  for (int32_t i : Touched(topo, scope, &TopoPu::llc)) {
    const TopoCache& c = topo.llcs[i];
    CpuSet mine = c.cpus.Intersect(scope);
    complexes.push_back(Complex{mine.Count(), c.cpus.First(), mine});
  }
  std::sort(complexes.begin(), complexes.end(), [](const Complex& a, const Complex& b) {
    return a.count != b.count ? a.count > b.count : a.key < b.key;
  });
  for (auto& c : complexes) units->push_back(c.cpus);
}

/// The units the policy cuts group g's CPUs into, appended to *units.
/// orphans: allowed CPUs that belong to no node of the topology (a file exported inside a cgroup that left
/// their node out), which auto's one group without devices takes too (issue 17: they sat idle); else null.
void GroupUnits(const Topology& topo, config::PolicyKind kind, const CpuSet* orphans, Group* g,
                std::vector<CpuSet>* units, AutoUnits* extra) {
  // The CPUs this group may use: its nodes' allowed CPUs; every allowed CPU when the locality is unknown.
  CpuSet scope = g->unknown ? topo.allowed : topo.CpusOfNodes(g->nodes).IntersectWith(topo.allowed);
  if (orphans != nullptr) scope.UnionWith(*orphans);
  g->label = NodeLabel(g->nodes, g->unknown);
  g->mem_nodes = g->nodes;
  g->first_unit = static_cast<uint32_t>(units->size());
  switch (kind) {
    case config::PolicyKind::kNode:
      if (!scope.Empty()) units->push_back(scope);
      break;
    case config::PolicyKind::kSocket: SocketUnits(topo, scope, g, units); break;
    case config::PolicyKind::kExclusive: CoreUnits(topo, scope, units); break;
    case config::PolicyKind::kCoreComplex: CacheUnits(topo, scope, units); break;
    case config::PolicyKind::kAuto: g->fast_units = AddAutoUnits(topo, scope, units, extra); break;
    case config::PolicyKind::kCpuMap:
    case config::PolicyKind::kNodeMap: break;
  }
  g->unit_count = static_cast<uint32_t>(units->size()) - g->first_unit;
  if (kind == config::PolicyKind::kExclusive || kind == config::PolicyKind::kCoreComplex)
    g->fast_units = FastUnitsFirst(topo.fastest_kind, units, g->first_unit);
}

/// One slot per target, with its group's units and memory nodes. Memory may go only on the nodes the cgroup
/// allows (cpuset.mems, memory_nodes): a node set outside them fails set_mempolicy, and an empty one (CPUs
/// outside every node) binds nothing.
std::vector<Draft> TargetDrafts(const std::vector<Target>& targets, const std::vector<Group>& groups,
                                const std::vector<int32_t>& group_of, const NodeSet& memory_nodes) {
  std::vector<Draft> drafts;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Group& g = groups[group_of[i]];
    Draft d;
    d.group = group_of[i];
    d.nodes = g.mem_nodes.Intersect(memory_nodes);
    if (d.nodes.Empty()) d.nodes = memory_nodes;
    d.first_unit = g.first_unit;
    d.unit_count = g.unit_count;
    d.fast_units = g.fast_units;
    d.label = g.label;
    d.device = targets[i].device;
    d.vendor = targets[i].vendor;
    d.ordinal = targets[i].ordinal;
    d.uuid = targets[i].uuid;
    d.place = NicPlace{targets[i].device, targets[i].nodes, targets[i].unknown};
    drafts.push_back(d);
  }
  return drafts;
}

}  // namespace

namespace {

/// NUMABIND_SMT: `topo` with at most `smt` allowed PUs of each core, the lowest-numbered (a PU that belongs
/// to no core, in a file without cores, is kept).
Topology KeepThreads(const Topology& topo, uint32_t smt) {
  Topology kept = topo;
  for (const TopoCore& core : topo.cores) {
    uint32_t n = 0;
    for (int64_t c = core.cpus.First(); c >= 0; c = core.cpus.Next(c)) {
      if (!topo.allowed.Has(static_cast<uint32_t>(c))) continue;
      if (++n > smt) kept.allowed.Clear(static_cast<uint32_t>(c));
    }
  }
  return kept;
}

}  // namespace

plan::PlanBasis* PreparePlanBasis(const Topology& whole, const PrepareRequest& request, std::string* err) {
  Topology edited;
  bool edit = request.smt != 0 || (request.all_kinds && !whole.fastest_kind.Empty());
  if (edit) {
    edited = request.smt != 0 ? KeepThreads(whole, request.smt) : whole;
    if (request.all_kinds) edited.fastest_kind = CpuSet();  // every core alike
  }
  const Topology& topo = edit ? edited : whole;
  Policy policy = ExpandPolicy(request.policy);
  if (topo.allowed.Empty()) {
    *err = "no allowed CPUs in the topology of the " + topo.source;
    return nullptr;
  }
  std::vector<Draft> drafts;
  std::vector<CpuSet> units;
  if (IsMap(policy.kind)) {
    MapDrafts(topo, policy, &drafts, &units);
    return Pack(topo, policy, request.memory, false, drafts, units, AutoUnits(), request.want_nics, err);
  }
  std::vector<PciDevice> devices;
  if (!SelectDevices(topo, DeviceSpecOf(request.devices), request.env, &devices, err)) return nullptr;
  if (policy.kind == config::PolicyKind::kAuto) DropFarDevices(topo, &devices);
  std::vector<Target> targets = Targets(topo, devices);
  std::vector<int32_t> group_of;
  bool one_group = policy.kind == config::PolicyKind::kAuto && devices.empty();
  std::vector<Group> groups = GroupTargets(targets, one_group, &group_of);
  CpuSet orphans = topo.allowed.Minus(topo.CpusOfNodes(topo.CpuNodes()));
  AutoUnits extra;
  for (Group& g : groups) GroupUnits(topo, policy.kind, one_group ? &orphans : nullptr, &g, &units, &extra);
  drafts = TargetDrafts(targets, groups, group_of, topo.MemoryNodes());
  bool spread = devices.empty();  // without devices, ranks spread over the nodes in blocks
  return Pack(topo, policy, request.memory, spread, drafts, units, extra, request.want_nics, err);
}

plan::PlanBasis* Prepare(const PrepareRequest& request, std::string* err) {
  if (request.policy.text == nullptr) {
    *err = "NUMABIND_POLICY is not set";
    return nullptr;
  }
  LoadOptions options;
  options.pci = !IsMap(request.policy.kind) && request.devices.mode != config::DeviceMode::kNone;
  options.all_pci = request.devices.mode == config::DeviceMode::kList;
  options.nics = request.want_nics;
  Topology topo;
  std::string why;
  if (!LoadTopology(request.topology, options, &topo, &why)) {
    *err = (request.topology && *request.topology ? "NUMABIND_TOPOLOGY: " : "") + why;
    return nullptr;
  }
  return PreparePlanBasis(topo, request, err);
}

}  // namespace numabind::planner
