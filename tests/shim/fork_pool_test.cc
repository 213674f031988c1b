// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_FORKS=ranks: Python pools (multiprocessing.Pool, ProcessPoolExecutor) under the fork and
// forkserver start methods, whose workers take ranks 0..N-1 by order and bind before fork returns in them;
// Python's own helpers (resource tracker, forkserver) take none, and a worker's children keep its rank.

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

using numabind::shim::test::Absolute;
using numabind::shim::test::CpuPair;
using numabind::shim::test::LinesWith;
using numabind::shim::test::MakeTempDir;
using numabind::shim::test::PreloadedRun;
using numabind::shim::test::RanksByPid;
using numabind::shim::test::ReadFile;
using numabind::shim::test::RemoveTree;
using numabind::shim::test::RepoDir;
using numabind::shim::test::Report;
using numabind::shim::test::RunPreloaded;
using numabind::shim::test::Tail;
using numabind::shim::test::TwoAllowedCpus;

namespace {

/// Runs a pool of n workers under cpus:1|0 and checks that its workers are ranks 0..n-1, rank r on CPU
/// 1 - r % 2 (the log's "bound rank R ... pid P" lines against what each worker saw).
void CheckPool(const std::string& method, const std::string& kind, int n) {
  std::string dir = MakeTempDir("fork_pool");
  std::string out = dir + "/workers";
  std::vector<std::string> env = {"NUMABIND_POLICY=cpus:1|0", "NUMABIND_FORKS=ranks"};
  PreloadedRun r = RunPreloaded({"/usr/bin/python3", Absolute(RepoDir() + "/tests/shim/scripts/fork_pool.py"),
                                 method, kind, std::to_string(n), out},
                                env, "fork_pool_" + method + kind);
  std::string workers = ReadFile(out);
  RemoveTree(dir);
  cr_assert_eq(r.run.exit_code, 0, "%s", Tail(r.output).c_str());
  std::map<long, int> rank_of = RanksByPid(r.log, "bound rank ");
  std::istringstream lines(workers);
  std::set<int> ranks;
  int count = 0;
  long pid;
  std::string cpus;
  while (lines >> pid >> cpus) {
    ++count;
    cr_assert(rank_of.count(pid) == 1, "%s %s: worker %ld bound no rank; log:\n%s", method.c_str(),
              kind.c_str(), pid, Tail(r.log).c_str());
    int rank = rank_of[pid];
    ranks.insert(rank);
    std::string want = rank % 2 == 0 ? "1" : "0";
    cr_expect_eq(cpus, want, "%s %s: rank %d on cpus %s, not %s", method.c_str(), kind.c_str(), rank,
                 cpus.c_str(), want.c_str());
  }
  cr_assert_eq(count, n, "%s %s: %d workers reported:\n%s", method.c_str(), kind.c_str(), count,
               workers.c_str());
  // No NUMABIND_NRANKS: one info line per launch says the count is unknown, naming NUMABIND_FORKS.
  cr_expect_eq(LinesWith(r.log, "(NUMABIND_MATCH, NUMABIND_FORKS) have no count").size(), 1u, "%s",
               Tail(r.log).c_str());
  std::set<int> expected;
  for (int i = 0; i < n; ++i) expected.insert(i);
  cr_assert(ranks == expected, "%s %s: ranks are not 0..%d; log:\n%s", method.c_str(), kind.c_str(), n - 1,
            Tail(r.log).c_str());
}

}  // namespace

Test(fork_pool, pool_fork_2_and_4) {
  CheckPool("fork", "pool", 2);
  CheckPool("fork", "pool", 4);
}

Test(fork_pool, pool_forkserver_2_and_4) {
  CheckPool("forkserver", "pool", 2);
  CheckPool("forkserver", "pool", 4);
}

Test(fork_pool, executor_fork_and_forkserver) {
  CheckPool("fork", "executor", 2);
  CheckPool("forkserver", "executor", 4);
}

// Without NUMABIND_FORKS a fork pool's workers stay unbound, as before (nothing is logged as bound).
Test(fork_pool, off_by_default) {
  PreloadedRun r = RunPreloaded({"/usr/bin/python3", Absolute(RepoDir() + "/tests/shim/scripts/fork_pool.py"),
                                 "fork", "pool", "2", "/dev/null"},
                                {"NUMABIND_POLICY=cpus:1|0"}, "fork_pool_off");
  cr_assert_eq(r.run.exit_code, 0, "%s", Tail(r.output).c_str());
  cr_assert(LinesWith(r.log, "bound rank ").empty(), "%s", r.log.c_str());
}

// What a fork child says at info: each is logged bound at its fork ("(forked child) ... via fork"), before
// anything tells a worker from a child that will exec. fork_pool.py's helper execs /bin/sleep (as CPython's
// resource tracker does when it cannot use vfork): its exec says it gave the rank back, in text and, for
// numabind report, as a "released" JSON event. The pool's workers, which never exec, say nothing more.
Test(fork_pool, a_child_that_execs_says_it_gave_its_rank_back) {
  std::string dir = MakeTempDir("fork_pool");
  std::string out = dir + "/workers";
  std::vector<std::string> env = {"NUMABIND_POLICY=cpus:1|0", "NUMABIND_FORKS=ranks", "NUMABIND_NRANKS=2"};
  std::vector<std::string> argv = {
      "/usr/bin/python3", Absolute(RepoDir() + "/tests/shim/scripts/fork_pool.py"), "fork", "pool", "2", out};
  PreloadedRun r = RunPreloaded(argv, env, "fork_pool_exec");
  std::string workers = ReadFile(out);
  cr_assert_eq(r.run.exit_code, 0, "%s", Tail(r.output).c_str());
  std::set<long> worker_pids;
  std::istringstream lines(workers);
  long pid;
  std::string cpus;
  while (lines >> pid >> cpus) worker_pids.insert(pid);
  cr_assert_eq(worker_pids.size(), 2u, "%s", workers.c_str());
  std::map<long, int> bound = RanksByPid(r.log, "bound rank "), gave = RanksByPid(r.log, "gave back rank ");
  int helpers = 0;
  for (const auto& [p, rank] : bound) {
    if (worker_pids.count(p) == 1) {
      cr_expect_eq(gave.count(p), 0u, "worker %ld gave its rank back:\n%s", p, Tail(r.log).c_str());
      continue;
    }
    ++helpers;
    cr_expect(gave.count(p) == 1 && gave[p] == rank,
              "child %ld bound rank %d at fork and exec'd, but no line "
              "gave it back:\n%s",
              p, rank, Tail(r.log).c_str());
  }
  cr_expect_geq(helpers, 1, "the helper's bound line, log:\n%s", Tail(r.log).c_str());
  cr_expect_eq(LinesWith(r.log, "(forked child)").size(), bound.size(), "%s", Tail(r.log).c_str());
  cr_expect_eq(LinesWith(r.log, "the child execs /bin/sleep, so it is no forked worker").size(), 1u, "%s",
               Tail(r.log).c_str());
  // The JSON log that numabind report reads ends the helper's rank.
  env.push_back("NUMABIND_LOG_FORMAT=json");
  PreloadedRun j = RunPreloaded(argv, env, "fork_pool_exec_json");
  RemoveTree(dir);
  cr_assert_eq(j.run.exit_code, 0, "%s", Tail(j.output).c_str());
  std::vector<std::string> released = LinesWith(j.log, "\"event\":\"released\"");
  cr_assert_eq(released.size(), 1u, "%s", Tail(j.log).c_str());
  cr_expect(released[0].find("\"command\":\"/bin/sleep\"") != std::string::npos, "%s", released[0].c_str());
}

namespace {

/// What scripts/fork_pool_children.py wrote under NUMABIND_FORKS=ranks, NUMABIND_NRANKS=4 and `policy`: its
/// main process's line, its first pool's workers' and its second pool's, and the log.
struct PoolChildren {
  PreloadedRun run;
  std::vector<Report> main, workers, second;
};

PoolChildren RunPoolChildren(const std::string& policy) {
  PoolChildren o;
  o.run = RunPreloaded(
      {"/usr/bin/python3", Absolute(RepoDir() + "/tests/shim/scripts/fork_pool_children.py"), "@OUT"},
      {"NUMABIND_POLICY=" + policy, "NUMABIND_FORKS=ranks", "NUMABIND_NRANKS=4"}, "fork_pool_children");
  for (const Report& r : o.run.reports) {
    std::string who = r.Get("who");
    (who == "main" ? o.main : who == "worker" ? o.workers : o.second).push_back(r);
  }
  return o;
}

}  // namespace

// A fork child that execs was no worker: it gives its rank back and its binding up before the program starts,
// which then runs on the CPUs of the process that forked it. The program (grep) reads them itself, from its
// /proc/self/status.
Test(fork_pool, a_child_that_execs_runs_on_its_parents_cpus) {
  CpuPair c = TwoAllowedCpus();
  PoolChildren o = RunPoolChildren(c.policy);
  cr_assert_eq(o.run.run.exit_code, 0, "%s", Tail(o.run.output).c_str());
  cr_assert_eq(o.main.size(), 1u, "%s", Tail(o.run.output).c_str());
  cr_assert_eq(o.main[0].Get("cpus"), c.all, "%s", o.main[0].line.c_str());
  cr_expect_eq(o.main[0].Get("fork_exec"), c.all,
               "the program a fork child exec'd runs on CPUs %s, not its parent's %s: the binding the child "
               "took at fork was kept; log:\n%s",
               o.main[0].Get("fork_exec").c_str(), c.all.c_str(), Tail(o.run.log).c_str());
  long pid = atol(o.main[0].Get("fork_exec_pid").c_str());
  std::map<long, int> gave = RanksByPid(o.run.log, "gave back rank ");
  cr_expect(gave.count(pid) == 1 && gave[pid] == 0, "no line says child %ld gave rank 0 back; log:\n%s", pid,
            Tail(o.run.log).c_str());
}

// A pool worker's children are the rank's. The programs it runs, by fork and exec (a preexec_fn makes
// CPython fork) or by subprocess.run (vfork and exec), and a fork child that does not exec keep the worker's
// CPUs, and the worker keeps its rank: a second pool started while the first lives takes ranks 2 and 3, not
// the first's 0 and 1 again. Only the main process's own fork+exec child gives a rank back.
Test(fork_pool, a_workers_children_keep_its_rank) {
  CpuPair c = TwoAllowedCpus();
  // Ranks 0 and 1 on one CPU each, 2 and 3 on all: a second pool on the first's ranks would share its CPUs.
  PoolChildren o = RunPoolChildren(c.policy + "|" + c.all + "|" + c.all);
  cr_assert_eq(o.run.run.exit_code, 0, "%s", Tail(o.run.output).c_str());
  cr_assert_eq(o.workers.size(), 2u, "%s", Tail(o.run.output).c_str());
  cr_assert_eq(o.second.size(), 2u, "%s", Tail(o.run.output).c_str());
  std::map<long, int> bound = RanksByPid(o.run.log, "bound rank ");
  std::set<int> ranks;
  for (const Report& w : o.workers) {
    long pid = atol(w.Get("pid").c_str());
    cr_assert(bound.count(pid) == 1, "worker %ld bound no rank; log:\n%s", pid, Tail(o.run.log).c_str());
    int rank = bound[pid];
    ranks.insert(rank);
    const std::string& want = c.ForRank(rank);
    cr_expect_eq(w.Get("cpus"), want, "%s", w.line.c_str());
    for (const char* child : {"fork_exec", "vfork_exec", "fork", "after"}) {
      cr_expect_eq(w.Get(child), want, "worker %ld (rank %d, CPUs %s): \"%s\" on CPUs %s; log:\n%s", pid,
                   rank, want.c_str(), child, w.Get(child).c_str(), Tail(o.run.log).c_str());
    }
  }
  cr_expect(ranks == (std::set<int>{0, 1}), "the first pool's ranks; log:\n%s", Tail(o.run.log).c_str());
  for (const Report& w : o.second) {
    long pid = atol(w.Get("pid").c_str());
    cr_expect_eq(w.Get("cpus"), c.all,
                 "second pool's worker %ld (rank %d) is on CPUs %s: a live worker of the first pool lost its "
                 "rank; log:\n%s",
                 pid, bound.count(pid) == 1 ? bound[pid] : -1, w.Get("cpus").c_str(),
                 Tail(o.run.log).c_str());
  }
  cr_expect_eq(LinesWith(o.run.log, "gave back rank ").size(), 1u, "%s", Tail(o.run.log).c_str());
}

// Without the shared counter (NUMABIND_SHARED=off) fork children take no rank and run unbound: the pool's
// process says so once, naming the fix.
Test(fork_pool, no_shared_counter_is_said_once) {
  for (const char* method : {"fork", "forkserver"}) {
    std::string dir = MakeTempDir("fork_pool");
    std::string out = dir + "/workers";
    PreloadedRun r = RunPreloaded(
        {"/usr/bin/python3", Absolute(RepoDir() + "/tests/shim/scripts/fork_pool.py"), method, "pool", "2",
         out},
        {"NUMABIND_POLICY=cpus:1|0", "NUMABIND_FORKS=ranks", "NUMABIND_SHARED=off"}, "fork_pool_no_counter");
    RemoveTree(dir);
    cr_assert_eq(r.run.exit_code, 0, "%s", Tail(r.output).c_str());
    std::vector<std::string> lines = LinesWith(r.log, "take no rank (NUMABIND_FORKS=ranks) and run unbound");
    cr_expect_eq(lines.size(), 1u, "%s: %zu lines:\n%s", method, lines.size(), Tail(r.log).c_str());
    cr_expect(r.log.find("(NUMABIND_SHARED=off); set NUMABIND_SHARED to a directory") != std::string::npos,
              "%s:\n%s", method, Tail(r.log).c_str());
    cr_expect(LinesWith(r.log, "bound rank").empty(), "%s:\n%s", method, Tail(r.log).c_str());
  }
}
