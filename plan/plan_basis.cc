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

namespace numabind::core {

namespace {

using Writer = TextWriter;

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

// Terminates a text field of a received block and turns control characters into '?': the texts go into
// one-line log messages (a newline from the block would start a line of its own; found by
// fuzz/plan_basis_fuzz.cc).
void Printable(char* text, size_t size) {
  text[size - 1] = '\0';
  for (size_t i = 0; text[i] != '\0'; ++i) {
    if (static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7f) text[i] = '?';
  }
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

// Child-safe: returns a string literal.
const char* MemoryName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kLocal: return "local";
    case MemoryKind::kPreferred: return "preferred";
    case MemoryKind::kBind: return "bind";
    case MemoryKind::kInterleave: return "interleave";
  }
  return "unknown";
}

// Child-safe: reads the basis, writes only into *out and the caller's cpus/nodes storage; no allocation,
// locks, libc or system calls.
bool ComputeRankPlan(const PlanBasis& basis, uint32_t rank, uint32_t nranks, RankPlan* out) {
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
  if (basis.slot_count == 0) {
    Writer w = ErrorStart(basis, rank, out);
    w.Str("no place to put ranks");
    return false;
  }
  // A rank beyond a stated count (a stale NUMABIND_NRANKS) counts as the last of rank + 1 ranks rather
  // than falling off the end of the slots.
  uint32_t n = nranks;
  if (n == 0 && basis.slot_count > n) n = basis.slot_count;
  if (rank >= n) n = rank + 1 != 0 ? rank + 1 : rank;  // rank 4294967295: n = rank, slot clamped below

  uint32_t s = SlotOf(basis, rank, n), block = 1;
  bool blocks = AutoDeviceBlock(basis, rank, n, &s, &block);  // auto: fewer ranks than devices
  const PlanSlot& slot = basis.slots[s];
  out->device_slot = s, out->device_count = slot.device[0] != '\0' ? block : 0;
  out->device = slot.device;
  out->label = slot.label;
  out->device_vendor = slot.device_vendor;
  out->device_ordinal = slot.device_ordinal;
  if (slot.nic_set >= 0) {  // this rank's share of the rails nearest its slot, among the ranks sharing them
    uint64_t index = 0, count = 0;
    for (uint32_t t = 0; t < basis.slot_count; ++t) {
      if (basis.slots[t].nic_set != slot.nic_set) continue;
      index += RanksOnSlot(basis, t, rank, n);
      count += RanksOnSlot(basis, t, n, n);
    }
    out->nics = PickNics(basis, slot.nic_set, index, count);
  }
  const uint64_t* slot_nodes = basis.slot_nodes + static_cast<uint64_t>(s) * basis.node_words;
  for (uint32_t i = 0; i < basis.node_words; ++i) out->nodes[i] = slot_nodes[i];

  const uint64_t* units = basis.unit_cpus + static_cast<uint64_t>(slot.first_unit) * basis.cpu_words;
  if (slot.unit_count == 0) {
    Writer w = ErrorStart(basis, rank, out);
    w.Str(slot.label);
    w.Str(" has no allowed CPUs");
    return false;
  }

  switch (basis.policy) {
    case PolicyKind::kExclusive:
    case PolicyKind::kCoreComplex:
    case PolicyKind::kAuto: {
      // This rank's index among the ranks whose slots share its group, and how many there are: O(slots),
      // not O(ranks). auto orders them by slot then rank (the ranks of one device take adjacent shares);
      // exclusive and core-complex by rank, as torch.
      bool by_slot = basis.policy == PolicyKind::kAuto;
      uint64_t index = by_slot ? RanksOnSlot(basis, s, rank, n) : 0, count = 0;
      for (uint32_t t = 0; t < basis.slot_count; ++t) {
        if (basis.slots[t].group != slot.group) continue;
        if (!by_slot) index += RanksOnSlot(basis, t, rank, n);
        if (by_slot && t < s) index += RanksOnSlot(basis, t, n, n);
        count += RanksOnSlot(basis, t, n, n);
      }
      if (blocks) {
        PlaceAutoBlock(basis, s, block, rank, n, out);
        break;
      }
      if (basis.policy == PolicyKind::kAuto) {
        PlaceAuto(basis, slot, index, count, out);
        break;
      }
      if (basis.policy == PolicyKind::kCoreComplex) {
        OrWords(out->cpus, units + (index % slot.unit_count) * basis.cpu_words, basis.cpu_words);
        break;
      }
      // Contiguous slices of the group's physical cores; the first (cores % ranks) ranks take one more.
      // Like torch, too few cores for the ranks of a node is an error for every rank there, not only for
      // those whose slice would be empty.
      uint64_t cores = slot.unit_count;
      if (cores < count) {
        Writer w = ErrorStart(basis, rank, out);
        w.Str(slot.label);
        w.Str(" has ");
        w.Uint(cores);
        w.Str(cores == 1 ? " core for " : " cores for ");
        w.Uint(count);
        w.Str(" ranks");
        return false;
      }
      // count >= 1: this rank's own slot is in the group and RanksOnSlot counts the rank there.
      uint64_t per = cores / count, extra = cores % count;  // NOLINT(clang-analyzer-core.DivideZero)
      uint64_t start = index * per + (index < extra ? index : extra);
      uint64_t len = per + (index < extra ? 1 : 0);
      for (uint64_t u = start; u < start + len; ++u)
        OrWords(out->cpus, units + static_cast<uint64_t>(u) * basis.cpu_words, basis.cpu_words);
      break;
    }
    case PolicyKind::kNode:
    case PolicyKind::kSocket:
    case PolicyKind::kCpuMap:
    case PolicyKind::kNodeMap: OrWords(out->cpus, units, basis.cpu_words); break;
  }

  if (CountBits(out->cpus, basis.cpu_words) == 0) {
    Writer w = ErrorStart(basis, rank, out);
    w.Str(slot.label);
    w.Str(" has no allowed CPUs");
    return false;
  }
  return true;
}

void BasisToOffsets(PlanBasis* basis) {
  uintptr_t base = reinterpret_cast<uintptr_t>(basis);
  basis->slots = reinterpret_cast<const PlanSlot*>(reinterpret_cast<uintptr_t>(basis->slots) - base);
  basis->slot_nodes =
      reinterpret_cast<const uint64_t*>(reinterpret_cast<uintptr_t>(basis->slot_nodes) - base);
  basis->unit_cpus = reinterpret_cast<const uint64_t*>(reinterpret_cast<uintptr_t>(basis->unit_cpus) - base);
  if (basis->unit_domains != nullptr)  // offset 0 (the header) stands for none
    basis->unit_domains =
        reinterpret_cast<const uint32_t*>(reinterpret_cast<uintptr_t>(basis->unit_domains) - base);
  basis->cpu_sibling =
      reinterpret_cast<const uint32_t*>(reinterpret_cast<uintptr_t>(basis->cpu_sibling) - base);
  NicsToOffsets(basis);
}

bool BasisFromOffsets(void* block, size_t size) {
  if (block == nullptr || size < sizeof(PlanBasis)) return false;
  PlanBasis* b = static_cast<PlanBasis*>(block);
  if (b->total_bytes != size || b->cpu_words == 0 || b->node_words == 0) return false;
  // The enums and the bool are read as bytes first: loading a bool or enum that holds another value is
  // undefined behaviour (found by fuzz/plan_basis_fuzz.cc).
  const uint8_t* raw = static_cast<const uint8_t*>(block);
  if (raw[offsetof(PlanBasis, policy)] > static_cast<uint8_t>(PolicyKind::kAuto) ||
      raw[offsetof(PlanBasis, memory)] > static_cast<uint8_t>(MemoryKind::kInterleave) ||
      raw[offsetof(PlanBasis, spread_in_blocks)] > 1) {
    return false;
  }
  // Each array must lie inside the block after the header: offset + length <= size, computed without
  // overflow. After the header, because the loop below writes into the slots: a slot over the header could
  // change the counts it checks against (found by fuzz/plan_basis_fuzz.cc).
  auto inside = [size](uintptr_t off, uint64_t count, uint64_t each) {
    return off >= sizeof(PlanBasis) && off <= size && off % 8 == 0 &&
           (each == 0 || count <= (size - off) / each);
  };
  uintptr_t slots = reinterpret_cast<uintptr_t>(b->slots);
  uintptr_t nodes = reinterpret_cast<uintptr_t>(b->slot_nodes);
  uintptr_t units = reinterpret_cast<uintptr_t>(b->unit_cpus);
  uintptr_t siblings = reinterpret_cast<uintptr_t>(b->cpu_sibling);
  uint64_t cpu_bits = static_cast<uint64_t>(b->cpu_words) * 64;
  if (!inside(slots, b->slot_count, sizeof(PlanSlot)) ||
      !inside(nodes, static_cast<uint64_t>(b->slot_count) * b->node_words, sizeof(uint64_t)) ||
      !inside(units, static_cast<uint64_t>(b->unit_count) * b->cpu_words, sizeof(uint64_t)) ||
      !inside(siblings, cpu_bits, sizeof(uint32_t))) {
    return false;
  }
  if (!NicsFromOffsets(block, size)) return false;
  // auto reads three domain words per unit; other policies none.
  uintptr_t domains = reinterpret_cast<uintptr_t>(b->unit_domains);
  bool is_auto = raw[offsetof(PlanBasis, policy)] == static_cast<uint8_t>(PolicyKind::kAuto);
  if (is_auto ? !inside(domains, static_cast<uint64_t>(b->unit_count) * 3, sizeof(uint32_t)) : domains != 0)
    return false;
  for (uint32_t i = 0; i < b->slot_count; ++i) {
    PlanSlot& s = reinterpret_cast<PlanSlot*>(static_cast<char*>(block) + slots)[i];
    if (s.first_unit > b->unit_count || s.unit_count > b->unit_count - s.first_unit) return false;
    if (s.nic_set < -1 || (s.nic_set >= 0 && static_cast<uint32_t>(s.nic_set) >= b->nic_set_count))
      return false;
    Printable(s.label, sizeof(s.label));
    Printable(s.device, sizeof(s.device));
  }
  // The ring is checked after every write into the block (the texts above and in NicsFromOffsets): a write
  // into it after its check could undo the check.
  const uint32_t* ring = reinterpret_cast<const uint32_t*>(static_cast<char*>(block) + siblings);
  for (uint64_t c = 0; c < cpu_bits; ++c) {
    if (ring[c] >= cpu_bits) return false;  // a sibling outside the CPU sets
  }
  char* base = static_cast<char*>(block);
  b->slots = reinterpret_cast<const PlanSlot*>(base + slots);
  b->slot_nodes = reinterpret_cast<const uint64_t*>(base + nodes);
  b->unit_cpus = reinterpret_cast<const uint64_t*>(base + units);
  b->unit_domains = is_auto ? reinterpret_cast<const uint32_t*>(base + domains) : nullptr;
  b->cpu_sibling = reinterpret_cast<const uint32_t*>(base + siblings);
  Printable(b->policy_text, sizeof(b->policy_text));
  Printable(b->memory_text, sizeof(b->memory_text));
  return true;
}

}  // namespace numabind::core
