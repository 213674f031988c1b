// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Core kinds (issue 36 part 4): exclusive, core-complex and auto put ranks on the fastest CPU kind first and
// use the others only when there are more ranks than its cores; kinds within 5% in frequency are one kind.

#include <criterion/criterion.h>

#include <string>

#include "planner/planner.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::Load;
using numabind::testing::PlanAll;
using numabind::testing::PrepareOn;
using numabind::testing::RankText;
using numabind::testing::TopologyFile;

// Efficiency cores 0-1 (2400 MHz), performance cores 2-3 (3600 MHz); the second file: 3000 and 3003 MHz.
static const char* const kTwoKinds = "kinds/4synth-1n4c-2e2p-cpukinds.xml";
static const char* const kNoisyKinds = "kinds/4synth-1n4c-2kinds-3mhz.xml";

static std::string Cpus(const char* file, const char* policy, uint32_t n, bool all_kinds = false) {
  Topology topo = Load(TopologyFile(file));
  Basis b;
  PrepareRequest req;
  if (!RequestFromText(policy, nullptr, "none", &req, &b.error)) return "!" + b.error;
  req.all_kinds = all_kinds;
  b.basis = PreparePlanBasis(topo, req, &b.error);
  if (b.basis == nullptr) return "!" + b.error;
  std::string s;
  for (const RankText& t : PlanAll(*b.basis, n))
    s += (s.empty() ? "" : " | ") + (t.ok ? t.cpus : "!" + t.error);
  return s;
}

Test(kinds, fastest_kind_read_and_noisy_kinds_merged) {
  cr_expect(Load(TopologyFile(kTwoKinds)).fastest_kind.ToList() == "2-3");
  cr_expect(Load(TopologyFile(kNoisyKinds)).fastest_kind.Empty(), "a 3 MHz spread is one kind");
}

Test(kinds, two_ranks_take_the_performance_cores) {
  cr_expect_eq(Cpus(kTwoKinds, "exclusive", 2), "2 | 3");
  cr_expect_eq(Cpus(kTwoKinds, "core-complex", 2), "2 | 3");
}

Test(kinds, four_ranks_use_every_core) {
  cr_expect_eq(Cpus(kTwoKinds, "exclusive", 4), "2 | 3 | 0 | 1");
  cr_expect_eq(Cpus(kTwoKinds, "core-complex", 4), "2 | 3 | 0 | 1");
}

// auto: the ranks share the performance cores while they are no more than those, then every core.
Test(kinds, auto_takes_the_performance_cores_first) {
  cr_expect_eq(Cpus(kTwoKinds, "auto", 1), "2-3");
  cr_expect_eq(Cpus(kTwoKinds, "auto", 2), "2 | 3");
  cr_expect_eq(Cpus(kTwoKinds, "auto", 3), "0-1 | 2 | 3");
  cr_expect_eq(Cpus(kTwoKinds, "auto", 4), "0 | 1 | 2 | 3");
  cr_expect_eq(Cpus(kTwoKinds, "auto", 2, true), "0-1 | 2-3");
  cr_expect_eq(Cpus(kNoisyKinds, "auto", 2), "0-1 | 2-3");
}

// NUMABIND_CORE_KINDS=all: every core alike, in CPU order, as on a machine of one kind.
Test(kinds, all_turns_it_off) {
  cr_expect_eq(Cpus(kTwoKinds, "exclusive", 2, true), "0-1 | 2-3");
  cr_expect_eq(Cpus(kTwoKinds, "core-complex", 2, true), "0 | 1");
  cr_expect_eq(Cpus(kTwoKinds, "exclusive", 4, true), "0 | 1 | 2 | 3");
}

Test(kinds, three_mhz_spread_is_one_kind) {
  cr_expect_eq(Cpus(kNoisyKinds, "exclusive", 2), "0-1 | 2-3");
  cr_expect_eq(Cpus(kNoisyKinds, "exclusive", 4), "0 | 1 | 2 | 3");
}
