// A prepared basis survives the trip from the planner helper to the shim: turned into offsets, copied to
// another address, turned back into pointers, it plans exactly as the original; a malformed block is refused.

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "plan/plan_basis.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;     // NOLINT: test brevity
using namespace numabind::planner;  // NOLINT: test brevity
using namespace numabind::testing;  // NOLINT

namespace {

/// What the helper sends: b's block converted to offsets (in place, as the helper does), copied out; b is
/// turned back into pointers afterwards, which also checks that a good block is accepted where it lies.
std::vector<char> Sent(PlanBasis* b) {
  size_t size = b->total_bytes;
  BasisToOffsets(b);
  std::vector<char> copy(reinterpret_cast<const char*>(b), reinterpret_cast<const char*>(b) + size);
  cr_assert(BasisFromOffsets(b, size), "refused its own block");
  return copy;
}

}  // namespace

Test(basis_transfer, round_trip_plans_the_same) {
  Topology topo = Load("synthetic:pack:2 numa:2 l3:2 core:2 pu:2");
  for (const char* policy :
       {"node", "socket", "exclusive", "core-complex", "auto", "cpus:0-3|8*2", "nodes:1|0,2"}) {
    Basis b;
    PrepareOn(topo, policy, &b);
    cr_assert_not_null(b.basis, "%s: %s", policy, b.error.c_str());
    std::vector<char> block = Sent(b.basis);
    cr_assert(BasisFromOffsets(block.data(), block.size()), "%s: refused a good block", policy);
    const PlanBasis* moved = reinterpret_cast<const PlanBasis*>(block.data());
    cr_expect_neq(moved->slots, b.basis->slots);
    for (uint32_t n : {1u, 3u, 8u}) {
      std::vector<RankText> want = PlanAll(*b.basis, n), got = PlanAll(*moved, n);
      for (uint32_t r = 0; r < n; ++r) {
        cr_expect(want[r].cpus == got[r].cpus && want[r].nodes == got[r].nodes &&
                      want[r].error == got[r].error,
                  "%s rank %u of %u: %s vs %s", policy, r, n, want[r].cpus.c_str(), got[r].cpus.c_str());
      }
    }
  }
}

Test(basis_transfer, refuses_malformed_blocks) {
  Topology topo = Load("synthetic:pack:2 numa:1 core:2 pu:1");
  Basis b;
  PrepareOn(topo, "exclusive", &b);
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  std::vector<char> good = Sent(b.basis);

  std::vector<char> truncated(good.begin(), good.end() - 8);
  cr_expect_not(BasisFromOffsets(truncated.data(), truncated.size()), "accepted a truncated block");

  std::vector<char> bad_units = good;
  reinterpret_cast<PlanBasis*>(bad_units.data())->unit_count = 1u << 30;
  cr_expect_not(BasisFromOffsets(bad_units.data(), bad_units.size()), "accepted units past the end");

  std::vector<char> bad_offset = good;
  reinterpret_cast<PlanBasis*>(bad_offset.data())->slots =
      reinterpret_cast<const PlanSlot*>(good.size() + 64);
  cr_expect_not(BasisFromOffsets(bad_offset.data(), bad_offset.size()), "accepted slots outside the block");

  // Found by fuzz/plan_basis_fuzz.cc: a bool or enum byte with another value made reading it undefined.
  for (size_t field :
       {offsetof(PlanBasis, policy), offsetof(PlanBasis, memory), offsetof(PlanBasis, spread_in_blocks)}) {
    std::vector<char> bad_byte = good;
    bad_byte[field] = static_cast<char>(0x80);
    cr_expect_not(BasisFromOffsets(bad_byte.data(), bad_byte.size()), "accepted byte 0x80 at offset %zu",
                  field);
  }

  cr_expect_not(BasisFromOffsets(good.data(), 4), "accepted a block smaller than its header");

  // Found by fuzz/plan_basis_fuzz.cc: slots over the header, whose counts the check of each slot reads while
  // it terminates the slot's texts.
  for (uintptr_t at : {uintptr_t{0}, uintptr_t{8}, sizeof(PlanBasis) - 8}) {
    std::vector<char> over = good;
    reinterpret_cast<PlanBasis*>(over.data())->slots = reinterpret_cast<const PlanSlot*>(at);
    cr_expect_not(BasisFromOffsets(over.data(), over.size()), "accepted slots at offset %zu",
                  static_cast<size_t>(at));
  }

  // Found by fuzz/plan_basis_fuzz.cc: texts from the block reach one-line log messages; control characters
  // become '?' and every text ends inside its field.
  std::vector<char> lines = good;
  PlanBasis* raw = reinterpret_cast<PlanBasis*>(lines.data());
  memcpy(raw->policy_text, "excl\nusive", 11);
  memset(raw->memory_text, 'x', sizeof(raw->memory_text));
  PlanSlot* slot0 = reinterpret_cast<PlanSlot*>(lines.data() + reinterpret_cast<uintptr_t>(raw->slots));
  memcpy(slot0->label, "node\r0\x1b[2J", 11);
  cr_assert(BasisFromOffsets(lines.data(), lines.size()), "refused a block for its texts");
  cr_expect_str_eq(raw->policy_text, "excl?usive");
  cr_expect_eq(strlen(raw->memory_text), sizeof(raw->memory_text) - 1);
  cr_expect_str_eq(raw->slots[0].label, "node?0?[2J");
  cr_expect(BasisFromOffsets(good.data(), good.size()), "refused the good block");
}

// Issue 36: near's table of memory-only nodes travels with the basis; a table of the wrong size or outside
// the block is refused.
Test(basis_transfer, memory_tiers_travel_and_are_checked) {
  Topology topo = Load(TopologyFile("hwloc/fakeheteromemtiers.xml"));
  Basis b;
  PrepareOn(topo, "node", &b, "none", "near");
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  std::vector<char> good = Sent(b.basis);
  std::vector<char> moved = good;
  cr_assert(BasisFromOffsets(moved.data(), moved.size()));
  std::vector<RankText> want = PlanAll(*b.basis, 3),
                        got = PlanAll(*reinterpret_cast<PlanBasis*>(moved.data()), 3);
  for (uint32_t r = 0; r < 3; ++r) cr_expect_eq(got[r].nodes, want[r].nodes, "rank %u", r);
  cr_expect_eq(got[1].nodes, "1,4,6");

  std::vector<char> rows = good;
  reinterpret_cast<PlanBasis*>(rows.data())->tier_rows = 2;
  cr_expect_not(BasisFromOffsets(rows.data(), rows.size()), "accepted a table of the wrong size");
  std::vector<char> outside = good;
  reinterpret_cast<PlanBasis*>(outside.data())->tier_nodes =
      reinterpret_cast<const uint64_t*>(good.size() - 8);
  cr_expect_not(BasisFromOffsets(outside.data(), outside.size()), "accepted a table past the end");
  std::vector<char> stray = good;
  reinterpret_cast<PlanBasis*>(stray.data())->tier_rows = 0;
  cr_expect_not(BasisFromOffsets(stray.data(), stray.size()), "accepted a table with no rows");
}
