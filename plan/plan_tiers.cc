// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Memory tiers in a rank's plan (plan_basis.h): NUMABIND_MEMORY=near and weighted add, to each of the
// rank's nodes, the memory-only nodes of its socket that the planner found nearest it (the rows of
// PlanBasis::tier_nodes). Compiled into the shim: plain arithmetic on the basis.

#include "plan/plan_basis.h"

namespace numabind::plan {

namespace {

/// Child-safe: whether the basis asks for tiers and carries its table.
bool WantsTiers(const PlanBasis& basis) {
  return (basis.memory == config::MemoryKind::kNear || basis.memory == config::MemoryKind::kWeighted) &&
         basis.tier_rows == static_cast<uint64_t>(basis.node_words) * 64 + 1 && basis.tier_nodes != nullptr;
}

/// Child-safe: the last row, every memory-only node.
const uint64_t* MemoryOnlyRow(const PlanBasis& basis) {
  return basis.tier_nodes + static_cast<uint64_t>(basis.tier_rows - 1) * basis.node_words;
}

}  // namespace

// Child-safe: reads the basis, writes only out->nodes. A node a row adds is memory-only, whose own row is
// empty, so adding while walking the set adds nothing twice.
void AddNearTiers(const PlanBasis& basis, RankPlan* out) {
  if (!WantsTiers(basis)) return;
  for (uint32_t w = 0; w < basis.node_words; ++w) {
    uint64_t own = out->nodes[w];
    for (uint32_t bit = 0; bit < 64; ++bit) {
      if (((own >> bit) & 1) == 0) continue;
      const uint64_t* row = basis.tier_nodes + (static_cast<uint64_t>(w) * 64 + bit) * basis.node_words;
      for (uint32_t v = 0; v < basis.node_words; ++v) out->nodes[v] |= row[v];
    }
  }
}

// Child-safe: reads the basis.
int64_t FirstOwnNode(const PlanBasis& basis, const uint64_t* nodes) {
  const uint64_t* memory_only = WantsTiers(basis) ? MemoryOnlyRow(basis) : nullptr;
  for (uint32_t w = 0; w < basis.node_words; ++w) {
    uint64_t own = nodes[w] & ~(memory_only != nullptr ? memory_only[w] : 0);
    if (own != 0) return static_cast<int64_t>(w) * 64 + __builtin_ctzll(own);
  }
  return -1;
}

// Child-safe: reads the basis.
bool HasTierNodes(const PlanBasis& basis) {
  if (!WantsTiers(basis)) return false;
  const uint64_t* memory_only = MemoryOnlyRow(basis);
  for (uint32_t w = 0; w < basis.node_words; ++w)
    if (memory_only[w] != 0) return true;
  return false;
}

void TiersToOffsets(PlanBasis* basis) {
  if (basis->tier_nodes != nullptr) ToOffset(&basis->tier_nodes, basis);  // offset 0 (the header): none
}

bool TiersFromOffsets(void* block, size_t size) {
  PlanBasis* b = static_cast<PlanBasis*>(block);
  uintptr_t off = reinterpret_cast<uintptr_t>(b->tier_nodes);
  if (b->tier_rows == 0) {
    if (off != 0) return false;
    b->tier_nodes = nullptr;
    return true;
  }
  // Exactly the rows WantsTiers reads, after the header, 8-byte aligned, inside the block.
  if (b->tier_rows != static_cast<uint64_t>(b->node_words) * 64 + 1 || off < sizeof(PlanBasis) ||
      off % 8 != 0 || off > size)
    return false;
  uint64_t words = static_cast<uint64_t>(b->tier_rows) * b->node_words;
  if (words > (size - off) / sizeof(uint64_t)) return false;
  b->tier_nodes = reinterpret_cast<const uint64_t*>(static_cast<char*>(block) + off);
  return true;
}

}  // namespace numabind::plan
