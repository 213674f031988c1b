// Preparing the plan in a launcher (shim/launcher/prepare.cc, shim/launcher/helper_launch.cc): the planner
// helper is invisible to the launcher, bounded in time and size, and always the one compiled in; and at the
// edges: a launcher told to stop while the helper runs, an environment near the kernel's exec limit, no
// /dev/null.

#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

// At the edges: a launcher told to stop while the planner helper runs, an environment near the kernel's
// exec limit, no /dev/null.
namespace {

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

std::string EdgeLaunch() { return RepoDir() + "/tests/shim/scripts/edge_launch.py"; }

/// Starts argv with exactly `env`, output to output_path, without waiting: its pid.
pid_t Start(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& output_path) {
  std::vector<char*> a, e;
  for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  for (const std::string& s : env) e.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  e.push_back(nullptr);
  int out = open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  cr_assert_geq(out, 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out, 1);
    dup2(out, 2);
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  close(out);
  cr_assert_gt(pid, 0);
  return pid;
}

struct Stopped {
  int status = 0;
  double seconds = 0;        // from the SIGTERM to the launcher's end
  bool helper_gone = false;  // the helper closed the topology FIFO within a second of the launcher's end
  std::string output;
};

/// Runs launcher (its rank: helpers/report) with NUMABIND_TOPOLOGY a FIFO, which the helper blocks reading;
/// once the helper has opened it, sends the launcher SIGTERM and times its end.
Stopped StopWhilePreparing(const std::vector<std::string>& launcher) {
  std::string dir = MakeTempDir("numabind-edges");
  std::string fifo = dir + "/topo";
  cr_assert_eq(mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::string> argv = launcher;
  argv.insert(argv.end(), {BuildDir() + "/helpers/report", "--out", dir + "/reports"});
  pid_t pid = Start(argv,
                    {"PATH=/usr/bin:/bin", "LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                     "NUMABIND_POLICY=node", "NUMABIND_TOPOLOGY=" + fifo, "NUMABIND_SHARED=off"},
                    dir + "/output");
  int w = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);  // returns once the helper opened it for reading
  cr_assert_geq(w, 0);
  Stopped s;
  double start = Now();
  kill(pid, SIGTERM);
  waitpid(pid, &s.status, 0);
  s.seconds = Now() - start;
  pollfd fd{w, 0, 0};  // POLLERR: no reader left
  s.helper_gone = poll(&fd, 1, 1000) == 1 && (fd.revents & POLLERR) != 0;
  close(w);
  s.output = ReadFile(dir + "/output");
  RemoveTree(dir);
  return s;
}

}  // namespace

namespace {
/// The launcher ended by SIGTERM within a second, and the helper with it.
void ExpectStoppedBySigterm(const Stopped& s) {
  cr_expect(WIFSIGNALED(s.status) && WTERMSIG(s.status) == SIGTERM, "status %d: %s", s.status,
            s.output.c_str());
  cr_expect_lt(s.seconds, 1.0, "the launcher took %.2f s to stop", s.seconds);
  cr_expect(s.helper_gone, "the helper outlived the launcher");
}
}  // namespace

Test(prepare, c_launcher_stopped_while_preparing, .timeout = 60) {
  // SIGTERM's default action ends the launcher at once; the helper it was waiting for must end with it.
  ExpectStoppedBySigterm(StopWhilePreparing({BuildDir() + "/helpers/entry_launcher", "execve", "1"}));
}

Test(prepare, python_launcher_stopped_while_preparing, .timeout = 60) {
  // CPython's subprocess blocks every signal around its vfork, which the library prepares before.
  ExpectStoppedBySigterm(StopWhilePreparing({"/usr/bin/python3", EdgeLaunch(), "plain"}));
}

Test(prepare, python_handler_runs_while_preparing, .timeout = 60) {
  // A handler like torchrun's runs when the interpreter regains control: os.posix_spawn must return.
  Stopped s = StopWhilePreparing({"/usr/bin/python3", EdgeLaunch(), "handler"});
  cr_expect(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 7, "status %d: %s", s.status, s.output.c_str());
  cr_expect_eq(LinesWith(s.output, "handler").size(), 1u, "%s", s.output.c_str());
  cr_expect_lt(s.seconds, 1.0, "the handler ran %.2f s after the SIGTERM", s.seconds);
  cr_expect(s.helper_gone, "the helper outlived the launcher");
  cr_expect_eq(LinesWith(s.output, "failed: interrupted by SIGTERM").size(), 1u, "%s", s.output.c_str());
}

Test(prepare, environment_near_the_exec_limit, .timeout = 60) {
  // The rank's exec takes all but 1500 bytes of the kernel's limit; the helper, given the launcher's whole
  // environment and its arguments (the long policy twice), did not fit ("exec E2BIG").
  CpuPair cpus = TwoAllowedCpus();
  std::string policy = cpus.policy;
  while (policy.size() < 4000) policy += "|" + cpus.second + "|" + cpus.first;
  std::string dir = MakeTempDir("numabind-edges");
  std::string build = BuildDir();
  RunResult r =
      Run({"/usr/bin/python3", EdgeLaunch(), "fill", build + "/helpers/report", "--out", dir + "/reports"},
          {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=" + policy, "NUMABIND_SHARED=off"},
          dir + "/output", 60);
  std::string output = ReadFile(dir + "/output");
  std::vector<Report> reports = ReadReports(dir + "/reports");
  RemoveTree(dir);
  cr_expect_eq(r.exit_code, 0, "%s", output.c_str());
  cr_assert_eq(reports.size(), 1u, "%s", output.c_str());
  cr_expect_eq(reports[0].Get("cpus"), cpus.second, "%s", Tail(output).c_str());
  cr_expect_eq(LinesWith(output, "E2BIG").size(), 0u, "%s", Tail(output).c_str());
}

Test(prepare, no_dev_null, .timeout = 60) {
  // /dev hidden under an empty tmpfs (a private mount namespace): the helper cannot get its standard
  // input and error, and the line must say so rather than blame the helper's exec ("exec ENOENT").
  cr_assert_eq(geteuid(), 0u, "needs root (unshare --mount)");
  std::string dir = MakeTempDir("numabind-edges");
  std::string build = BuildDir();
  RunResult r =
      Run({"unshare", "--mount", "/bin/sh", "-c",
           "mount -t tmpfs none /dev && test ! -e /dev/null && exec \"$@\"", "sh",
           build + "/helpers/entry_launcher", "execve", "1", build + "/helpers/report", "--out",
           dir + "/reports"},
          {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=node", "NUMABIND_SHARED=off"},
          dir + "/output", 60);
  std::string output = ReadFile(dir + "/output");
  size_t reports = ReadReports(dir + "/reports").size();
  RemoveTree(dir);
  cr_expect_eq(r.exit_code, 0, "%s", output.c_str());
  cr_expect_eq(reports, 1u, "%s", output.c_str());
  cr_expect_eq(LinesWith(output, "failed: open /dev/null ENOENT").size(), 1u, "%s", output.c_str());
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

// Issue 26: a missing planner helper (its path is fixed when the library is built) names the path and says
// to rebuild or reinstall. The library is copied with its compiled-in helper path made one that does not
// exist (same length: the last letter changed).
Test(prepare, missing_helper_says_to_rebuild_or_reinstall, .timeout = 60) {
  std::string build = BuildDir();
  std::string lib = ReadFile(build + "/libnumabind.so");
  char real[PATH_MAX];
  cr_assert(realpath((build + "/numabind").c_str(), real) != nullptr);
  std::string helper = std::string(real) + '\0';
  std::string missing = helper;
  missing[missing.size() - 2] = missing[missing.size() - 2] == 'X' ? 'Y' : 'X';
  size_t found = 0;
  for (size_t at = lib.find(helper); at != std::string::npos; at = lib.find(helper, at + 1), ++found)
    lib.replace(at, helper.size(), missing);
  cr_assert_gt(found, 0u, "the library does not hold the helper path %s", real);
  std::string dir = MakeTempDir("numabind-prepare");
  { std::ofstream(dir + "/lib.so", std::ios::binary) << lib; }
  Outcome o = RunIn(dir, {"bash", RepoDir() + "/tests/shim/scripts/bash_loop.sh", "2", "/bin/true"},
                    {"LD_PRELOAD=" + dir + "/lib.so", "NUMABIND_POLICY=node", "NUMABIND_SHARED=off"});
  RemoveTree(dir);
  missing.pop_back();
  std::vector<std::string> lines = LinesWith(o.output, "the planner helper " + missing +
                                                           " failed: exec ENOENT; "
                                                           "rebuild or reinstall numabind");
  cr_expect_eq(lines.size(), 1u, "%s", o.output.c_str());
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

// Issue 36: a kernel (here a seccomp profile, EPERM for the listed MPOL_* modes) that refuses the memory
// policy asked for leaves the rank's CPUs bound and falls back to bind over its nodes, then preferred on its
// own node, then none; each rank's line says which. Both ranks of hostile (posix_spawn, fork + execve).
Test(prepare, refused_memory_policy_falls_back_to_bind_then_preferred) {
  if (AllowedCpus().size() < 2) cr_assert_fail("needs 2 CPUs");
  std::string build = BuildDir();
  struct {
    const char* memory;
    const char* refused;  // modes: 5 MPOL_PREFERRED_MANY, 6 MPOL_WEIGHTED_INTERLEAVE, 2 bind, 1 preferred
    const char* policy;   // what the rank gets (report.c's words)
    const char* says;
  } cases[] = {
      {"near", "eperm:5", "bind", "memory bind (near refused: EPERM)"},
      {"weighted", "eperm:6", "bind", "memory bind (weighted refused: EPERM)"},
      {"near", "eperm:5,2", "preferred", "memory preferred (near refused: EPERM)"},
      {"interleave", "eperm:3,2,1", "default", "memory unchanged (set_mempolicy: EPERM)"},
  };
  for (const auto& k : cases) {
    std::string dir = MakeTempDir("numabind-prepare");
    Outcome o = RunIn(dir,
                      {build + "/helpers/hostile", "seccomp-mempolicy", k.refused, build + "/helpers/report",
                       "--out", dir + "/reports"},
                      {Shim(), "NUMABIND_POLICY=cpus:1|0", "NUMABIND_LOG=info",
                       std::string("NUMABIND_MEMORY=") + k.memory});
    RemoveTree(dir);
    std::string what = std::string(k.memory) + " " + k.refused + ": " + o.output;
    cr_expect_eq(o.run.exit_code, 0, "%s", what.c_str());
    cr_assert_eq(o.reports.size(), 2u, "%s", what.c_str());
    for (const Report& r : o.reports) {
      cr_expect_eq(r.Get("cpus"), "1", "%s", what.c_str());
      cr_expect_eq(r.Get("policy"), k.policy, "%s", what.c_str());
    }
    cr_expect_eq(LinesWith(o.output, k.says).size(), 2u, "%s", what.c_str());
  }
}

}  // namespace numabind::shim::test
