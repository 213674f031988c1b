// Preparing the plan in a launcher (shim/launcher/prepare.cc, shim/launcher/helper_launch.cc) at its edges: a
// launcher told to stop while the planner helper runs, an environment near the kernel's exec limit, no
// /dev/null.

#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
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

Test(prepare_edges, c_launcher_stopped_while_preparing, .timeout = 60) {
  // SIGTERM's default action ends the launcher at once; the helper it was waiting for must end with it.
  Stopped s = StopWhilePreparing({BuildDir() + "/helpers/entry_launcher", "execve", "1"});
  cr_expect(WIFSIGNALED(s.status) && WTERMSIG(s.status) == SIGTERM, "status %d: %s", s.status,
            s.output.c_str());
  cr_expect_lt(s.seconds, 1.0, "the launcher took %.2f s to stop", s.seconds);
  cr_expect(s.helper_gone, "the helper outlived the launcher");
}

Test(prepare_edges, python_launcher_stopped_while_preparing, .timeout = 60) {
  // CPython's subprocess blocks every signal around its vfork, which the library prepares before.
  Stopped s = StopWhilePreparing({"/usr/bin/python3", EdgeLaunch(), "plain"});
  cr_expect(WIFSIGNALED(s.status) && WTERMSIG(s.status) == SIGTERM, "status %d: %s", s.status,
            s.output.c_str());
  cr_expect_lt(s.seconds, 1.0, "the launcher took %.2f s to stop", s.seconds);
  cr_expect(s.helper_gone, "the helper outlived the launcher");
}

Test(prepare_edges, python_handler_runs_while_preparing, .timeout = 60) {
  // A handler like torchrun's runs when the interpreter regains control: os.posix_spawn must return.
  Stopped s = StopWhilePreparing({"/usr/bin/python3", EdgeLaunch(), "handler"});
  cr_expect(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 7, "status %d: %s", s.status, s.output.c_str());
  cr_expect_eq(LinesWith(s.output, "handler").size(), 1u, "%s", s.output.c_str());
  cr_expect_lt(s.seconds, 1.0, "the handler ran %.2f s after the SIGTERM", s.seconds);
  cr_expect(s.helper_gone, "the helper outlived the launcher");
  cr_expect_eq(LinesWith(s.output, "failed: interrupted by SIGTERM").size(), 1u, "%s", s.output.c_str());
}

Test(prepare_edges, environment_near_the_exec_limit, .timeout = 60) {
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

Test(prepare_edges, no_dev_null, .timeout = 60) {
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
