// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The plan basis the planner helper sends back (plan/basis_frame.h, plan/basis_offsets.cc): untrusted bytes
// from another process. The input is the whole frame as the shim reads it from the pipe (tag, length,
// payload); the target checks it as the shim does (shim/launcher/prepare.cc) and, when BasisFromOffsets
// accepts the block, places ranks with ComputeRankPlan exactly as the child side does (CPU and node storage
// of the basis's own width, refused above the shim's limits). Beyond not crashing (ASan and UBSan watch every
// read of the block): an accepted block's arrays lie inside it, a placed rank gets a non-empty CPU set drawn
// from its slot's units and its slot's nodes, labels and device ids are terminated inside their slot, its
// NICs are "" or a string terminated inside the NIC text, and a refused rank gets a one-line reason.

#include <string.h>

#include <vector>

#include "config/grammar.h"
#include "config/limits.h"
#include "fuzz/fuzz_util.h"
#include "plan/basis_frame.h"
#include "plan/plan_basis.h"
#include "plan/rank_env.h"

namespace {

using numabind::plan::PlanBasis;
using numabind::plan::PlanSlot;
using numabind::plan::RankPlan;

// The shim's storage for one rank's sets: 128 CPU words, 64 node words.
using numabind::config::kMaxCpuWords;
using numabind::config::kMaxNodeWords;

bool Inside(const void* p, size_t n, const void* block, size_t size) {
  const char* b = static_cast<const char*>(block);
  const char* q = static_cast<const char*>(p);
  return q >= b && q <= b + size && n <= static_cast<size_t>(b + size - q);
}

void Place(const PlanBasis& b, const void* block, size_t size, uint32_t rank, uint32_t nranks) {
  std::vector<uint64_t> cpus(b.cpu_words), nodes(b.node_words);
  RankPlan plan;
  plan.cpus = cpus.data();
  plan.nodes = nodes.data();
  bool ok = numabind::plan::ComputeRankPlan(b, rank, nranks, &plan);
  FUZZ_CHECK(strnlen(plan.error, sizeof(plan.error)) < sizeof(plan.error), "error not terminated");
  if (!ok) {
    FUZZ_CHECK(plan.error[0] != '\0' && strchr(plan.error, '\n') == nullptr, "rank %u of %u: reason \"%s\"",
               rank, nranks, plan.error);
    return;
  }
  FUZZ_CHECK(plan.error[0] == '\0', "rank %u placed with error \"%s\"", rank, plan.error);
  FUZZ_CHECK(numabind::plan::CountBits(cpus.data(), b.cpu_words) > 0, "rank %u of %u: no CPUs", rank, nranks);
  // Which slot: the one whose label the plan points at.
  const PlanSlot* slot = nullptr;
  for (uint32_t s = 0; s < b.slot_count && slot == nullptr; ++s)
    if (plan.label == b.slots[s].label) slot = &b.slots[s];
  FUZZ_CHECK(slot != nullptr && plan.device == slot->device, "rank %u: label or device outside the slots",
             rank);
  FUZZ_CHECK(Inside(plan.label, strlen(plan.label) + 1, slot->label, sizeof(slot->label)) &&
                 Inside(plan.device, strlen(plan.device) + 1, slot->device, sizeof(slot->device)),
             "rank %u: label or device not terminated in its slot", rank);
  // NICs: "" or a string of the basis's NIC text, terminated inside it.
  FUZZ_CHECK(plan.nics != nullptr, "rank %u: nics is null", rank);
  if (plan.nics[0] != '\0') {
    FUZZ_CHECK(slot->nic_set >= 0 && Inside(plan.nics, strlen(plan.nics) + 1, b.nic_text, b.nic_text_bytes),
               "rank %u: nics outside the NIC text", rank);
  }
  uint32_t s = static_cast<uint32_t>(slot - b.slots);
  // The slots the rank draws on: its own, or under auto with fewer ranks than devices its block of them
  // (plan.device_slot, plan.device_count: plan/plan_auto.h), which starts at its slot.
  uint32_t first = s, last = s + 1;
  if (plan.device_count > 1) {
    FUZZ_CHECK(plan.device_slot == s && s + plan.device_count <= b.slot_count, "rank %u: device block", rank);
    last = s + plan.device_count;
  }
  // auto gives the nodes of the rank's CPUs, within its slots' (plan/plan_auto.h); the others the slot's.
  bool is_auto = b.policy == numabind::config::PolicyKind::kAuto;
  for (uint32_t w = 0; w < b.node_words; ++w) {
    uint64_t slots_w = 0;
    for (uint32_t t = first; t < last; ++t)
      slots_w |= b.slot_nodes[static_cast<uint64_t>(t) * b.node_words + w];
    FUZZ_CHECK(is_auto ? (nodes[w] & ~slots_w) == 0 : nodes[w] == slots_w, "rank %u: nodes", rank);
  }
  std::vector<uint64_t> units(b.cpu_words, 0);
  for (uint32_t t = first; t < last; ++t)
    for (uint32_t u = b.slots[t].first_unit; u < b.slots[t].first_unit + b.slots[t].unit_count; ++u)
      for (uint32_t w = 0; w < b.cpu_words; ++w)
        units[w] |= b.unit_cpus[static_cast<uint64_t>(u) * b.cpu_words + w];
  for (uint32_t w = 0; w < b.cpu_words; ++w)
    FUZZ_CHECK((cpus[w] & ~units[w]) == 0, "rank %u of %u: CPUs outside its slots' units", rank, nranks);
  // NUMABIND_EXPORT's entries from this plan (the block's sibling rings): sized, then built whole into a
  // buffer of that size (at most kRankEnvMax), each entry inside it and terminated.
  numabind::plan::RankEnv env;
  uint8_t all = numabind::config::kExportOmp | numabind::config::kExportGpu | numabind::config::kExportNic;
  for (uint8_t exports : {all, static_cast<uint8_t>(all | numabind::config::kExportOmpCpus)}) {
    size_t need = numabind::plan::BuildRankEnv(b, plan, exports, nullptr, nullptr, 0, &env);
    size_t cap = need < numabind::plan::kRankEnvMax ? need : numabind::plan::kRankEnvMax;
    std::vector<char> buf(cap + 1, 'x');
    FUZZ_CHECK(numabind::plan::BuildRankEnv(b, plan, exports, nullptr, buf.data(), cap, &env) == need,
               "rank %u: export size changed", rank);
    FUZZ_CHECK(buf[cap] == 'x' && env.count <= numabind::plan::kRankEnvEntries, "rank %u: exports overflow",
               rank);
    for (int i = 0; i < env.count; ++i)
      FUZZ_CHECK(Inside(env.entries[i], strlen(env.entries[i]) + 1, buf.data(), cap), "rank %u: entry", rank);
  }
  (void)block, (void)size;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  numabind::plan::BasisFrameHeader header;
  if (size < sizeof(header)) return 0;
  memcpy(&header, data, sizeof(header));
  size_t length = size - sizeof(header);
  if (memcmp(header.tag, numabind::plan::kBasisTag, sizeof(header.tag)) != 0 || header.length != length)
    return 0;
  // The shim reads into page-aligned memory; malloc's 16-byte alignment is enough for the block, and a copy
  // of exactly `length` bytes lets ASan see any read past it.
  void* block = malloc(length ? length : 1);
  if (length > 0) memcpy(block, data + sizeof(header), length);
  if (numabind::plan::BasisFromOffsets(block, length)) {
    const PlanBasis& b = *static_cast<const PlanBasis*>(block);
    FUZZ_CHECK(b.total_bytes == length, "total_bytes %llu", static_cast<unsigned long long>(b.total_bytes));
    FUZZ_CHECK(Inside(b.slots, sizeof(PlanSlot) * b.slot_count, block, length) &&
                   Inside(b.slot_nodes, 8ull * b.slot_count * b.node_words, block, length) &&
                   Inside(b.unit_cpus, 8ull * b.unit_count * b.cpu_words, block, length) &&
                   Inside(b.nic_sets, sizeof(numabind::plan::PlanNicSet) * b.nic_set_count, block, length) &&
                   Inside(b.nic_ranges, 4ull * b.nic_range_count, block, length) &&
                   Inside(b.nic_text, b.nic_text_bytes, block, length),
               "arrays outside the block");
    FUZZ_CHECK(strnlen(b.policy_text, sizeof(b.policy_text)) < sizeof(b.policy_text), "policy_text");
    FUZZ_CHECK(strnlen(b.memory_text, sizeof(b.memory_text)) < sizeof(b.memory_text), "memory_text");
    numabind::config::MemoryName(b.memory);
    if (b.cpu_words <= kMaxCpuWords && b.node_words <= kMaxNodeWords) {
      // Ranks below, at and beyond the slots, with the count unknown, smaller, equal and larger; the
      // largest rank numabind accepts (1 << 20, config's NUMABIND_NRANKS cap) minus one.
      static const uint32_t kRanks[] = {0, 1, 2, 3, 7, 64, (1u << 20) - 1};
      static const uint32_t kCounts[] = {0, 1, 2, 4, 9, 1u << 20};
      for (uint32_t r : kRanks)
        for (uint32_t n : kCounts) Place(b, block, length, r, n);
    }
  }
  free(block);
  return 0;
}
