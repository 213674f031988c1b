// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The by-order counter a launcher's tree shares (shim/child/order_counter.h): a full shared directory (issue
// 38 part 1: the page grown by ftruncate was a SIGBUS at its first use), a file system without fallocate,
// a finished worker's slot, and the page removed when its tree's root exits.

#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

/// Mounts a 64 KiB tmpfs over $1 (in the caller's private mount namespace), fills it to the brim when $2 is
/// 1 (and checks that nothing is left), then execs the rest.
constexpr char kSmallTmpfs[] =
    "m=$1 full=$2; shift 2\n"
    "mount -t tmpfs -o size=64k,mode=0755 none \"$m\" || exit 90\n"
    "if [ \"$full\" = 1 ]; then\n"
    "  dd if=/dev/zero of=\"$m/fill\" bs=4096 2>/dev/null\n"
    "  [ \"$(df --output=avail \"$m\" | tail -n 1)\" -eq 0 ] || exit 91\n"
    "fi\n"
    "exec \"$@\"\n";

struct TmpfsRun {
  RunResult run;
  std::string log, output, shared;
};

/// Runs argv with the shim preloaded (NUMABIND_LOG=info into a log file, then `env`) and NUMABIND_SHARED a
/// 64 KiB tmpfs, full or empty, that only the run sees: mounted in a private mount namespace (unshare, as
/// root) over a directory of `dir`. Nothing but the run is preloaded.
TmpfsRun RunInSmallTmpfs(const std::vector<std::string>& argv, const std::vector<std::string>& env, bool full,
                         const std::string& dir) {
  cr_assert_eq(geteuid(), 0u, "needs root (unshare --mount, mount -t tmpfs)");
  TmpfsRun o;
  o.shared = dir + "/shared";
  cr_assert_eq(mkdir(o.shared.c_str(), 0755), 0);
  std::vector<std::string> all = {"unshare",
                                  "--mount",
                                  "--propagation",
                                  "private",
                                  "/bin/sh",
                                  "-c",
                                  kSmallTmpfs,
                                  "sh",
                                  o.shared,
                                  full ? "1" : "0",
                                  "env",
                                  "LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                                  "NUMABIND_LOG=info",
                                  "NUMABIND_LOG_FILE=" + dir + "/log",
                                  "NUMABIND_SHARED=" + o.shared};
  all.insert(all.end(), env.begin(), env.end());
  all.insert(all.end(), argv.begin(), argv.end());
  o.run = Run(all, {}, dir + "/output", 60);
  o.log = ReadFile(dir + "/log");
  o.output = ReadFile(dir + "/output");
  return o;
}

/// A rank's CPUs under the 4-rank map of CpuPair's two CPUs.
std::string Policy4(const CpuPair& p) {
  return "cpus:" + p.second + "|" + p.first + "|" + p.second + "|" + p.first;
}

/// The one line a tree's root says when the counter's page finds no room in `shared`.
std::string NoRoom(const std::string& shared) {
  return "no room for its page in " + shared + "/numabind-" + std::to_string(geteuid()) + ": ENOSPC";
}

/// Each worker (pid -> CPUs) bound as the log says it was (its rank's CPU), or unbound on every CPU when the
/// log has no rank for it; returns how many were bound.
int ExpectAsLogged(const std::map<long, std::string>& workers, const std::string& log, const CpuPair& p,
                   const char* what) {
  std::map<long, int> ranks = RanksByPid(log, "numabind: bound rank ");
  int bound = 0;
  for (const auto& [pid, cpus] : workers) {
    auto it = ranks.find(pid);
    std::string want = it == ranks.end() ? p.all : p.ForRank(static_cast<int>(it->second));
    bound += it != ranks.end();
    cr_expect_eq(cpus, want, "%s: worker %ld on CPUs %s, not %s\n%s", what, pid, cpus.c_str(), want.c_str(),
                 Tail(log).c_str());
  }
  return bound;
}

}  // namespace

// Issue 38 part 1: with the shared directory full, the counter's page cannot be had. Each launcher runs, and
// its workers too, numbered as without the counter (a launcher's own live children) or, forked under
// NUMABIND_FORKS, unbound; the tree's root says why in one line. Before, the page grown by ftruncate was a
// SIGBUS at its first atomic access: the posix_spawn launcher itself died, every xargs worker and every
// forked child before it ran.
Test(order_counter, full_shared_directory_kills_no_process, .timeout = 120) {
  CpuPair p = TwoAllowedCpus();
  std::string build = BuildDir();
  {  // posix_spawn, by a C launcher: it claims the slot itself, before the child exists
    std::string dir = MakeTempDir("order-full-spawn");
    TmpfsRun r = RunInSmallTmpfs({build + "/helpers/hostile", "burst", "2", build + "/helpers/report",
                                  "--out", dir + "/reports", "--hold"},
                                 {"NUMABIND_POLICY=" + Policy4(p), "NUMABIND_NRANKS=4",
                                  "NUMABIND_MATCH=" + build + "/helpers/report --out*"},
                                 true, dir);
    std::vector<Report> reports = ReadReports(dir + "/reports");
    RemoveTree(dir);
    cr_expect_eq(r.run.exit_code, 0, "posix_spawn launcher: exit %d\n%s", r.run.exit_code,
                 Tail(r.output + r.log).c_str());
    cr_expect_eq(reports.size(), 2u, "posix_spawn: %zu workers ran\n%s", reports.size(), Tail(r.log).c_str());
    std::map<long, std::string> workers;
    for (const Report& rep : reports) workers[atol(rep.Get("pid").c_str())] = rep.Get("cpus_status");
    cr_expect_eq(ExpectAsLogged(workers, r.log, p, "posix_spawn"), 2, "%s", Tail(r.log).c_str());
    cr_expect_eq(LinesWith(r.log, NoRoom(r.shared)).size(), 1u, "posix_spawn: want one line with '%s':\n%s",
                 NoRoom(r.shared).c_str(), Tail(r.log).c_str());
  }
  {  // xargs: each worker under a shell of its own, which claims in its fork child
    std::string dir = MakeTempDir("order-full-xargs");
    cr_assert_eq(mkdir((dir + "/work").c_str(), 0755), 0);
    TmpfsRun r = RunInSmallTmpfs(
        {"bash", Absolute(RepoDir() + "/tests/shim/scripts/order_launch.sh"), "xargs", "1",
         build + "/helpers/barrier", dir + "/work"},
        {"NUMABIND_POLICY=" + Policy4(p), "NUMABIND_NRANKS=4", "NUMABIND_MATCH=/*/helpers/barrier *"}, true,
        dir);
    std::map<long, std::string> workers = WorkerEntries(dir + "/work/0");
    RemoveTree(dir);
    cr_expect_eq(r.run.exit_code, 0, "xargs: exit %d\n%s", r.run.exit_code, Tail(r.output + r.log).c_str());
    cr_expect(r.output.find("terminated by signal") == std::string::npos, "xargs: %s", r.output.c_str());
    cr_expect_eq(workers.size(), 4u, "xargs: %zu of 4 workers ran\n%s", workers.size(),
                 Tail(r.output + r.log).c_str());
    cr_expect_eq(ExpectAsLogged(workers, r.log, p, "xargs"), static_cast<int>(workers.size()));
    cr_expect_eq(LinesWith(r.log, NoRoom(r.shared)).size(), 1u, "xargs: want one line with '%s':\n%s",
                 NoRoom(r.shared).c_str(), Tail(r.log).c_str());
  }
  {  // NUMABIND_FORKS: each child of os.fork claims before fork returns in it
    std::string dir = MakeTempDir("order-full-forks");
    TmpfsRun r =
        RunInSmallTmpfs({"/usr/bin/python3", Absolute(RepoDir() + "/tests/shim/scripts/fork_children.py"),
                         "2", dir + "/workers"},
                        {"NUMABIND_POLICY=" + Policy4(p), "NUMABIND_FORKS=ranks"}, true, dir);
    std::istringstream lines(ReadFile(dir + "/workers"));
    RemoveTree(dir);
    std::map<long, std::string> workers;
    long pid;
    std::string cpus;
    while (lines >> pid >> cpus) workers[pid] = cpus;
    cr_expect_eq(r.run.exit_code, 0, "forks: exit %d\n%s", r.run.exit_code, Tail(r.output + r.log).c_str());
    cr_expect_eq(workers.size(), 2u, "forks: %zu of 2 children ran\n%s", workers.size(),
                 Tail(r.output).c_str());
    cr_expect_eq(ExpectAsLogged(workers, r.log, p, "forks"), 0, "forked children bound:\n%s",
                 Tail(r.log).c_str());
    std::vector<std::string> said =
        LinesWith(r.log, "forks take no rank (NUMABIND_FORKS=ranks) and run unbound");
    cr_expect_eq(said.size(), 1u, "forks: want one line:\n%s", Tail(r.log).c_str());
    if (said.size() == 1)
      cr_expect(said[0].find(NoRoom(r.shared)) != std::string::npos, "%s", said[0].c_str());
  }
}

// A file system without fallocate (a seccomp filter refuses it with EOPNOTSUPP here): the process that
// creates the page writes it. With room, the 4 xargs workers of one launch (each under a shell of its own)
// take 4 different ranks, which only the shared counter gives them; full, the write finds no room and each
// runs as above.
Test(order_counter, page_written_where_fallocate_is_refused, .timeout = 120) {
  CpuPair p = TwoAllowedCpus();
  std::string build = BuildDir();
  for (bool full : {false, true}) {
    std::string dir = MakeTempDir("order-no-fallocate");
    cr_assert_eq(mkdir((dir + "/work").c_str(), 0755), 0);
    TmpfsRun r = RunInSmallTmpfs(
        {build + "/helpers/hostile", "no-fallocate", "bash",
         Absolute(RepoDir() + "/tests/shim/scripts/order_launch.sh"), "xargs", "1",
         build + "/helpers/barrier", dir + "/work"},
        {"NUMABIND_POLICY=" + Policy4(p), "NUMABIND_NRANKS=4", "NUMABIND_MATCH=/*/helpers/barrier *"}, full,
        dir);
    std::map<long, std::string> workers = WorkerEntries(dir + "/work/0");
    RemoveTree(dir);
    const char* what = full ? "full" : "room";
    cr_expect_eq(r.run.exit_code, 0, "%s: exit %d\n%s", what, r.run.exit_code,
                 Tail(r.output + r.log).c_str());
    cr_expect_eq(workers.size(), 4u, "%s: %zu of 4 workers ran\n%s", what, workers.size(),
                 Tail(r.output + r.log).c_str());
    cr_expect_eq(ExpectAsLogged(workers, r.log, p, what), static_cast<int>(workers.size()));
    cr_expect_eq(LinesWith(r.log, NoRoom(r.shared)).size(), full ? 1u : 0u, "%s:\n%s", what,
                 Tail(r.log).c_str());
    if (full) continue;
    std::set<long> ranks;
    std::map<long, int> by_pid = RanksByPid(r.log, "numabind: bound rank ");
    for (const auto& [pid, cpus] : workers) {
      if (by_pid.count(pid) != 0) ranks.insert(by_pid[pid]);
    }
    cr_expect_eq(ranks.size(), 4u, "room: the 4 workers took %zu different ranks\n%s", ranks.size(),
                 Tail(r.log).c_str());
  }
}

// A finished worker that its launcher has not reaped yet (a zombie) holds no rank: the next worker the
// launcher starts takes rank 0 again, with the shared counter (the slot's holder is a zombie) and without
// it (the zombie's command line is empty). posix_spawn claims in the launcher, vfork in the child.
Test(order_counter, zombie_worker_frees_its_rank, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  std::string build = BuildDir();
  for (const char* mode : {"posix_spawn", "vfork"}) {
    for (const char* shared : {"", "NUMABIND_SHARED=off"}) {
      std::vector<std::string> env = {"NUMABIND_POLICY=" + p.policy, "NUMABIND_NRANKS=2",
                                      "NUMABIND_MATCH=" + build + "/helpers/report --out*"};
      if (*shared != '\0') env.push_back(shared);
      PreloadedRun r =
          RunPreloaded({"/usr/bin/python3", Absolute(RepoDir() + "/tests/shim/scripts/zombie_launch.py"),
                        mode, "@REPORT", "--out", "@OUT"},
                       env, "order-zombie");
      std::string what = std::string(mode) + (*shared != '\0' ? " without the counter" : "");
      cr_expect_eq(r.run.exit_code, 0, "%s: exit %d\n%s", what.c_str(), r.run.exit_code,
                   Tail(r.output + r.log).c_str());
      cr_expect_eq(r.reports.size(), 2u, "%s", what.c_str());
      for (const Report& rep : r.reports) {
        cr_expect_eq(rep.Get("cpus_status"), p.ForRank(0), "%s: worker %s on CPUs %s, not rank 0's %s\n%s",
                     what.c_str(), rep.Get("pid").c_str(), rep.Get("cpus_status").c_str(),
                     p.ForRank(0).c_str(), Tail(r.log).c_str());
      }
      cr_expect_eq(LinesWith(r.log, "numabind: bound rank 0 of 2").size(), 2u, "%s:\n%s", what.c_str(),
                   Tail(r.log).c_str());
    }
  }
}

// The page goes with its tree: the root (a bash script that started by-order workers) removes it when it
// exits. Before, it stayed in the shared directory until another tree's first rank made a page.
// Whichever way the root ends by itself: bash by exit, dash by _exit (the library's _exit wrapper).
Test(order_counter, tree_root_removes_its_page, .timeout = 60) {
  for (const char* shell : {"bash", "dash"}) {
    std::string dir = MakeTempDir("order-page-gone");
    std::string shared = dir + "/shared", own = shared + "/numabind-" + std::to_string(geteuid());
    cr_assert_eq(mkdir(shared.c_str(), 0755), 0);
    cr_assert_eq(mkdir((dir + "/work").c_str(), 0755), 0);
    std::string barrier = BuildDir() + "/helpers/barrier";
    PreloadedRun r = RunPreloaded(
        {shell, "-c", "\"$0\" \"$1\" 2 & \"$0\" \"$1\" 2 & wait; ls \"$2\" >\"$3\"; true", barrier,
         dir + "/work", own, dir + "/during"},
        {"NUMABIND_POLICY=cpus:0", "NUMABIND_MATCH=/*/helpers/barrier *", "NUMABIND_SHARED=" + shared},
        "order-page");
    std::string during = ReadFile(dir + "/during");
    std::vector<std::string> left;
    if (DIR* d = opendir(own.c_str())) {
      while (dirent* e = readdir(d)) {
        if (std::string(e->d_name).rfind("order-", 0) == 0) left.push_back(e->d_name);
      }
      closedir(d);
    }
    RemoveTree(dir);
    cr_assert_eq(r.run.exit_code, 0, "%s: %s", shell, Tail(r.output + r.log).c_str());
    cr_expect_eq(LinesWith(r.log, "numabind: bound rank ").size(), 2u, "%s: %s", shell, Tail(r.log).c_str());
    cr_expect_eq(LinesWith(during, "order-").size(), 1u, "%s: no page while the tree ran: %s", shell,
                 during.c_str());
    cr_expect(left.empty(), "%s: left behind: %s", shell, left.empty() ? "" : left[0].c_str());
  }
}

// A worker whose launcher is gone before its exec (killed between fork and exec: it is init's now) takes no
// rank: its tree would be named after init, and that page would never go. It runs unbound.
Test(order_counter, orphaned_worker_takes_no_rank_of_init, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  std::string dir = MakeTempDir("order-orphan");
  std::string shared = dir + "/shared", barrier = BuildDir() + "/helpers/barrier";
  cr_assert_eq(mkdir(shared.c_str(), 0755), 0);
  cr_assert_eq(mkdir((dir + "/work").c_str(), 0755), 0);
  // The child leaves the run's process group (which is killed when the launcher exits), waits until its
  // parent has exited, says who its parent is now, and execs the worker.
  const char* orphan =
      "import os, sys, time\n"
      "parent = os.getpid()\n"
      "if os.fork() == 0:\n"
      "    os.setsid()\n"
      "    while os.getppid() == parent: time.sleep(0.001)\n"
      "    open(sys.argv[1], 'w').write(str(os.getppid()))\n"
      "    os.execv(sys.argv[2], sys.argv[2:])\n";
  PreloadedRun r = RunPreloaded(
      {"/usr/bin/python3", "-c", orphan, dir + "/ppid", barrier, dir + "/work", "1", dir + "/times"},
      {"NUMABIND_POLICY=" + p.policy, "NUMABIND_MATCH=" + barrier + " *", "NUMABIND_SHARED=" + shared},
      "order-orphan");
  for (int i = 0; i < 500 && ReadFile(dir + "/times").empty(); ++i) usleep(10000);
  std::string ppid = ReadFile(dir + "/ppid");
  std::map<long, std::string> workers = WorkerEntries(dir + "/work");
  std::vector<std::string> pages;
  if (DIR* d = opendir((shared + "/numabind-" + std::to_string(geteuid())).c_str())) {
    while (dirent* e = readdir(d)) {
      if (std::string(e->d_name).rfind("order-", 0) == 0) pages.push_back(e->d_name);
    }
    closedir(d);
  }
  RemoveTree(dir);
  cr_assert_eq(r.run.exit_code, 0, "%s", Tail(r.output + r.log).c_str());
  if (ppid != "1") cr_skip_test("orphans go to a subreaper (pid %s) here, not to init", ppid.c_str());
  cr_assert_eq(workers.size(), 1u, "the orphaned worker did not run");
  cr_expect_eq(workers.begin()->second, p.all, "the orphaned worker is on CPUs %s, not all (%s)",
               workers.begin()->second.c_str(), p.all.c_str());
  cr_expect(pages.empty(), "a page was made: %s", pages.empty() ? "" : pages[0].c_str());
}

}  // namespace numabind::shim::test
