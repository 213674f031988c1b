// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The contract between the planner and everything that applies a plan.
//
// Planning is split in two. PreparePlanBasis (planner/planner.h) runs once per launcher: it loads the
// topology (hwloc), chooses devices and turns the policy into a PlanBasis, plain data in one block of memory.
// Which local rank a spawn is, and how many local ranks there are, is often known only in the child between
// fork and exec (mpirun and bash build the rank's environment there), so the second half, ComputeRankPlan, is
// pure arithmetic on the basis: no allocation, no locks, no system calls. The shim calls it in that child;
// `numabind plan` calls it for every rank. One implementation serves both, so the command shows exactly
// what the shim does.
//
// This header, plan_basis.cc and basis_offsets.cc are compiled into the shim, which links libc alone: plain
// C++ only (no standard library containers, no exceptions, no RTTI, no function-local statics).

#ifndef NUMABIND_PLAN_PLAN_BASIS_H_
#define NUMABIND_PLAN_PLAN_BASIS_H_

#include <stddef.h>
#include <stdint.h>

#include "config/grammar.h"

namespace numabind::plan {

/// PCI vendor ids of the accelerators numabind knows (the planner finds them, rank_env names their
/// variables).
constexpr uint32_t kPciNvidia = 0x10de;
constexpr uint32_t kPciAmd = 0x1002;
constexpr uint32_t kPciIntel = 0x8086;
constexpr uint32_t kPciHabana = 0x1da3;

/// The policy and memory policy enums are config's (config/grammar.h), the one reading of NUMABIND_POLICY
/// and NUMABIND_MEMORY.
using config::MemoryKind;
using config::MemoryName;
using config::PolicyKind;

/// One place a rank can be sent: a device (with its node, or every node when its locality is unknown), a
/// NUMA node when there are no devices, or one entry of an explicit map.
struct PlanSlot {
  /// Slots with the same group share their units among their ranks (the devices of one node); slots of
  /// different groups never share. Explicit maps give every slot its own group.
  int32_t group;
  /// This slot's units are unit_cpus[first_unit .. first_unit + unit_count).
  uint32_t first_unit;
  uint32_t unit_count;
  /// Core kinds: the first fast_units of them are of the fastest CPU kind; exclusive and core-complex use
  /// only those while the group's ranks need no more (issue 36). auto's are a copy of those cores, and
  /// every core follows them (plan_auto.h). 0: one kind.
  uint32_t fast_units;
  /// The slot's NUMA node set: node_words words at PlanBasis::slot_nodes + index * node_words.
  /// Human-readable label of where the slot is, for messages: "node 1", "node 0-1 (locality unknown)".
  char label[48];
  /// PCI bus id of the slot's device ("0000:34:00.0"), empty without devices.
  char device[32];
  /// The device's PCI vendor (kPciNvidia, kPciAmd below), 0 without one; and its index among the
  /// accelerators of that vendor in PCI bus order (what CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES
  /// number), -1 when unknown. For NUMABIND_EXPORT=gpu.
  uint32_t device_vendor;
  int32_t device_ordinal;
  /// The device's UUID in the form its runtime's visibility variable takes ("GPU-8f3c..." for NVIDIA,
  /// "GPU-" and 16 hex digits for AMD), when the topology carries one (hwloc's NVIDIAUUID or AMDUUID);
  /// empty otherwise. For NUMABIND_BY_DEVICE (plan/device_rank.h).
  char uuid[48];
  /// Index into PlanBasis::nic_sets of the network rails nearest this slot; -1 for none. Ranks whose slots
  /// share a set split its rails among them (PickNics).
  int32_t nic_set;
};

/// The most rails (HCA ports) one NIC set holds; the planner keeps the first ones.
constexpr uint32_t kMaxNicRails = 16;

/// One set of network rails: rail_count "name:port" entries. Every contiguous run of them is written out
/// in PlanBasis::nic_text: the run of `len` rails from `start` is at nic_text +
/// nic_ranges[first_range + start * rail_count + len - 1].
struct PlanNicSet {
  uint32_t rail_count;  ///< 1 .. kMaxNicRails
  uint32_t first_range;
};

/// Everything ComputeRankPlan needs; built by PreparePlanBasis as one self-contained allocation, so a
/// forked child reads it at the same address and a vfork child only reads it.
struct PlanBasis {
  config::PolicyKind policy;
  config::MemoryKind memory;
  /// True when ranks are spread over slots in contiguous blocks (no devices, not a map): rank r of n goes
  /// to slot floor(r * slot_count / n). Otherwise slot = r mod slot_count.
  bool spread_in_blocks;
  /// 64-bit words in one CPU set and in one node set (bit i of word i/64 is CPU or node i: the layout
  /// sched_setaffinity and set_mempolicy take on a 64-bit little-endian machine).
  uint32_t cpu_words;
  uint32_t node_words;
  uint32_t slot_count;
  const PlanSlot* slots;
  const uint64_t* slot_nodes;  ///< slot_count * node_words words
  uint32_t unit_count;
  const uint64_t* unit_cpus;  ///< unit_count * cpu_words words
  /// auto only (nullptr otherwise): for each unit, a physical core, its node number, its last-level cache's
  /// index and its thread count (3 words per unit); units run by node, then cache, then CPU. See
  /// plan/plan_auto.h.
  const uint32_t* unit_domains;
  uint32_t llc_level;  ///< auto: the cache level of the last-level caches (3 for L3), 0 when unknown
  /// The policy and memory policy as the user wrote them, for messages ("exclusive", "cpus:1|0").
  char policy_text[64];
  char memory_text[16];
  /// Bytes in the whole block (this struct and the arrays it points to), for copying it to another process.
  uint64_t total_bytes;
  /// cpu_words * 64 entries: the next SMT sibling of each CPU in a ring ascending then wrapping to the
  /// core's lowest CPU (the CPU itself when it has none or is unknown). For NUMABIND_EXPORT=omp's places.
  const uint32_t* cpu_sibling;
  /// Network rails (planner/nics.h), when the request wants NICs: no sets otherwise. nic_text holds the
  /// NUL-terminated lists ("mlx5_0:1,mlx5_1:1"), "" at offset 0, and ends with a NUL.
  uint32_t nic_set_count;
  uint32_t nic_range_count;
  const PlanNicSet* nic_sets;
  const uint32_t* nic_ranges;
  uint64_t nic_text_bytes;
  const char* nic_text;
  /// NUMABIND_MEMORY=near and weighted (plan_tiers.cc; tier_rows 0 and tier_nodes offset 0 otherwise):
  /// node_words * 64 + 1 rows of node_words words. Row n holds the memory-only nodes a rank on node n adds
  /// (its socket's nearest, planner/memory_tiers.h); the last row every memory-only node of the machine.
  uint32_t tier_rows;
  uint32_t tier_flags;  ///< kTier* bits
  const uint64_t* tier_nodes;
};

/// tier_flags: the machine has accelerators (weighted interleave is then usually a loss: said once).
constexpr uint32_t kTierGpus = 1;

/// The level at which auto shared out a rank's group: whole nodes, whole last-level caches of one node,
/// cores of one cache, threads of one core, or one thread that several ranks share (oversubscribed).
enum class AutoGrain : uint8_t { kNodes, kCaches, kCores, kThreads, kShared };

/// What auto gave a rank: `taken` of the `of` items of its grain in the domain (the group's nodes, one
/// node, one cache, one core) that was shared out among `sharers` ranks; `group_ranks` ranks share the
/// rank's group (its device's nodes, or every node without devices); `node` is its first unit's node.
struct AutoShare {
  AutoGrain grain;
  uint32_t taken, of, sharers, group_ranks, node;
};

/// Where one rank goes. The caller provides the storage: cpus must hold basis.cpu_words words and nodes
/// basis.node_words words.
struct RankPlan {
  uint64_t* cpus;
  uint64_t* nodes;
  config::MemoryKind memory;
  const char* device;      ///< points into the basis; "" without devices
  const char* label;       ///< points into the basis
  uint32_t device_vendor;  ///< the slot's (PlanSlot::device_vendor)
  int32_t device_ordinal;  ///< the slot's (PlanSlot::device_ordinal)
  /// The rank drives the devices of slots [device_slot, device_slot + device_count): one slot, or under
  /// auto with fewer ranks than devices a block of them (device, vendor and ordinal are the first's).
  uint32_t device_slot, device_count;
  /// The rank's network rails, comma-separated "name:port" ("mlx5_0:1,mlx5_1:1"), nearest first; points
  /// into the basis; "" when the basis has none for it.
  const char* nics;
  /// auto only: what share of its group the rank got (FormatAutoShare in plan/plan_auto.h writes it).
  AutoShare share;
  /// Why the rank could not be placed, when ComputeRankPlan returns false: names the rank, the policy and
  /// the reason ("rank 3: policy exclusive: node 0 has 2 cores for 3 ranks").
  char error[160];
};

/// Fills `out` for local rank `rank` of `nranks`. nranks 0 means unknown: rank `rank % P` of P, P the
/// policy's places (exclusive: the cores, core-complex: the last-level caches, as many as give each rank
/// its own; else the slots), so that two ranks' CPU sets are disjoint or the same, never partly
/// overlapping. Returns false, with out->error set, when the rank's CPU set is empty.
/// Child-safe: no allocation, locks or system calls.
bool ComputeRankPlan(const PlanBasis& basis, uint32_t rank, uint32_t nranks, RankPlan* out);

/// Writes `words` (nwords 64-bit words) as a Linux list ("0-3,8,10-11"; "" when empty) into buf, always
/// NUL-terminated; returns the length it needed (like snprintf). Child-safe.
size_t FormatBitList(const uint64_t* words, uint32_t nwords, char* buf, size_t cap);

/// Turns the pointers of a basis block into offsets from its start, so the block can be sent to another
/// process (the shim prepares in a helper process, keeping hwloc and libstdc++ out of launchers).
void BasisToOffsets(PlanBasis* basis);

/// Sets *field, a pointer into the block that starts at `base`, to its offset from there.
template <typename T>
void ToOffset(const T** field, const void* base) {
  *field =
      reinterpret_cast<const T*>(reinterpret_cast<uintptr_t>(*field) - reinterpret_cast<uintptr_t>(base));
}

/// The reverse, in the receiving process (both in basis_offsets.cc): checks that `size` bytes at `block`
/// hold a whole basis whose arrays lie inside it and turns its offsets back into pointers. False when the
/// block is malformed.
bool BasisFromOffsets(void* block, size_t size);

/// The rails of nic set `set` for the index-th of `count` ranks sharing it (plan_nics.cc): k rails among m
/// ranks, rank i gets rails floor(i*k/m) .. floor((i+1)*k/m)-1, at least one: its own contiguous share when
/// m <= k, the rail of its block of ranks when m > k. "" for set -1. Child-safe.
const char* PickNics(const PlanBasis& basis, int32_t set, uint64_t index, uint64_t count);

/// BasisToOffsets and BasisFromOffsets for the NIC arrays (plan_nics.cc).
void NicsToOffsets(PlanBasis* basis);
bool NicsFromOffsets(void* block, size_t size);

/// NUMABIND_MEMORY=near and weighted: adds to out->nodes the memory-only nodes near its nodes (the rows of
/// basis.tier_nodes); nothing for other memory policies. Child-safe (plan_tiers.cc).
void AddNearTiers(const PlanBasis& basis, RankPlan* out);

/// The lowest of `nodes` that is not memory-only (the rank's own node, what near falls back to preferring),
/// or -1. Child-safe.
int64_t FirstOwnNode(const PlanBasis& basis, const uint64_t* nodes);

/// Whether the basis has a memory-only node to add (near and weighted are then more than the rank's own
/// nodes). Child-safe.
bool HasTierNodes(const PlanBasis& basis);

/// BasisToOffsets and BasisFromOffsets for the tier table (plan_tiers.cc).
void TiersToOffsets(PlanBasis* basis);
bool TiersFromOffsets(void* block, size_t size);

/// Number of set bits. Child-safe.
uint32_t CountBits(const uint64_t* words, uint32_t nwords);

}  // namespace numabind::plan

#endif  // NUMABIND_PLAN_PLAN_BASIS_H_
