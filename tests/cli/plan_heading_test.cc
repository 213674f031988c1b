// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan`'s heading: what was planned, and where the policy came from when the command line did
// not name it.

#include "tests/cli/cli_util.h"
#include "tests/cli/plan_topologies.h"

using numabind::test::kFourNodes;
using numabind::test::Result;
using numabind::test::Run;

TestSuite(plan_heading, .fini = numabind::test::RemoveTempDirs);

namespace {

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

Test(plan_heading, names_the_policy_and_where_it_came_from) {
  Result r = Run({"plan", "--topology", kFourNodes});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(FirstLine(r.out), "4 ranks, policy node (the default; --policy to choose), memory local");
  r = Run({"plan", "--topology", kFourNodes, "--ranks", "2"}, {"NUMABIND_POLICY=socket"});
  EXPECT_STREQ(FirstLine(r.out), "2 ranks, policy socket (from NUMABIND_POLICY), memory local");
  r = Run({"plan", "--topology", kFourNodes, "--policy", "exclusive", "--memory", "bind"},
          {"NUMABIND_POLICY=socket"});
  EXPECT_STREQ(FirstLine(r.out), "4 ranks, policy exclusive, memory bind");
  std::string site = numabind::test::TempDir() + "/numabind.conf";
  numabind::test::WriteAll(site, "# a comment\nNUMABIND_POLICY=socket\n");
  r = Run({"plan", "--topology", kFourNodes, "--ranks", "1"}, {"NUMABIND_CONFIG_FILE=" + site});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(FirstLine(r.out), "1 rank, policy socket (from " + site + ":2), memory local");
  // The environment's value beats the site file's, and the heading says so.
  r = Run({"plan", "--topology", kFourNodes, "--ranks", "1"},
          {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_POLICY=node"});
  EXPECT_STREQ(FirstLine(r.out), "1 rank, policy node (from NUMABIND_POLICY), memory local");
}

Test(plan_heading, the_drawing_says_it_too) {
  Result r = Run({"plan", "--draw", "--topology", kFourNodes});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  // The title is wrapped at 100 columns: "... memory local, on" and the topology below.
  EXPECT_STREQ(FirstLine(r.out),
               "numabind plan: 4 ranks, policy node (the default; --policy to choose), memory local, on");
}
