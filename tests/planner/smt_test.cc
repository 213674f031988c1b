// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_SMT (planner/planner.cc, KeepThreads): at most N hardware threads of each core in every rank's
// CPUs, the lowest-numbered it may use; the policies share cores out as without it.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/planner/planner_test_util.h"

using numabind::planner::PreparePlanBasis;
using numabind::planner::PrepareRequest;
using numabind::planner::RequestFromText;
using numabind::planner::Topology;
using numabind::testing::Basis;
using numabind::testing::Load;
using numabind::testing::PlanAll;
using numabind::testing::RankText;

namespace {

/// 2 packages of 4 cores of 2 threads: core k is CPUs 2k and 2k+1.
constexpr char kSmt2[] = "synthetic:pack:2 numa:1 core:4 pu:2";

std::string Cpus(const Topology& t, const char* policy, uint32_t smt, uint32_t ranks) {
  PrepareRequest req;
  std::string err;
  cr_assert(RequestFromText(policy, nullptr, "none", &req, &err), "%s", err.c_str());
  req.smt = smt;
  Basis b;
  b.basis = PreparePlanBasis(t, req, &b.error);
  cr_assert(b.basis, "%s", b.error.c_str());
  std::string s;
  for (const RankText& r : PlanAll(*b.basis, ranks))
    s += (s.empty() ? "" : " | ") + (r.ok ? r.cpus : "!" + r.error);
  return s;
}

}  // namespace

Test(smt, one_thread_per_core_under_every_policy) {
  Topology t = Load(kSmt2);
  cr_expect_eq(Cpus(t, "node", 0, 2), "0-7 | 8-15");
  cr_expect_eq(Cpus(t, "node", 1, 2), "0,2,4,6 | 8,10,12,14");
  cr_expect_eq(Cpus(t, "exclusive", 1, 4), "0,2 | 4,6 | 8,10 | 12,14");
  cr_expect_eq(Cpus(t, "core-complex", 1, 2), "0 | 8");  // no cache in the file: a core each
  cr_expect_eq(Cpus(t, "socket", 1, 2), "0,2,4,6 | 8,10,12,14");
  cr_expect_eq(Cpus(t, "cpus:0-3|4-7", 1, 2), "0,2 | 4,6");
}

Test(smt, as_many_as_the_cores_have_changes_nothing) {
  Topology t = Load(kSmt2);
  for (const char* policy : {"node", "exclusive", "auto"})
    cr_expect_eq(Cpus(t, policy, 2, 4), Cpus(t, policy, 0, 4));
}

// The threads kept are the lowest the plan may use: a core whose first thread is not allowed keeps its
// second.
Test(smt, the_lowest_allowed_thread) {
  Topology t = Load(kSmt2);
  t.allowed.Clear(0);
  std::string got = Cpus(t, "exclusive", 1, 2);
  cr_expect_eq(got, "1-2,4,6 | 8,10,12,14", "%s", got.c_str());
}
