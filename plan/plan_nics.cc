// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The network rails of a rank, from a prepared PlanBasis (its NIC tables: plan_basis.h). Compiled into the
// shim, like plan_basis.cc: PickNics runs in a child between fork and exec, so it is plain arithmetic on the
// basis (no allocation, no libc, no statics with guards).

#include "plan/plan_basis.h"

namespace numabind::plan {

// Child-safe: pure arithmetic on the basis, returns a pointer into it (or a literal).
const char* PickNics(const PlanBasis& basis, int32_t set, uint64_t index, uint64_t count) {
  if (set < 0 || static_cast<uint32_t>(set) >= basis.nic_set_count || count == 0 || index >= count) return "";
  const PlanNicSet& s = basis.nic_sets[set];
  uint64_t k = s.rail_count;
  if (k == 0) return "";
  uint64_t start = index * k / count, end = (index + 1) * k / count;
  if (end <= start) end = start + 1;
  return basis.nic_text + basis.nic_ranges[s.first_range + start * k + (end - start) - 1];
}

void NicsToOffsets(PlanBasis* basis) {
  ToOffset(&basis->nic_sets, basis);
  ToOffset(&basis->nic_ranges, basis);
  ToOffset(&basis->nic_text, basis);
}

bool NicsFromOffsets(void* block, size_t size) {
  // The caller checked size >= sizeof(PlanBasis), total_bytes == size and the slots' bounds; b->slots is
  // still an offset.
  PlanBasis* b = static_cast<PlanBasis*>(block);
  auto inside = [size](uintptr_t off, uint64_t count, uint64_t each, uint64_t align) {
    return off >= sizeof(PlanBasis) && off <= size && off % align == 0 && count <= (size - off) / each;
  };
  uintptr_t sets = reinterpret_cast<uintptr_t>(b->nic_sets);
  uintptr_t ranges = reinterpret_cast<uintptr_t>(b->nic_ranges);
  uintptr_t text = reinterpret_cast<uintptr_t>(b->nic_text);
  if (!inside(sets, b->nic_set_count, sizeof(PlanNicSet), 4) ||
      !inside(ranges, b->nic_range_count, sizeof(uint32_t), 4) || !inside(text, b->nic_text_bytes, 1, 1) ||
      b->nic_text_bytes == 0) {
    return false;
  }
  // The checks below read the sets and ranges (and BasisFromOffsets the CPU sibling ring), and the text and
  // the slots' labels are written (control characters): a write into what was checked could undo a check,
  // so the written regions overlap none of them.
  uintptr_t slots = reinterpret_cast<uintptr_t>(b->slots);
  uint64_t slot_bytes = static_cast<uint64_t>(b->slot_count) * sizeof(PlanSlot);
  uint64_t set_bytes = static_cast<uint64_t>(b->nic_set_count) * sizeof(PlanNicSet);
  uint64_t range_bytes = static_cast<uint64_t>(b->nic_range_count) * sizeof(uint32_t);
  uintptr_t ring = reinterpret_cast<uintptr_t>(b->cpu_sibling);
  uint64_t ring_bytes = static_cast<uint64_t>(b->cpu_words) * 64 * sizeof(uint32_t);
  auto apart = [](uintptr_t a, uint64_t an, uintptr_t c, uint64_t cn) {
    return an == 0 || cn == 0 || a + an <= c || c + cn <= a;
  };
  if (!apart(text, b->nic_text_bytes, slots, slot_bytes) ||
      !apart(text, b->nic_text_bytes, sets, set_bytes) ||
      !apart(text, b->nic_text_bytes, ranges, range_bytes) ||
      !apart(text, b->nic_text_bytes, ring, ring_bytes) || !apart(slots, slot_bytes, sets, set_bytes) ||
      !apart(slots, slot_bytes, ranges, range_bytes)) {
    return false;
  }
  char* base = static_cast<char*>(block);
  const PlanNicSet* s = reinterpret_cast<const PlanNicSet*>(base + sets);
  const uint32_t* r = reinterpret_cast<const uint32_t*>(base + ranges);
  for (uint32_t i = 0; i < b->nic_set_count; ++i) {
    uint64_t k = s[i].rail_count;
    if (k == 0 || k > kMaxNicRails || s[i].first_range > b->nic_range_count ||
        k * k > b->nic_range_count - s[i].first_range) {
      return false;
    }
  }
  for (uint32_t i = 0; i < b->nic_range_count; ++i)
    if (r[i] >= b->nic_text_bytes) return false;
  // Every offset then starts a NUL-terminated string inside the text; control characters (a newline from
  // a device name would start a log line of its own) become '?'.
  char* t = base + text;
  if (t[b->nic_text_bytes - 1] != '\0') return false;
  for (uint64_t i = 0; i < b->nic_text_bytes; ++i)
    if (t[i] != '\0' && (static_cast<unsigned char>(t[i]) < 0x20 || t[i] == 0x7f)) t[i] = '?';
  b->nic_sets = s;
  b->nic_ranges = r;
  b->nic_text = t;
  return true;
}

}  // namespace numabind::plan
