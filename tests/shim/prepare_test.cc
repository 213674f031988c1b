// Preparing the plan in a launcher (shim/launcher/prepare.cc): the planner helper is invisible to the
// launcher, bounded in time and size, and always the one compiled in.

#include <criterion/criterion.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

std::string Shim() { return "LD_PRELOAD=" + BuildDir() + "/libnumabind.so"; }

struct Outcome {
  RunResult run;
  std::string output;
  std::vector<Report> reports;
};

Outcome RunIn(const std::string& dir, const std::vector<std::string>& argv,
              const std::vector<std::string>& env, int timeout_s = 60) {
  Outcome o;
  o.run = Run(argv, env, dir + "/output", timeout_s);
  o.output = ReadFile(dir + "/output");
  o.reports = ReadReports(dir + "/reports");
  return o;
}

}  // namespace

Test(prepare, helper_invisible_to_the_launcher) {
  // No SIGCHLD but the launcher's own child's, and waitid(P_ALL) finds nothing left (no helper zombie).
  std::string dir = MakeTempDir("numabind-prepare");
  Outcome o =
      RunIn(dir, {BuildDir() + "/helpers/hostile", "helper-invisible"},
            {Shim(), "NUMABIND_POLICY=node", "NUMABIND_LOG=debug", "NUMABIND_LOG_FILE=" + dir + "/log"});
  std::string log = ReadFile(dir + "/log");
  RemoveTree(dir);
  cr_expect_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_eq(LinesWith(o.output, "other_sigchld=0 waitid=-1 errno=10 si_pid=0").size(), 1u, "%s",
               o.output.c_str());
  cr_expect_eq(LinesWith(log, "prepared NUMABIND_POLICY=node").size(), 1u, "the shim did not prepare:\n%s",
               log.c_str());
}

Test(prepare, hung_helper_is_bounded) {
  // NUMABIND_TOPOLOGY naming a FIFO: hwloc blocks opening it. The launcher goes on after the bound, the
  // rank runs unbound, and the line says why.
  std::string dir = MakeTempDir("numabind-prepare");
  cr_assert_eq(mkfifo((dir + "/topo").c_str(), 0600), 0);
  std::string build = BuildDir();
  Outcome o = RunIn(dir,
                    {build + "/helpers/entry_launcher", "execve", "1", build + "/helpers/report", "--out",
                     dir + "/reports"},
                    {Shim(), "NUMABIND_POLICY=cpus:1|0", "NUMABIND_TOPOLOGY=" + dir + "/topo"}, 40);
  RemoveTree(dir);
  cr_assert_not(o.run.timed_out, "the launcher hung");
  cr_expect_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_lt(o.run.seconds, 20.0);
  cr_expect_eq(o.reports.size(), 1u);
  cr_expect_eq(LinesWith(o.output, "failed: timed out after 10000 ms").size(), 1u, "%s", o.output.c_str());
}

Test(prepare, helper_is_the_compiled_in_one) {
  // LD_PRELOAD relative and a launcher that changes directory: the helper "next to the library" was then
  // looked up in the new directory, where anyone may have put a program of that name.
  std::string dir = MakeTempDir("numabind-prepare");
  std::string build = BuildDir();
  std::string parent = build.substr(0, build.rfind('/'));
  std::string name = build.substr(build.rfind('/') + 1);
  std::string evil = dir + "/" + name;
  cr_assert_eq(mkdir(evil.c_str(), 0755), 0);
  {
    std::ofstream f(evil + "/numabind");
    f << "#!/bin/sh\ntouch " << dir << "/pwned\n";
  }
  chmod((evil + "/numabind").c_str(), 0755);
  Outcome o =
      RunIn(dir,
            {"/bin/bash", "-c", "cd \"$1\" && LD_PRELOAD=\"$2/libnumabind.so\" exec \"$3\" chdir-fork \"$4\"",
             "bash", parent, name, build + "/helpers/hostile", dir},
            {"NUMABIND_POLICY=node", "NUMABIND_LOG=debug", "NUMABIND_SHARED=off"});  // the helper runs
  bool pwned = !ReadFile(dir + "/pwned").empty() || access((dir + "/pwned").c_str(), F_OK) == 0;
  RemoveTree(dir);
  cr_expect_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_not(pwned, "the launcher ran %s/numabind", evil.c_str());
  // The compiled-in path is the build directory's real one ($BUILD may be a link to it,
  // scripts/build-link.sh).
  char real[PATH_MAX];
  std::string helper =
      std::string(realpath(build.c_str(), real) != nullptr ? real : build.c_str()) + "/numabind";
  cr_expect_eq(LinesWith(o.output, "by " + helper + " prepare-basis").size(), 1u, "%s", o.output.c_str());
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

Test(prepare, set_mempolicy_forbidden_keeps_the_cpus) {
  // A seccomp profile that makes set_mempolicy fail with ENOSYS, or kills on it: the ranks still get their
  // CPUs, and the launcher itself never calls it (it would be killed).
  if (AllowedCpus().size() < 2) cr_assert_fail("needs 2 CPUs");
  std::string build = BuildDir();
  for (const char* how : {"enosys", "kill"}) {
    std::string dir = MakeTempDir("numabind-prepare");
    Outcome o = RunIn(dir,
                      {build + "/helpers/hostile", "seccomp-mempolicy", how, build + "/helpers/report",
                       "--out", dir + "/reports"},
                      {Shim(), "NUMABIND_POLICY=cpus:1|0", "NUMABIND_LOG=info"});
    RemoveTree(dir);
    cr_expect_eq(o.run.exit_code, 0, "%s: %s", how, o.output.c_str());
    cr_assert_eq(o.reports.size(), 2u, "%s: %s", how, o.output.c_str());
    for (const Report& r : o.reports) cr_expect_eq(r.Get("cpus"), "1", "%s: %s", how, o.output.c_str());
    std::string why = std::string(how) == "kill" ? "killed by SIGSYS" : "ENOSYS";
    cr_expect_eq(LinesWith(o.output, "memory unchanged (set_mempolicy: " + why + ")").size(), 2u, "%s",
                 o.output.c_str());
    cr_expect_eq(
        LinesWith(o.output, "set_mempolicy: " +
                                std::string(how == std::string("kill") ? "the calling process is " : "") +
                                why + ": ranks get their CPUs")
            .size(),
        1u, "%s", o.output.c_str());
  }
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

Test(prepare, fork_from_a_signal_handler_allocates_nothing) {
  // _Fork is async-signal-safe: called from a signal handler while the program allocates, the shim's
  // preparation must not call malloc (it corrupted the heap about one run in four).
  std::string dir = MakeTempDir("numabind-prepare");
  Outcome o =
      RunIn(dir, {BuildDir() + "/helpers/hostile", "fork-in-handler"}, {Shim(), "NUMABIND_POLICY=node"});
  RemoveTree(dir);
  cr_expect_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_eq(LinesWith(o.output, "allocations_in_handler=0").size(), 1u, "%s", o.output.c_str());
}

Test(prepare, clone_child_while_another_thread_prepares) {
  // A child made with clone() while another thread holds the preparation lock must not wait for it at its
  // first fork: that thread does not exist in the child.
  std::string dir = MakeTempDir("numabind-prepare");
  cr_assert_eq(mkfifo((dir + "/topo").c_str(), 0600), 0);
  Outcome o = RunIn(dir, {BuildDir() + "/helpers/hostile", "clone-while-preparing", dir + "/topo"},
                    {Shim(), "NUMABIND_POLICY=node", "NUMABIND_TOPOLOGY=" + dir + "/topo"}, 30);
  RemoveTree(dir);
  cr_expect_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_eq(LinesWith(o.output, "clone-while-preparing: done status=0").size(), 1u, "%s",
               o.output.c_str());
}

}  // namespace numabind::shim::test
