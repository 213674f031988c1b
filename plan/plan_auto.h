// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_POLICY=auto: one policy for any machine, after LLNL's mpibind (docs/auto.md). Ranks are grouped
// as for the other policies: with devices, the ranks whose devices share NUMA nodes (node-local); without
// devices, every rank over every node with allowed CPUs (and allowed CPUs outside every node). Each group's
// ranks share its physical cores out, equal shares first:
//
//   fewer ranks than nodes: each rank a contiguous block of whole nodes (lower ranks one more);
//   otherwise every node one rank and the others in proportion to the nodes' cores beyond their first
//   (largest remainder: each node gets its quota rounded down or up, ties to more cores, then the lower
//   node); the ranks of a node take
//   contiguous equal shares of its cores (lower ranks one more), as blocks of whole last-level caches when
//   those are equal shares too;
//   more ranks than a node has cores: by caches and cores in proportion to their threads, and the ranks
//   of one core share its threads (the only overlap, and only when oversubscribed).
//
// Core kinds (hybrid P/E cores): while a group's ranks are no more than its cores of the fastest kind, they
// are shared out over those cores alone, as above; more ranks share every core (PlanSlot::fast_units).
//
// Memory-only NUMA nodes (KNL MCDRAM, HBM, CXL expanders, a Grace-Hopper GPU's memory) have no CPUs and are
// never chosen; a rank's memory nodes are those of its CPUs. The decision is made per rank count in
// ComputeRankPlan, from units the planner prepared (plan_auto_prepare.cc): physical cores with their node
// and cache (PlanBasis::unit_domains).
//
// plan_auto.cc is compiled into the shim: plain C++ only, child-safe.

#ifndef NUMABIND_PLAN_PLAN_AUTO_H_
#define NUMABIND_PLAN_PLAN_AUTO_H_

#include <stddef.h>
#include <stdint.h>

#include "plan/plan_basis.h"

namespace numabind::plan {

/// Places rank `index` of the `count` ranks of `slot`'s group: ORs its CPUs into out->cpus, sets
/// out->nodes to its CPUs' nodes (within the slot's nodes) and out->share. count >= 1, index < count.
/// Child-safe: arithmetic on the basis.
void PlaceAuto(const PlanBasis& basis, const PlanSlot& slot, uint64_t index, uint64_t count, RankPlan* out);

/// auto with devices and fewer ranks than devices: rank `rank` of `n` drives a contiguous block of the
/// slots (devices in bus order; lower ranks one more). Sets *first and *count and returns true; false
/// (one slot per rank, r mod slots) otherwise. Child-safe.
bool AutoDeviceBlock(const PlanBasis& basis, uint32_t rank, uint32_t n, uint32_t* first, uint32_t* count);

/// Places rank `rank` of `n` that drives slots [first, first + count): in each group those slots belong
/// to, its share (PlaceAuto) among the ranks whose blocks reach that group; its nodes are those of its
/// CPUs. Child-safe: arithmetic on the basis.
void PlaceAutoBlock(const PlanBasis& basis, uint32_t first, uint32_t count, uint32_t rank, uint32_t n,
                    RankPlan* out);

/// Writes what a rank got ("2 of 4 L3 of node 1", "1 of 2 threads of one core") into buf, always
/// NUL-terminated; returns the length it needed. Child-safe.
size_t FormatAutoShare(const PlanBasis& basis, const AutoShare& share, char* buf, size_t cap);

/// "L3" (or "L2"...) for the basis's last-level caches, "cache domain" when the level is unknown.
/// Child-safe.
const char* CacheName(const PlanBasis& basis);

}  // namespace numabind::plan

#endif  // NUMABIND_PLAN_PLAN_AUTO_H_
