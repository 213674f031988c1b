// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_SMT reaches the planner helper the library runs (config/planner_inputs.h) and so a rank's
// binding: on a topology whose one core has this machine's first two CPUs as its threads, rank 0 is bound to
// the first alone.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {

Test(smt, a_rank_keeps_one_thread_of_each_core) {
  std::vector<int> cpus = AllowedCpus();
  if (cpus.size() < 2 || cpus[0] != 0 || cpus[1] != 1) cr_skip_test("the topology names CPUs 0 and 1");
  for (const char* smt : {"1", "2"}) {
    PreloadedRun o = RunPreloaded({"@REPORT", "--out", "@OUT"},
                                  {"NUMABIND_POLICY=node", "NUMABIND_DEVICES=none",
                                   "NUMABIND_TOPOLOGY=synthetic:node:1 core:1 pu:2",
                                   std::string("NUMABIND_SMT=") + smt, "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1"},
                                  "numabind-smt");
    cr_assert_eq(o.reports.size(), 1u, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
    cr_expect_eq(o.reports[0].Get("cpus"), smt[0] == '1' ? "0" : "0-1", "SMT=%s: %s\nlog:\n%s", smt,
                 o.reports[0].line.c_str(), o.log.c_str());
  }
}

}  // namespace numabind::shim::test
