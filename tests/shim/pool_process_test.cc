// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_FORKS=ranks: only a Python process's forks take ranks, never those of the shells in front of it
// (shim/child/pool_process.h). scripts/shell_pool.sh is a job script that starts a background subshell and
// then a fork Pool(2) through a pyenv-style python3, a shell script that forks commands before its exec.

#include <criterion/criterion.h>
#include <stdlib.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

/// shell_pool.sh under NUMABIND_FORKS=ranks and `env`; *workers gets its pool's "PID CPUS" lines and
/// *background the subshell's "Cpus_allowed_list: LIST".
PreloadedRun RunShellPool(const std::vector<std::string>& env, std::string* workers,
                          std::string* background) {
  std::string dir = MakeTempDir("pool_process");
  std::vector<std::string> all = {"NUMABIND_FORKS=ranks"};
  all.insert(all.end(), env.begin(), env.end());
  PreloadedRun r =
      RunPreloaded({"/bin/bash", Absolute(RepoDir() + "/tests/shim/scripts/shell_pool.sh"), dir + "/out"},
                   all, "shell_pool");
  *workers = ReadFile(dir + "/out.workers");
  *background = ReadFile(dir + "/out.background");
  RemoveTree(dir);
  return r;
}

}  // namespace

// The background subshell stays on every CPU for the whole job, and the log has the pool's lines alone: its
// two workers' and those of fork_pool.py's helper (/bin/sleep, which Python forks and execs: it takes rank 0
// at its fork and gives it back). Not one line for the shell's and the wrapper's commands.
Test(pool_process, a_shell_in_front_of_python_takes_no_rank) {
  CpuPair c = TwoAllowedCpus();
  std::string workers, background;
  PreloadedRun r = RunShellPool({"NUMABIND_POLICY=" + c.policy, "NUMABIND_NRANKS=2"}, &workers, &background);
  cr_assert_eq(r.run.exit_code, 0, "%s", Tail(r.output).c_str());
  std::istringstream words(background);
  std::string key, cpus;
  words >> key >> cpus;
  cr_assert_eq(key, "Cpus_allowed_list:", "%s", background.c_str());
  cr_expect_eq(cpus, c.all, "the job script's background subshell is on CPUs %s, not %s; log:\n%s",
               cpus.c_str(), c.all.c_str(), Tail(r.log).c_str());
  std::map<long, int> bound = RanksByPid(r.log, "bound rank "), gave = RanksByPid(r.log, "gave back rank ");
  std::istringstream lines(workers);
  std::set<int> ranks;
  long pid;
  int count = 0;
  while (lines >> pid >> cpus) {
    ++count;
    cr_assert(bound.count(pid) == 1, "worker %ld bound no rank; log:\n%s", pid, Tail(r.log).c_str());
    ranks.insert(bound[pid]);
    cr_expect_eq(cpus, c.ForRank(bound[pid]), "worker %ld, rank %d", pid, bound[pid]);
    bound.erase(pid);
  }
  cr_assert_eq(count, 2, "%s", workers.c_str());
  cr_expect(ranks == (std::set<int>{0, 1}), "the workers' ranks; log:\n%s", Tail(r.log).c_str());
  // What is left is the helper's rank, taken at its fork and given back at its exec of /bin/sleep.
  std::vector<std::string> gave_lines = LinesWith(r.log, "gave back rank ");
  cr_expect(bound.size() == 1 && gave.size() == 1 && gave_lines.size() == 1 &&
                gave_lines[0].find("the child execs /bin/sleep,") != std::string::npos,
            "%zu more bound lines, %zu gave back; log:\n%s", bound.size(), gave.size(), Tail(r.log).c_str());
  cr_expect_eq(LinesWith(r.log, "NUMABIND_FORKS").size(), 4u, "%s", Tail(r.log).c_str());
}

// Without the shared counter the pool's process says so once, by its name, and the shell in front of it (the
// tree's root) says nothing: its forks take no rank anyway.
Test(pool_process, no_shared_counter_is_said_by_python) {
  CpuPair c = TwoAllowedCpus();
  std::string workers, background;
  PreloadedRun r =
      RunShellPool({"NUMABIND_POLICY=" + c.policy, "NUMABIND_SHARED=off"}, &workers, &background);
  cr_assert_eq(r.run.exit_code, 0, "%s", Tail(r.output).c_str());
  std::vector<std::string> lines = LinesWith(r.log, "take no rank (NUMABIND_FORKS=ranks) and run unbound");
  cr_assert_eq(lines.size(), 1u, "%s", Tail(r.log).c_str());
  cr_expect(lines[0].find("the children that /usr/bin/python3 forks") != std::string::npos, "%s",
            lines[0].c_str());
  cr_expect(LinesWith(r.log, "bound rank").empty(), "%s", Tail(r.log).c_str());
}

}  // namespace numabind::shim::test
