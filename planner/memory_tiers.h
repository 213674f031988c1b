// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Memory-only nodes for NUMABIND_MEMORY=near and weighted: which of them a rank on a CPU node adds. A
// memory-only node (TopoNode::memory_only: HBM in flat mode, a CXL expander) is never a rank's node by
// default; near prefers, and weighted interleaves over, the rank's nodes and the memory-only nodes of its
// socket nearest them.

#ifndef NUMABIND_PLANNER_MEMORY_TIERS_H_
#define NUMABIND_PLANNER_MEMORY_TIERS_H_

#include <vector>

#include "planner/cpu_set.h"
#include "planner/topology.h"

namespace numabind::planner {

/// The memory-only nodes near each CPU node.
struct MemoryTiers {
  /// By node number (topo.NodeLimit() entries): for a node with CPUs, the allowed memory-only nodes whose
  /// CPUs (hwloc's locality) lie inside the package(s) of its CPUs, never another socket's; of those, the
  /// ones hwloc attached to its CPUs (from HMAT's initiators or the distances) before the others, then the
  /// least latency in the firmware's distances (SLIT); all of the nearest when they tie. Empty otherwise.
  std::vector<NodeSet> near;
  NodeSet memory_only;  ///< every memory-only node of the topology
};

MemoryTiers NearMemoryTiers(const Topology& topo);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_MEMORY_TIERS_H_
