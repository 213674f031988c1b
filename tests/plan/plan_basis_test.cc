// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// ComputeRankPlan and its helpers on bases built by hand, independent of topology loading: which slot a
// rank lands on (blocks or round robin), how a group's units are shared, the errors, and the formatting
// the shim uses between fork and exec.

#include <criterion/criterion.h>
#include <string.h>

#include <string>
#include <vector>

#include "plan/plan_basis.h"
#include "tests/plan/plan_test_util.h"

using namespace numabind::plan;
using numabind::testing::PlanRank;
using numabind::testing::RankText;

Test(format_bit_list, lists) {
  uint64_t w[3] = {0, 0, 0};
  char buf[64];
  cr_assert_eq(FormatBitList(w, 3, buf, sizeof buf), 0u);
  STR_EQ(buf, "");
  w[0] = 0xf | (1ull << 8) | (3ull << 10);
  cr_assert_eq(FormatBitList(w, 3, buf, sizeof buf), strlen("0-3,8,10-11"));
  STR_EQ(buf, "0-3,8,10-11");
  w[0] = 1ull << 63;
  w[1] = 1;
  w[2] = 1ull << 63;
  FormatBitList(w, 3, buf, sizeof buf);
  STR_EQ(buf, "63-64,191");
  w[0] = w[1] = w[2] = ~0ull;
  FormatBitList(w, 3, buf, sizeof buf);
  STR_EQ(buf, "0-191");
}

Test(format_bit_list, truncates_like_snprintf) {
  uint64_t w[1] = {0x5555};  // 0,2,4,...,14
  char buf[8];
  memset(buf, 'x', sizeof buf);
  size_t need = FormatBitList(w, 1, buf, sizeof buf);
  cr_assert_eq(need, strlen("0,2,4,6,8,10,12,14"));
  STR_EQ(buf, "0,2,4,6");  // 7 characters and the NUL
  cr_assert_eq(FormatBitList(w, 1, nullptr, 0), need);
  char one[1] = {'x'};
  FormatBitList(w, 1, one, 1);
  cr_assert_eq(one[0], '\0');
}

Test(count_bits, counts) {
  uint64_t w[3] = {0, ~0ull, 0x8000000000000001ull};
  cr_assert_eq(CountBits(w, 3), 66u);
  cr_assert_eq(CountBits(w, 0), 0u);
  cr_assert_eq(CountBits(w, 1), 0u);
}

Test(memory_name, names) {
  STR_EQ(MemoryName(MemoryKind::kLocal), "local");
  STR_EQ(MemoryName(MemoryKind::kPreferred), "preferred");
  STR_EQ(MemoryName(MemoryKind::kBind), "bind");
  STR_EQ(MemoryName(MemoryKind::kInterleave), "interleave");
}

namespace {

// A basis built by hand: 4 slots; slots 0,1 share group 0 with 5 units (one CPU each: 0..4); slot 2 is
// group 1 with units {8},{9}; slot 3 is group 2 with no units.
struct HandBasis {
  PlanBasis basis{};
  PlanSlot slots[4]{};
  uint64_t nodes[4] = {1, 1, 2, 4};
  uint64_t units[7] = {1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 8, 1 << 9};

  explicit HandBasis(PolicyKind policy, bool blocks) {
    basis.policy = policy;
    basis.memory = MemoryKind::kBind;
    basis.spread_in_blocks = blocks;
    basis.cpu_words = 1;
    basis.node_words = 1;
    basis.slot_count = 4;
    basis.slots = slots;
    basis.slot_nodes = nodes;
    basis.unit_count = 7;
    basis.unit_cpus = units;
    strcpy(basis.policy_text, policy == PolicyKind::kExclusive ? "exclusive" : "core-complex");
    strcpy(basis.memory_text, "bind");
    Slot(0, 0, 0, 5, "node 0", "0000:01:00.0");
    Slot(1, 0, 0, 5, "node 0", "0000:02:00.0");
    Slot(2, 1, 5, 2, "node 1", "0000:03:00.0");
    Slot(3, 2, 7, 0, "node 2", "0000:04:00.0");
  }
  void Slot(int i, int group, uint32_t first, uint32_t count, const char* label, const char* device) {
    slots[i].group = group;
    slots[i].first_unit = first;
    slots[i].unit_count = count;
    strcpy(slots[i].label, label);
    strcpy(slots[i].device, device);
  }
};

}  // namespace

Test(compute_rank_plan, round_robin_over_slots_and_shared_groups) {
  HandBasis h(PolicyKind::kExclusive, false);
  // 3 ranks: rank 0 -> slot 0, rank 1 -> slot 1 (both group 0: 5 cores for 2 ranks = 3 + 2), rank 2 ->
  // slot 2 (group 1 alone: both its units).
  RankText r0 = PlanRank(h.basis, 0, 3), r1 = PlanRank(h.basis, 1, 3), r2 = PlanRank(h.basis, 2, 3);
  cr_assert(r0.ok && r1.ok && r2.ok);
  STR_EQ(r0.cpus, "0-2");
  STR_EQ(r1.cpus, "3-4");
  STR_EQ(r2.cpus, "8-9");
  STR_EQ(r0.nodes, "0");
  STR_EQ(r2.nodes, "1");
  STR_EQ(r0.device, "0000:01:00.0");
  STR_EQ(r1.device, "0000:02:00.0");
  STR_EQ(r2.label, "node 1");
  cr_assert_eq(r0.memory, MemoryKind::kBind);
}

Test(compute_rank_plan, more_ranks_than_slots_wrap) {
  HandBasis h(PolicyKind::kExclusive, false);
  // 6 ranks: slots 0,1,2,3,0,1. Group 0 holds ranks 0,1,4,5 (5 cores: 2,1,1,1), group 1 rank 2,
  // group 2 rank 3 (no units: an error).
  std::vector<RankText> all = numabind::testing::PlanAll(h.basis, 6);
  STR_EQ(all[0].cpus, "0-1");
  STR_EQ(all[1].cpus, "2");
  STR_EQ(all[4].cpus, "3");
  STR_EQ(all[5].cpus, "4");
  STR_EQ(all[4].device, "0000:01:00.0");
  STR_EQ(all[2].cpus, "8-9");
  cr_assert(!all[3].ok);
  STR_EQ(all[3].error, "rank 3: policy exclusive: node 2 has no allowed CPUs");
  STR_EQ(all[3].cpus, "");
}

Test(compute_rank_plan, too_few_cores_fails_every_rank_of_the_group) {
  HandBasis h(PolicyKind::kExclusive, false);
  // 12 ranks: group 0 (slots 0 and 1) gets ranks 0,1,4,5,8,9 for 5 cores.
  RankText r0 = PlanRank(h.basis, 0, 12), r9 = PlanRank(h.basis, 9, 12), r2 = PlanRank(h.basis, 2, 12);
  cr_assert(!r0.ok && !r9.ok);
  STR_EQ(r0.error,
         "rank 0: policy exclusive: node 0 has 5 cores for 6 ranks: use node or auto, or at most 5 ranks");
  STR_EQ(r9.error,
         "rank 9: policy exclusive: node 0 has 5 cores for 6 ranks: use node or auto, or at most 5 ranks");
  // Group 1 has ranks 2, 6, 10 for 2 cores.
  STR_EQ(r2.error,
         "rank 2: policy exclusive: node 1 has 2 cores for 3 ranks: use node or auto, or at most 2 ranks");
}

Test(compute_rank_plan, past_the_stated_count_names_that_count) {
  HandBasis h(PolicyKind::kExclusive, false);
  // Rank 13 of a stated 4 is planned as the last of 14 (8 ranks for group 0's 5 cores): the error names 4.
  RankText t = PlanRank(h.basis, 13, 4);
  cr_assert(!t.ok);
  STR_EQ(t.error, "rank 13: policy exclusive: past the rank count, 4 (ranks 0 to 3), and node 0 has 5 cores");
}

Test(compute_rank_plan, core_complex_wraps) {
  HandBasis h(PolicyKind::kCoreComplex, false);
  // 8 ranks: group 0 gets ranks 0,1,4,5 -> units 0,1,2,3; group 1 ranks 2,6 -> units 8, 9.
  std::vector<RankText> all = numabind::testing::PlanAll(h.basis, 8);
  STR_EQ(all[0].cpus, "0");
  STR_EQ(all[1].cpus, "1");
  STR_EQ(all[4].cpus, "2");
  STR_EQ(all[5].cpus, "3");
  STR_EQ(all[2].cpus, "8");
  STR_EQ(all[6].cpus, "9");
  // 16 ranks: group 1 gets ranks 2,6,10,14 -> 8,9,8,9.
  STR_EQ(PlanRank(h.basis, 10, 16).cpus, "8");
  STR_EQ(PlanRank(h.basis, 14, 16).cpus, "9");
  STR_EQ(PlanRank(h.basis, 3, 16).error, "rank 3: policy core-complex: node 2 has no allowed CPUs");
}

Test(compute_rank_plan, blocks) {
  HandBasis h(PolicyKind::kCoreComplex, true);
  h.Slot(3, 2, 6, 1, "node 2", "");  // give slot 3 a unit so every rank places
  // Rank r of n on slot floor(r * 4 / n).
  struct {
    uint32_t n, rank, slot;
  } cases[] = {{4, 0, 0}, {4, 3, 3}, {8, 1, 0}, {8, 2, 1}, {8, 7, 3}, {6, 1, 0}, {6, 2, 1},
               {6, 3, 2}, {6, 4, 2}, {6, 5, 3}, {2, 0, 0}, {2, 1, 2}, {1, 0, 0}};
  const char* devices[] = {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0", ""};
  for (auto& c : cases) {
    RankText t = PlanRank(h.basis, c.rank, c.n);
    cr_assert(t.ok, "rank %u of %u: %s", c.rank, c.n, t.error.c_str());
    cr_assert_str_eq(t.device.c_str(), devices[c.slot], "rank %u of %u", c.rank, c.n);
  }
}

Test(compute_rank_plan, unknown_rank_count) {
  HandBasis h(PolicyKind::kNode, true);
  h.Slot(3, 2, 6, 1, "node 2", "");
  // Under node, nranks 0 counts as slot_count (4) ranks: ranks 0..3 take one slot each.
  STR_EQ(PlanRank(h.basis, 2, 0).device, "0000:03:00.0");
  STR_EQ(PlanRank(h.basis, 3, 0).device, "");
  // Rank 6 of unknown is rank 2 of 4, with the same CPUs: not rank 6 of 7, whose set would partly overlap
  // another's.
  RankText six = PlanRank(h.basis, 6, 0), two = PlanRank(h.basis, 2, 4);
  cr_assert(six.ok && two.ok);
  STR_EQ(six.cpus, two.cpus);
  STR_EQ(six.device, "0000:03:00.0");
  // A rank at or beyond a stated count counts as one of rank + 1 ranks.
  RankText t = PlanRank(h.basis, 9, 4);
  cr_assert(t.ok);
  STR_EQ(t.label, "node 2");
}

Test(compute_rank_plan, unknown_rank_count_one_rank_per_unit) {
  // Under exclusive and core-complex the places are the units (8: 5, 2 and 1), as many as give no group
  // more ranks than units: 8 ranks in blocks would put 2 on slot 3's one unit, so 7 (slots 0,0,1,1,2,2,3).
  for (PolicyKind policy : {PolicyKind::kExclusive, PolicyKind::kCoreComplex}) {
    HandBasis h(policy, true);
    h.Slot(3, 2, 6, 1, "node 2", "");
    std::vector<RankText> seven = numabind::testing::PlanAll(h.basis, 7);
    for (uint32_t r = 0; r < 21; ++r) {
      RankText t = PlanRank(h.basis, r, 0);
      cr_assert(t.ok, "rank %u: %s", r, t.error.c_str());
      cr_expect_str_eq(t.cpus.c_str(), seven[r % 7].cpus.c_str(), "rank %u of unknown", r);
      cr_expect_str_eq(t.device.c_str(), seven[r % 7].device.c_str(), "rank %u of unknown", r);
    }
  }
  // Group 0's 5 cores to ranks 0 to 3 (2, 1, 1, 1), group 1's 2 to ranks 4 and 5.
  HandBasis h(PolicyKind::kExclusive, true);
  h.Slot(3, 2, 6, 1, "node 2", "");
  STR_EQ(PlanRank(h.basis, 0, 0).cpus, "0-1");
  STR_EQ(PlanRank(h.basis, 3, 0).cpus, "4");
  STR_EQ(PlanRank(h.basis, 4, 0).cpus, "8");
  STR_EQ(PlanRank(h.basis, 5, 0).cpus, "9");
  // Devices, one group per node: group 0 (slots 0 and 1) takes ranks 0,1,4,5 of 7 on its 5 cores, group 1
  // ranks 2 and 6 one core each; group 2 has none, whatever the count.
  HandBasis d(PolicyKind::kExclusive, false);
  const char* cpus[] = {"0-1", "2", "8", "", "3", "4", "9"};
  for (uint32_t r = 0; r < 7; ++r) STR_EQ(PlanRank(d.basis, r + 7, 0).cpus, cpus[r]);
  STR_EQ(PlanRank(d.basis, 3, 0).error, "rank 3: policy exclusive: node 2 has no allowed CPUs");
}

Test(compute_rank_plan, clears_the_callers_storage) {
  HandBasis h(PolicyKind::kCoreComplex, false);
  uint64_t cpus[1] = {~0ull}, nodes[1] = {~0ull};
  RankPlan plan;
  plan.cpus = cpus;
  plan.nodes = nodes;
  cr_assert(ComputeRankPlan(h.basis, 2, 3, &plan));
  cr_assert_eq(cpus[0], 1ull << 8);
  cr_assert_eq(nodes[0], 2u);
  STR_EQ(plan.error, "");
}

Test(compute_rank_plan, no_slots) {
  HandBasis h(PolicyKind::kCoreComplex, false);
  h.basis.slot_count = 0;
  RankText t = PlanRank(h.basis, 0, 1);
  cr_assert(!t.ok);
  cr_assert(strstr(t.error.c_str(), "rank 0: policy core-complex:") == t.error.c_str());
}

Test(compute_rank_plan, huge_rank_counts_in_slots_not_ranks) {
  HandBasis h(PolicyKind::kExclusive, false);
  // A huge rank of an unknown count: counted in O(slots). Slots 0 and 1 (group 0) hold 1000000001 and
  // 1000000000 of the 4000000001 ranks.
  RankText t = PlanRank(h.basis, 4000000000u, 4000000001u);
  cr_assert(!t.ok);
  STR_EQ(t.error,
         "rank 4000000000: policy exclusive: node 0 has 5 cores for 2000000001 ranks: use node or auto, or "
         "at most 5 ranks");
}

Test(compute_rank_plan, long_error_is_truncated) {
  HandBasis h(PolicyKind::kExclusive, false);
  memset(h.basis.policy_text, 'p', sizeof h.basis.policy_text - 1);
  h.basis.policy_text[sizeof h.basis.policy_text - 1] = '\0';
  memset(h.slots[0].label, 'l', sizeof h.slots[0].label - 1);
  h.slots[0].label[sizeof h.slots[0].label - 1] = '\0';
  RankText t = PlanRank(h.basis, 4000000000u, 4000000001u);  // 169 characters of message, cut to 159
  cr_assert(!t.ok);
  cr_assert_eq(t.error.size(), sizeof(RankPlan{}.error) - 1);
  cr_assert(t.error.find("rank 4000000000: policy ppp") == 0, "%s", t.error.c_str());
}

Test(compute_rank_plan, largest_rank_does_not_wrap) {
  // rank + 1 wrapped to 0 and was divided by (SIGFPE in every launcher given LOCAL_RANK=4294967295).
  for (bool blocks : {false, true}) {
    HandBasis h(PolicyKind::kNode, blocks);
    RankText r = PlanRank(h.basis, 4294967295u, 0);
    RankText s = PlanRank(h.basis, 4294967295u, 4294967295u);
    // Both the last slot (3), whether wrapping (4294967295 mod 4) or in blocks (clamped).
    for (const RankText& t : {r, s}) {
      cr_expect(!t.ok);
      STR_EQ(t.error, "rank 4294967295: policy core-complex: node 2 has no allowed CPUs");
    }
  }
}
