// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A basis block between processes: its pointers turned into offsets by the helper that prepared it, and
// back, after checking that everything lies inside the block, in the library that received it. Compiled
// into the shim: plain arithmetic on the block, no libc calls.

#include <stddef.h>

#include "plan/plan_basis.h"

namespace numabind::plan {
namespace {

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

void BasisToOffsets(PlanBasis* basis) {
  ToOffset(&basis->slots, basis);
  ToOffset(&basis->slot_nodes, basis);
  ToOffset(&basis->unit_cpus, basis);
  if (basis->unit_domains != nullptr) ToOffset(&basis->unit_domains, basis);  // offset 0 (the header): none
  ToOffset(&basis->cpu_sibling, basis);
  NicsToOffsets(basis);
  TiersToOffsets(basis);
}

bool BasisFromOffsets(void* block, size_t size) {
  if (block == nullptr || size < sizeof(PlanBasis)) return false;
  PlanBasis* b = static_cast<PlanBasis*>(block);
  if (b->total_bytes != size || b->cpu_words == 0 || b->node_words == 0) return false;
  // The enums and the bool are read as bytes first: loading a bool or enum that holds another value is
  // undefined behaviour (found by fuzz/plan_basis_fuzz.cc).
  const uint8_t* raw = static_cast<const uint8_t*>(block);
  if (raw[offsetof(PlanBasis, policy)] > static_cast<uint8_t>(config::PolicyKind::kAuto) ||
      raw[offsetof(PlanBasis, memory)] > static_cast<uint8_t>(config::MemoryKind::kWeighted) ||
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
  if (!NicsFromOffsets(block, size) || !TiersFromOffsets(block, size)) return false;
  // auto reads three domain words per unit; other policies none.
  uintptr_t domains = reinterpret_cast<uintptr_t>(b->unit_domains);
  bool is_auto = raw[offsetof(PlanBasis, policy)] == static_cast<uint8_t>(config::PolicyKind::kAuto);
  if (is_auto ? !inside(domains, static_cast<uint64_t>(b->unit_count) * 3, sizeof(uint32_t)) : domains != 0)
    return false;
  for (uint32_t i = 0; i < b->slot_count; ++i) {
    PlanSlot& s = reinterpret_cast<PlanSlot*>(static_cast<char*>(block) + slots)[i];
    if (s.first_unit > b->unit_count || s.unit_count > b->unit_count - s.first_unit) return false;
    if (s.fast_units > s.unit_count) return false;
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

}  // namespace numabind::plan
