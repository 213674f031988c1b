// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The second half of planning: a rank's plan from a prepared PlanBasis. This file is compiled into the
// shim and runs in a child between fork and exec, so everything here is plain arithmetic on memory the
// caller gives: no allocation, no standard library, no libc calls of its own (no snprintf: a vfork child
// shares its parent's memory and must not take locks; the compiler may turn a zeroing loop into memset,
// which is lock-free), no exceptions, no statics with guards.

#include "plan/plan_basis.h"

#include "base/text_writer.h"
#include "plan/plan_auto.h"

namespace numabind::plan {

namespace {

using Writer = base::TextWriter;

// Child-safe: pure arithmetic.
uint32_t PopCount(uint64_t w) {
  // Without -mpopcnt, __builtin_popcountll becomes a call into libgcc; the shim links libc alone.
  w = w - ((w >> 1) & 0x5555555555555555ull);
  w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
  w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<uint32_t>((w * 0x0101010101010101ull) >> 56);
}

// Child-safe: pure arithmetic.
bool TestBit(const uint64_t* words, uint32_t nwords, uint64_t i) {
  return i / 64 < nwords && ((words[i / 64] >> (i % 64)) & 1);
}

// The slot rank r of n goes to. Child-safe: pure arithmetic.
uint32_t SlotOf(const PlanBasis& basis, uint32_t r, uint32_t n) {
  if (basis.spread_in_blocks) {
    uint64_t s = static_cast<uint64_t>(r) * basis.slot_count / n;
    return static_cast<uint32_t>(s < basis.slot_count ? s : basis.slot_count - 1);
  }
  return r % basis.slot_count;
}

// How many of ranks 0 .. m-1 (of n) go to slot t. Child-safe: pure arithmetic.
uint64_t RanksOnSlot(const PlanBasis& basis, uint32_t t, uint64_t m, uint64_t n) {
  uint64_t s = basis.slot_count;
  if (basis.spread_in_blocks) {
    // Slot t holds ranks q with t*n <= q*s < (t+1)*n: q in [ceil(t*n/s), ceil((t+1)*n/s)).
    uint64_t lo = (t * n + s - 1) / s, hi = ((t + 1) * n + s - 1) / s;
    if (hi > m) hi = m;
    return hi > lo ? hi - lo : 0;
  }
  return m / s + (t < m % s ? 1 : 0);
}

// Child-safe: pure arithmetic on the caller's buffer.
void OrWords(uint64_t* dst, const uint64_t* src, uint32_t nwords) {
  for (uint32_t i = 0; i < nwords; ++i) dst[i] |= src[i];
}

// Starts out->error with "rank R: policy P: ". Child-safe: writes only into out->error.
Writer ErrorStart(const PlanBasis& basis, uint32_t rank, RankPlan* out) {
  Writer w{out->error, sizeof out->error, 0};
  out->error[0] = '\0';
  w.Str("rank ");
  w.Uint(rank);
  w.Str(": policy ");
  w.Str(basis.policy_text);
  w.Str(": ");
  return w;
}

}  // namespace

// Child-safe: pure arithmetic, no libc calls.
uint32_t CountBits(const uint64_t* words, uint32_t nwords) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < nwords; ++i) n += PopCount(words[i]);
  return n;
}

// Child-safe: writes only into buf, no libc calls.
size_t FormatBitList(const uint64_t* words, uint32_t nwords, char* buf, size_t cap) {
  Writer w{buf, cap, 0};
  if (cap > 0) buf[0] = '\0';
  uint64_t nbits = static_cast<uint64_t>(nwords) * 64;
  uint64_t i = 0;
  bool first = true;
  while (i < nbits) {
    uint64_t wi = i / 64;
    uint64_t rest = words[wi] >> (i % 64);
    if (rest == 0) {  // skip to the next word
      i = (wi + 1) * 64;
      continue;
    }
    i += static_cast<uint64_t>(__builtin_ctzll(rest));
    uint64_t start = i;
    while (i + 1 < nbits && TestBit(words, nwords, i + 1)) ++i;
    if (!first) w.Put(',');
    first = false;
    w.Uint(start);
    if (i > start) {
      w.Put('-');
      w.Uint(i);
    }
    ++i;
  }
  return w.len;
}

namespace {

// Clears *out and the caller's cpus/nodes storage. Child-safe: writes only into *out.
void ClearPlan(const PlanBasis& basis, RankPlan* out) {
  for (uint32_t i = 0; i < basis.cpu_words; ++i) out->cpus[i] = 0;
  for (uint32_t i = 0; i < basis.node_words; ++i) out->nodes[i] = 0;
  out->memory = basis.memory;
  out->device = "";
  out->label = "";
  out->device_vendor = 0;
  out->device_ordinal = -1;
  out->device_slot = 0, out->device_count = 0;
  out->nics = "";
  out->error[0] = '\0';
  out->share = AutoShare{};
}

// This rank's index among the ranks of the slots that `same` says are alike, and how many there are:
// O(slots), not O(ranks). Child-safe: pure arithmetic.
template <typename Same>
void IndexAmong(const PlanBasis& basis, uint32_t rank, uint32_t n, Same same, uint64_t* index,
                uint64_t* count) {
  *index = 0, *count = 0;
  for (uint32_t t = 0; t < basis.slot_count; ++t) {
    if (!same(basis.slots[t])) continue;
    *index += RanksOnSlot(basis, t, rank, n);
    *count += RanksOnSlot(basis, t, n, n);
  }
}

// Core kinds: the fastest kind's units (the slot's first fast_units) while `count` ranks fit on them, else
// every unit. Child-safe: pure arithmetic.
uint64_t UnitsFor(const PlanSlot& slot, uint64_t count) {
  return slot.fast_units > 0 && count <= slot.fast_units ? slot.fast_units : slot.unit_count;
}

// exclusive: contiguous slices of the group's physical cores; the first (cores % ranks) ranks take one
// more. Like torch, too few cores for the ranks of a node is an error for every rank there, not only for
// those whose slice would be empty. Child-safe: writes only into *out.
bool PlaceExclusive(const PlanBasis& basis, const PlanSlot& slot, const uint64_t* units, uint32_t rank,
                    uint32_t stated, uint64_t index, uint64_t count, RankPlan* out) {
  uint64_t cores = UnitsFor(slot, count);
  if (cores < count && stated != 0 && rank >= stated) {
    // Counted as the last of rank + 1 ranks: name the count that was stated, not that one.
    Writer w = ErrorStart(basis, rank, out);
    w.Str("past the rank count, ");
    w.Uint(stated);
    w.Str(" (ranks 0 to ");
    w.Uint(stated - 1);
    w.Str("), and ");
    w.Str(slot.label);
    w.Str(" has ");
    w.Uint(cores);
    w.Str(cores == 1 ? " core" : " cores");
    return false;
  }
  if (cores < count) {
    Writer w = ErrorStart(basis, rank, out);
    w.Str(slot.label);
    w.Str(" has ");
    w.Uint(cores);
    w.Str(cores == 1 ? " core for " : " cores for ");
    w.Uint(count);
    // Oversubscribed: say what fits instead (the same words in `numabind plan` and a rank's line).
    w.Str(" ranks: use node or auto, or at most ");
    w.Uint(cores);
    w.Str(cores == 1 ? " rank" : " ranks");
    return false;
  }
  // count >= 1: this rank's own slot is in the group and RanksOnSlot counts the rank there.
  uint64_t per = cores / count, extra = cores % count;  // NOLINT(clang-analyzer-core.DivideZero)
  uint64_t start = index * per + (index < extra ? index : extra);
  uint64_t len = per + (index < extra ? 1 : 0);
  for (uint64_t u = start; u < start + len; ++u)
    OrWords(out->cpus, units + static_cast<uint64_t>(u) * basis.cpu_words, basis.cpu_words);
  return true;
}

// auto: this rank's index among the ranks of the slots of its slot's group, ordered by slot then rank (the
// ranks of one device take adjacent shares), and how many there are. Child-safe: pure arithmetic.
void AutoIndex(const PlanBasis& basis, uint32_t s, uint32_t rank, uint32_t n, uint64_t* index,
               uint64_t* count) {
  *index = RanksOnSlot(basis, s, rank, n), *count = 0;
  for (uint32_t t = 0; t < basis.slot_count; ++t) {
    if (basis.slots[t].group != basis.slots[s].group) continue;
    if (t < s) *index += RanksOnSlot(basis, t, n, n);
    *count += RanksOnSlot(basis, t, n, n);
  }
}

// The rank's CPUs from its slot's units (slot s), by policy; under auto with fewer ranks than devices, from
// the block of `block` slots that starts at s; `stated` is the count the rank was given (0: none), which n
// exceeds for a rank past it. Child-safe: writes only into *out.
bool PlaceCpus(const PlanBasis& basis, uint32_t s, uint32_t block, uint32_t rank, uint32_t n, uint32_t stated,
               RankPlan* out) {
  const PlanSlot& slot = basis.slots[s];
  const uint64_t* units = basis.unit_cpus + static_cast<uint64_t>(slot.first_unit) * basis.cpu_words;
  switch (basis.policy) {
    case config::PolicyKind::kExclusive:
    case config::PolicyKind::kCoreComplex:
    case config::PolicyKind::kAuto: {
      uint64_t index, count;
      if (basis.policy == config::PolicyKind::kAuto) {
        if (block > 0) {
          PlaceAutoBlock(basis, s, block, rank, n, out);
        } else {
          AutoIndex(basis, s, rank, n, &index, &count);
          PlaceAuto(basis, slot, index, count, out);
        }
        return true;
      }
      // exclusive and core-complex order the group's ranks by rank, as torch.
      IndexAmong(
          basis, rank, n, [&](const PlanSlot& t) { return t.group == slot.group; }, &index, &count);
      if (basis.policy == config::PolicyKind::kCoreComplex) {
        OrWords(out->cpus, units + (index % UnitsFor(slot, count)) * basis.cpu_words, basis.cpu_words);
        return true;
      }
      return PlaceExclusive(basis, slot, units, rank, stated, index, count, out);
    }
    case config::PolicyKind::kNode:
    case config::PolicyKind::kSocket:
    case config::PolicyKind::kCpuMap:
    case config::PolicyKind::kNodeMap: OrWords(out->cpus, units, basis.cpu_words); return true;
  }
  return true;
}

// Fails the plan with "rank R: policy P: LABEL has no allowed CPUs". Child-safe: writes only into *out.
bool NoAllowedCpus(const PlanBasis& basis, const PlanSlot& slot, uint32_t rank, RankPlan* out) {
  Writer w = ErrorStart(basis, rank, out);
  w.Str(slot.label);
  w.Str(" has no allowed CPUs");
  return false;
}

}  // namespace

// Child-safe: reads the basis, writes only into *out and the caller's cpus/nodes storage; no allocation,
// locks, libc or system calls.
namespace {

/// Child-safe: ComputeRankPlan for a rank of a known count.
bool PlanRankOf(const PlanBasis& basis, uint32_t rank, uint32_t nranks, RankPlan* out) {
  ClearPlan(basis, out);
  if (basis.slot_count == 0) {
    Writer w = ErrorStart(basis, rank, out);
    w.Str("no place to put ranks");
    return false;
  }
  // A rank beyond a stated count (a stale NUMABIND_NRANKS) counts as the last of rank + 1 ranks rather
  // than falling off the end of the slots.
  uint32_t n = nranks;
  if (rank >= n) n = rank + 1 != 0 ? rank + 1 : rank;  // rank 4294967295: n = rank, slot clamped below

  uint32_t s = SlotOf(basis, rank, n), block = 1;
  if (!AutoDeviceBlock(basis, rank, n, &s, &block)) block = 0;  // auto: fewer ranks than devices
  const PlanSlot& slot = basis.slots[s];
  // The slots the rank draws on: a block under auto (whatever their devices' names), else its own when it
  // has a device.
  out->device_slot = s, out->device_count = block > 0 ? block : slot.device[0] != '\0' ? 1 : 0;
  out->device = slot.device;
  out->label = slot.label;
  out->device_vendor = slot.device_vendor;
  out->device_ordinal = slot.device_ordinal;
  if (slot.nic_set >= 0) {  // this rank's share of the rails nearest its slot, among the ranks sharing them
    uint64_t index, count;
    IndexAmong(
        basis, rank, n, [&](const PlanSlot& t) { return t.nic_set == slot.nic_set; }, &index, &count);
    out->nics = PickNics(basis, slot.nic_set, index, count);
  }
  const uint64_t* slot_nodes = basis.slot_nodes + static_cast<uint64_t>(s) * basis.node_words;
  for (uint32_t i = 0; i < basis.node_words; ++i) out->nodes[i] = slot_nodes[i];
  if (slot.unit_count == 0) return NoAllowedCpus(basis, slot, rank, out);
  if (!PlaceCpus(basis, s, block, rank, n, nranks, out)) return false;
  if (CountBits(out->cpus, basis.cpu_words) == 0) return NoAllowedCpus(basis, slot, rank, out);
  AddNearTiers(basis, out);
  return true;
}

// True when n ranks give no group with units more ranks than it has units (cores, caches); a group with
// none fails its ranks whatever the count. O(slots^2). Child-safe: pure arithmetic.
bool EachGroupHasUnitsFor(const PlanBasis& basis, uint32_t n) {
  for (uint32_t t = 0; t < basis.slot_count; ++t) {
    const PlanSlot& slot = basis.slots[t];
    bool seen = false;
    for (uint32_t u = 0; u < t && !seen; ++u) seen = basis.slots[u].group == slot.group;
    if (seen || slot.unit_count == 0) continue;
    uint64_t ranks = 0;
    for (uint32_t u = t; u < basis.slot_count; ++u)
      if (basis.slots[u].group == slot.group) ranks += RanksOnSlot(basis, u, n, n);
    if (ranks > slot.unit_count) return false;
  }
  return true;
}

// How many places an unknown count is planned over. exclusive and core-complex: one per unit (core,
// last-level cache) of every group, or the largest count under that which gives no group more ranks than
// units (nodes of unequal size, devices spread unevenly), so that each rank has units of its own; never fewer
// than the slots. Every other policy: its slots (nodes, devices, map entries). Child-safe: pure arithmetic.
uint32_t UnknownCountPlaces(const PlanBasis& basis) {
  if (basis.policy != config::PolicyKind::kExclusive && basis.policy != config::PolicyKind::kCoreComplex)
    return basis.slot_count;
  uint64_t units = 0;
  for (uint32_t t = 0; t < basis.slot_count; ++t) {
    bool seen = false;
    for (uint32_t u = 0; u < t && !seen; ++u) seen = basis.slots[u].group == basis.slots[t].group;
    if (!seen) units += basis.slots[t].unit_count;
  }
  if (units > 0xffffffffu) units = 0xffffffffu;
  for (uint64_t n = units; n > basis.slot_count; --n)
    if (EachGroupHasUnitsFor(basis, static_cast<uint32_t>(n))) return static_cast<uint32_t>(n);
  return basis.slot_count;
}

}  // namespace

bool ComputeRankPlan(const PlanBasis& basis, uint32_t rank, uint32_t nranks, RankPlan* out) {
  // An unknown count (ranks found by order with no NUMABIND_NRANKS): planned as if there were as many ranks
  // as the policy has places (UnknownCountPlaces: cores under exclusive, caches under core-complex, else
  // nodes or devices), rank r as rank r mod that. Counting rank + 1 instead gave sets that partly overlap
  // (rank 0 of 1 on CPUs 0-1, rank 1 of 2 on CPU 1); counting the slots gave every worker of an exclusive
  // node all of its cores. Now two ranks' sets are disjoint or the same.
  if (nranks != 0 || basis.slot_count == 0) return PlanRankOf(basis, rank, nranks, out);
  uint32_t places = UnknownCountPlaces(basis);
  if (PlanRankOf(basis, rank % places, places, out)) return true;
  // The error names the rank asked for: "rank 9: ..." rather than "rank 1: ...".
  char tail[sizeof out->error];
  const char* colon = out->error;
  while (*colon != '\0' && *colon != ':') ++colon;
  size_t len = 0;
  for (const char* p = colon; *p != '\0' && len + 1 < sizeof tail; ++p) tail[len++] = *p;
  tail[len] = '\0';
  Writer w{out->error, sizeof out->error, 0};
  w.Str("rank ");
  w.Uint(rank);
  w.Str(tail);
  return false;
}

}  // namespace numabind::plan
