// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The memory-only nodes near each CPU node (memory_tiers.h).

#include "planner/memory_tiers.h"

#include <limits>

namespace numabind::planner {

namespace {

/// The online CPUs of the package(s) holding `cpus`; every online CPU when the topology has no packages.
CpuSet PackageCpus(const Topology& topo, const CpuSet& cpus) {
  CpuSet out;
  bool any = false;
  for (int64_t c = cpus.First(); c >= 0; c = cpus.Next(c)) {
    const TopoPu* pu = topo.FindPu(static_cast<uint32_t>(c));
    if (pu == nullptr || pu->package < 0) continue;
    out.UnionWith(topo.packages[pu->package].cpus);
    any = true;
  }
  return any ? out : topo.online;
}

}  // namespace

MemoryTiers NearMemoryTiers(const Topology& topo) {
  MemoryTiers t;
  t.near.resize(topo.NodeLimit());
  for (const TopoNode& m : topo.nodes)
    if (m.memory_only) t.memory_only.Set(m.os);
  bool no_allowed_set = topo.allowed_nodes.Empty();
  for (const TopoNode& n : topo.nodes) {
    if (n.memory_only || n.cpus.Empty()) continue;
    CpuSet socket = PackageCpus(topo, n.cpus);
    // (not attached to n's CPUs, latency): the least wins; ties all join.
    std::pair<int, uint64_t> best{2, std::numeric_limits<uint64_t>::max()};
    NodeSet chosen;
    for (const TopoNode& m : topo.nodes) {
      if (!m.memory_only || m.locality.Empty() || !m.locality.IsSubsetOf(socket)) continue;
      if (!no_allowed_set && !topo.allowed_nodes.Has(m.os)) continue;
      uint64_t latency = topo.Distance(n.os, m.os);
      std::pair<int, uint64_t> key{m.locality.Intersects(n.cpus) ? 0 : 1,
                                   latency != 0 ? latency : std::numeric_limits<uint64_t>::max() - 1};
      if (key < best) best = key, chosen = NodeSet();
      if (key == best) chosen.Set(m.os);
    }
    t.near[n.os] = chosen;
  }
  return t;
}

}  // namespace numabind::planner
