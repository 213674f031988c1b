// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Queries on a loaded Topology (no hwloc here: see topology_load.cc).

#include "planner/topology.h"

#include <algorithm>

namespace numabind::planner {

const TopoPu* Topology::FindPu(uint32_t os) const {
  auto it =
      std::lower_bound(pus.begin(), pus.end(), os, [](const TopoPu& p, uint32_t v) { return p.os < v; });
  return it != pus.end() && it->os == os ? &*it : nullptr;
}

int Topology::NodeIndex(uint32_t os) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].os == os) return static_cast<int>(i);
  return -1;
}

NodeSet Topology::CpuNodes() const {
  NodeSet s;
  for (const TopoNode& n : nodes)
    if (!n.cpus.Empty()) s.Set(n.os);
  return s;
}

NodeSet Topology::NodesWithAllowedCpus() const {
  NodeSet s;
  for (const TopoNode& n : nodes)
    if (n.cpus.Intersects(allowed)) s.Set(n.os);
  return s;
}

CpuSet Topology::CpusOfNodes(const NodeSet& wanted) const {
  CpuSet s;
  for (const TopoNode& n : nodes)
    if (wanted.Has(n.os)) s.UnionWith(n.cpus);
  return s;
}

NodeSet Topology::NodesOfCpus(const CpuSet& cpus) const {
  NodeSet s;
  for (const TopoNode& n : nodes)
    if (n.cpus.Intersects(cpus)) s.Set(n.os);
  return s;
}

NodeSet Topology::MemoryNodes() const {
  NodeSet ordinary, permitted;
  for (const TopoNode& n : nodes) {
    if (!allowed_nodes.Has(n.os)) continue;
    permitted.Set(n.os);
    if (!n.memory_only) ordinary.Set(n.os);
  }
  if (!ordinary.Empty()) return ordinary;
  return permitted.Empty() ? CpuNodes() : permitted;
}

uint64_t Topology::Distance(uint32_t from, uint32_t to) const {
  int a = NodeIndex(from), b = NodeIndex(to);
  if (a < 0 || b < 0 || distances.size() != nodes.size() * nodes.size()) return 0;
  return distances[static_cast<size_t>(a) * nodes.size() + static_cast<size_t>(b)];
}

uint32_t Topology::NodeLimit() const {
  uint32_t limit = 0;
  for (const TopoNode& n : nodes) limit = std::max(limit, n.os + 1);
  return limit;
}

}  // namespace numabind::planner
