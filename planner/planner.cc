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

namespace numabind::core {

namespace {

struct Target {
  NodeSet nodes;
  bool unknown = false;  // locality unknown: every node, every allowed CPU
  std::string device;
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

bool IsMap(PolicyKind k) { return k == PolicyKind::kCpuMap || k == PolicyKind::kNodeMap; }

}  // namespace

namespace {

/// The request's three texts, parsed; false with *err on the first bad one.
bool ParseRequest(const numabind_prepare_request& request, Policy* policy, MemoryKind* memory,
                  DeviceSpec* spec, std::string* err) {
  return ParsePolicy(request.policy, policy, err) && ParseMemory(request.memory, memory, err) &&
         ParseDevices(request.devices, spec, err);
}

}  // namespace

PlanBasis* PreparePlanBasis(const Topology& topo, const numabind_prepare_request& request, std::string* err) {
  Policy policy;
  MemoryKind memory;
  DeviceSpec spec;
  if (!ParseRequest(request, &policy, &memory, &spec, err)) return nullptr;
  if (topo.allowed.Empty()) {
    *err = "no allowed CPUs in the topology of the " + topo.source;
    return nullptr;
  }

  std::vector<Draft> drafts;
  std::vector<CpuSet> units;

  if (IsMap(policy.kind)) {
    // Explicit maps: every entry its own slot and group; CPUs limited to the allowed ones.
    NodeSet existing;
    for (const TopoNode& n : topo.nodes) existing.Set(n.os);
    for (size_t i = 0; i < policy.entries.size(); ++i) {
      const CpuSet& entry = policy.entries[i];
      Draft d;
      d.group = static_cast<int32_t>(i);
      CpuSet cpus;
      if (policy.kind == PolicyKind::kCpuMap) {
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
        d.first_unit = static_cast<uint32_t>(units.size());
        d.unit_count = 1;
        units.push_back(cpus);
      }
      drafts.push_back(d);
    }
    return Pack(topo, policy, memory, false, drafts, units, AutoUnits(), request.want_nics, err);
  }

  // Where ranks go: devices, or the nodes with allowed CPUs.
  std::vector<PciDevice> devices;
  if (!SelectDevices(topo, spec, request.env, &devices, err)) return nullptr;
  if (policy.kind == PolicyKind::kAuto) DropFarDevices(topo, &devices);
  NodeSet cpu_nodes = topo.CpuNodes(), allowed_nodes = topo.NodesWithAllowedCpus();
  // Allowed CPUs that belong to no node of the topology (a file exported inside a cgroup that left their
  // node out): auto's group without devices takes them too (issue 17: they sat idle).
  CpuSet orphans = topo.allowed.Minus(topo.CpusOfNodes(cpu_nodes));
  // Memory may go only on the nodes the cgroup allows (cpuset.mems): a node set outside them fails
  // set_mempolicy, and an empty one (CPUs outside every node) binds nothing.
  NodeSet memory_nodes = topo.MemoryNodes();
  std::vector<Target> targets;
  bool spread = devices.empty();
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
  } else {
    for (const PciDevice& d : devices) {
      Target t;
      t.device = d.bus_id;
      t.vendor = d.vendor;
      t.ordinal = Ordinal(topo, d);
      t.nodes = d.nodes.Intersect(cpu_nodes);
      if (!d.locality_known || t.nodes.Empty()) {
        t.nodes = cpu_nodes;
        t.unknown = true;
      }
      targets.push_back(t);
    }
  }

  // Groups: targets with the same node set (and knowledge of it) share units.
  struct Group {
    NodeSet nodes;
    bool unknown;
    uint32_t first_unit = 0, unit_count = 0;
    NodeSet mem_nodes;
    std::string label;
  };
  std::vector<Group> groups;
  std::vector<int32_t> group_of;
  // auto without devices: one group over every node, whose ranks it spreads itself (plan_auto.h).
  bool one_group = policy.kind == PolicyKind::kAuto && devices.empty();
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
    group_of.push_back(g);
  }

  AutoUnits extra;
  for (Group& g : groups) {
    // The CPUs this group may use: its nodes' allowed CPUs; every allowed CPU when the locality is unknown.
    CpuSet scope = g.unknown ? topo.allowed : topo.CpusOfNodes(g.nodes).IntersectWith(topo.allowed);
    if (one_group) scope.UnionWith(orphans);
    g.label = NodeLabel(g.nodes, g.unknown);
    g.mem_nodes = g.nodes;
    g.first_unit = static_cast<uint32_t>(units.size());
    switch (policy.kind) {
      case PolicyKind::kNode:
        if (!scope.Empty()) units.push_back(scope);
        break;
      case PolicyKind::kSocket: {
        CpuSet cpus = scope;
        NodeSet packages;
        if (!g.unknown) {
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
          if (!os.Empty()) g.label = "package " + os.ToList() + " (node " + g.nodes.ToList() + ")";
          // Memory over the nodes of the package that have allowed CPUs, as torch's --preferred-many.
          g.mem_nodes.UnionWith(topo.NodesOfCpus(cpus));
        }
        if (!cpus.Empty()) units.push_back(cpus);
        break;
      }
      case PolicyKind::kExclusive: {
        // Physical cores in CPU order (keyed by the core's lowest PU, allowed or not), their allowed PUs.
        std::vector<std::pair<int64_t, CpuSet>> cores;
        for (int32_t i : Touched(topo, scope, &TopoPu::core)) {
          const TopoCore& c = topo.cores[i];
          cores.emplace_back(c.cpus.First(), c.cpus.Intersect(scope));
        }
        std::sort(cores.begin(), cores.end(),
                  [](const std::pair<int64_t, CpuSet>& a, const std::pair<int64_t, CpuSet>& b) {
                    return a.first < b.first;
                  });
        for (auto& c : cores) units.push_back(c.second);
        break;
      }
      case PolicyKind::kCoreComplex: {
        // Last-level caches: more allowed CPUs first, ties to the cache's lowest CPU.
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
        for (auto& c : complexes) units.push_back(c.cpus);
        break;
      }
      case PolicyKind::kAuto: AddAutoUnits(topo, scope, &units, &extra); break;
      case PolicyKind::kCpuMap:
      case PolicyKind::kNodeMap: break;
    }
    g.unit_count = static_cast<uint32_t>(units.size()) - g.first_unit;
  }

  for (size_t i = 0; i < targets.size(); ++i) {
    const Group& g = groups[group_of[i]];
    Draft d;
    d.group = group_of[i];
    d.nodes = g.mem_nodes.Intersect(memory_nodes);
    if (d.nodes.Empty()) d.nodes = memory_nodes;
    d.first_unit = g.first_unit;
    d.unit_count = g.unit_count;
    d.label = g.label;
    d.device = targets[i].device;
    d.vendor = targets[i].vendor;
    d.ordinal = targets[i].ordinal;
    d.place = NicPlace{targets[i].device, targets[i].nodes, targets[i].unknown};
    drafts.push_back(d);
  }
  return Pack(topo, policy, memory, spread, drafts, units, extra, request.want_nics, err);
}

PlanBasis* Prepare(const numabind_prepare_request& request, std::string* err) {
  // Check the text first: a typo must not cost a topology discovery.
  Policy policy;
  MemoryKind memory;
  DeviceSpec spec;
  if (!ParseRequest(request, &policy, &memory, &spec, err)) return nullptr;
  LoadOptions options;
  options.pci = !IsMap(policy.kind) && spec.mode != DeviceMode::kNone;
  options.all_pci = spec.mode == DeviceMode::kList;
  options.nics = request.want_nics != 0;
  Topology topo;
  std::string why;
  if (!LoadTopology(request.topology, options, &topo, &why)) {
    *err = (request.topology && *request.topology ? "NUMABIND_TOPOLOGY: " : "") + why;
    return nullptr;
  }
  return PreparePlanBasis(topo, request, err);
}

}  // namespace numabind::core
