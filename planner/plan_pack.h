// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The planner's internals (planner.cc): the places ranks go before they are packed into one PlanBasis
// block, the packing, and auto's units (plan_auto_prepare.cc). Not an interface outside planner/.

#ifndef NUMABIND_PLANNER_PLAN_PACK_H_
#define NUMABIND_PLANNER_PLAN_PACK_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "plan/plan_basis.h"
#include "planner/nics.h"
#include "planner/planner.h"
#include "planner/topology.h"

namespace numabind::planner {

/// One place ranks go, before packing into the basis.
struct Draft {
  int32_t group = 0;
  NodeSet nodes;
  uint32_t first_unit = 0, unit_count = 0;
  uint32_t fast_units = 0;  // PlanSlot::fast_units
  std::string label, device;
  std::string uuid;  // the device's (PlanSlot::uuid)
  uint32_t vendor = 0;
  int32_t ordinal = -1;
  NicPlace place;  // where it is, for its network rails
};

/// auto's extra data: three words per unit (node number, last-level cache index, threads) and the caches'
/// level.
struct AutoUnits {
  std::vector<uint32_t> domains;
  uint32_t llc_level = 0;
};

/// Packs everything into one malloc'd block (release with free()), or nullptr with *err; with want_nics,
/// each draft's nearest network rails (planner/nics.h) too.
plan::PlanBasis* Pack(const Topology& topo, const Policy& policy, config::MemoryKind memory, bool spread,
                      const std::vector<Draft>& drafts, const std::vector<CpuSet>& units,
                      const AutoUnits& extra, bool want_nics, std::string* err);

/// Core kinds: moves the units of `fastest` (units[first..]) ahead of the others, keeping their order, and
/// returns how many they are; 0 when the units are of one kind (kind_order.cc).
uint32_t FastUnitsFirst(const CpuSet& fastest, std::vector<CpuSet>* units, uint32_t first);

/// auto: appends the physical cores of `scope` (each core's CPUs in scope) to units, ordered by node
/// number, then by their last-level cache's lowest CPU, then by their own lowest CPU, and their domains.
/// Core kinds: when scope holds cores of topo.fastest_kind and others, those of the fastest kind are
/// appended first on their own (same order), then every core; returns how many the first run holds
/// (PlanSlot::fast_units), 0 otherwise.
uint32_t AddAutoUnits(const Topology& topo, const CpuSet& scope, std::vector<CpuSet>* units,
                      AutoUnits* extra);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_PLAN_PACK_H_
