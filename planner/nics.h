// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Network devices for ranks (NUMABIND_EXPORT=nic). Discovery (nics.cc, hwloc) fills Topology::nics with
// the InfiniBand/RoCE HCAs and their usable ports; the planner then gives each slot of the basis the set of
// rails (HCA ports, "mlx5_0:1") nearest to it, and ComputeRankPlan splits a set among the ranks sharing it
// (PickNics, plan_basis.h).
//
// Nearest, by the first of these tiers that has any rail:
//   switch   a slot with a device: HCAs behind a PCI-to-PCI bridge (a PCIe switch) the device is behind too
//   node     HCAs near one of the slot's NUMA nodes (for a device: the device's node)
//   package  HCAs near a node in a package of the slot's nodes
//   any      every HCA (also for slots whose locality is unknown)
// Beyond the switch tier, an HCA behind the PCIe switch of another slot's device is taken only when the
// tier has nothing else: a device without an HCA of its own does not share its neighbour's.
// Rails are ordered by the HCA's PCI bus id, then name, then port.

#ifndef NUMABIND_PLANNER_NICS_H_
#define NUMABIND_PLANNER_NICS_H_

#include <string>
#include <vector>

#include "plan/plan_basis.h"
#include "planner/topology.h"

namespace numabind::planner {

enum class NicTier { kNone, kSwitch, kNode, kPackage, kAny };

/// Where a slot is, for choosing its rails.
struct NicPlace {
  std::string device;    ///< its device's bus id, "" without one
  NodeSet nodes;         ///< its NUMA nodes (the device's node, a map entry's nodes)
  bool unknown = false;  ///< locality unknown: only the `any` tier applies
};

/// The rails ("name:port") nearest `place`, at most kMaxNicRails, and which tier they came from (kNone and
/// no rails when the topology has no usable HCA port). Beyond the switch tier, HCAs named in `claimed`
/// (behind the switch of another slot's device) are taken only when the tier has no other.
std::vector<std::string> NearestRails(const Topology& topo, const NicPlace& place, NicTier* tier,
                                      const std::vector<std::string>& claimed = {});

/// The NIC arrays of a basis, before packing.
struct NicTables {
  std::vector<int32_t> slot_set;  ///< per slot: index into sets, -1 for none
  std::vector<plan::PlanNicSet> sets;
  std::vector<uint32_t> ranges;
  std::string text;  ///< starts with "" (a NUL) and ends with a NUL
};

/// Builds the tables for slots at `places` (one set per distinct list of nearest rails). Without NICs
/// every slot gets -1.
NicTables BuildNicTables(const Topology& topo, const std::vector<NicPlace>& places);

/// The tier's name ("switch", "node", "package", "any", "none").
const char* NicTierName(NicTier tier);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_NICS_H_
