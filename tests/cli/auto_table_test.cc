// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The table of NUMABIND_POLICY=auto's decisions in tests/data/topologies/README.md is what
// scripts/auto_table.sh makes from `numabind plan` now, and `numabind plan` shows the decision: a line
// before the table and an "auto" object per rank in --json.

#include <criterion/criterion.h>

#include <string>

#include "tests/cli/cli_util.h"

using numabind::test::Result;
using numabind::test::Run;

Test(auto_table, topology_readme_is_current) {
  Result check = numabind::test::RunProgram({"scripts/auto_table.sh", "--check"},
                                            {"BUILD=" + numabind::test::BuildDir()});
  cr_assert_eq(check.status, 0, "%s%s", check.out.c_str(), check.err.c_str());
}

Test(auto_table, plan_prints_the_decision) {
  Result r = Run({"plan", "--topology", "synthetic:pack:2 numa:2 l3:2 core:4 pu:2", "--policy", "auto",
                  "--ranks", "8", "--devices", "none"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  // Under the heading, the decision.
  size_t second = r.out.find('\n') + 1;
  EXPECT_STREQ(r.out.substr(0, second), "8 ranks, policy auto, memory local\n");
  EXPECT_STREQ(
      r.out.substr(second, r.out.find('\n', second) - second),
      "auto: no devices, nodes 0-3, 8 ranks -> spread over every node: 1 whole L3 per rank (of 2 per "
      "node), L3 kept whole");
  cr_assert(r.out.find("auto share") != std::string::npos &&
                r.out.find("1 of 2 L3 of node 3") != std::string::npos,
            "%s", r.out.c_str());
  Result j = Run({"plan", "--topology", "synthetic:pack:2 numa:2 l3:2 core:4 pu:2", "--policy", "auto",
                  "--ranks", "2", "--devices", "none", "--json"});
  cr_assert_eq(j.status, 0, "%s", j.err.c_str());
  cr_assert(
      j.out.find("\"cpus\":\"0-31\",\"memory\":\"local\",\"auto\":{\"decision\":\"auto: no devices, nodes "
                 "0-3, 2 ranks -> spread over every node: 2 whole nodes per rank, L3 kept whole\","
                 "\"share\":\"2 of 4 nodes\"}}") != std::string::npos,
      "%s", j.out.c_str());
}
