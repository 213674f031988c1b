// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Helpers for the plan tests (and the planner's, tests/planner/planner_test_util.h): a rank-by-rank view of
// a plan as strings, so that expectations read as the list syntax a person writes by hand.

#ifndef NUMABIND_TESTS_PLAN_PLAN_TEST_UTIL_H_
#define NUMABIND_TESTS_PLAN_PLAN_TEST_UTIL_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "plan/plan_basis.h"

/// Compares two strings after copying them (Criterion's cr_assert_str_eq keeps the pointers of its
/// arguments past the end of the full expression, so it cannot take c_str() of a temporary).
#define STR_EQ(actual, expected)                                                                            \
  do {                                                                                                      \
    std::string str_eq_a_ = (actual);                                                                       \
    std::string str_eq_e_ = (expected);                                                                     \
    cr_assert(str_eq_a_ == str_eq_e_, "%s\n  actual:   `%s`\n  expected: `%s`", #actual, str_eq_a_.c_str(), \
              str_eq_e_.c_str());                                                                           \
  } while (0)

namespace numabind::testing {
using namespace numabind::plan;  // NOLINT: test brevity

/// One rank's plan as text.
struct RankText {
  bool ok = false;
  std::string cpus, nodes, device, label, error;
  MemoryKind memory = MemoryKind::kLocal;
};

inline std::string Words(const uint64_t* words, uint32_t n) {
  std::vector<char> buf(FormatBitList(words, n, nullptr, 0) + 1);
  FormatBitList(words, n, buf.data(), buf.size());
  return buf.data();
}

inline RankText PlanRank(const PlanBasis& basis, uint32_t rank, uint32_t nranks) {
  std::vector<uint64_t> cpus(basis.cpu_words + 1, ~uint64_t{0}), nodes(basis.node_words + 1, ~uint64_t{0});
  RankPlan plan;
  plan.cpus = cpus.data();
  plan.nodes = nodes.data();
  RankText t;
  t.ok = ComputeRankPlan(basis, rank, nranks, &plan);
  t.cpus = Words(cpus.data(), basis.cpu_words);
  t.nodes = Words(nodes.data(), basis.node_words);
  t.device = plan.device ? plan.device : "(null)";
  t.label = plan.label ? plan.label : "(null)";
  t.error = plan.error;
  t.memory = plan.memory;
  return t;
}

/// Every rank of nranks (nranks > 0).
inline std::vector<RankText> PlanAll(const PlanBasis& basis, uint32_t nranks) {
  std::vector<RankText> out;
  for (uint32_t r = 0; r < nranks; ++r) out.push_back(PlanRank(basis, r, nranks));
  return out;
}

}  // namespace numabind::testing

#endif  // NUMABIND_TESTS_PLAN_PLAN_TEST_UTIL_H_
