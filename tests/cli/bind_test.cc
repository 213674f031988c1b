// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind bind`: a command run bound as one rank (its CPUs, memory policy, exports and marker, a static
// binary too), a live process rebound (--pid: every thread, left as it was when refused), and bad usage.

#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/cli/cli_util.h"

using numabind::test::BuildDir;
using numabind::test::ReadAll;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;
using numabind::test::TwoCpus;

namespace {

std::string Report() { return BuildDir() + "/helpers/report"; }

/// A Python process with 3 threads besides its main one, sleeping; its pid once the threads run.
pid_t StartThreads() {
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    execl("/usr/bin/python3", "python3", "-c",
          "import threading, time\n"
          "for i in range(3): threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
          "print('up', flush=True)\n"
          "time.sleep(60)\n",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  char buf[8] = {0};
  cr_assert_gt(read(fds[0], buf, sizeof(buf)), 0, "the threads did not start");
  close(fds[0]);
  return pid;
}

void Reap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

/// Each thread's Cpus_allowed_list, from /proc/PID/task.
std::vector<std::string> ThreadCpus(pid_t pid) {
  std::vector<std::string> out;
  std::string dir = "/proc/" + std::to_string(pid) + "/task/";
  Result r = RunProgram({"/bin/sh", "-c", "cat " + dir + "*/status"});
  for (size_t at = 0; (at = r.out.find("Cpus_allowed_list:\t", at)) != std::string::npos;) {
    at += 19;
    out.push_back(r.out.substr(at, r.out.find('\n', at) - at));
  }
  return out;
}

}  // namespace

Test(bind, runs_command_on_the_rank_cpus_and_memory) {
  std::string cpu = std::to_string(TwoCpus()[1]);
  Result r = Run({"bind", "--policy", "cpus:" + cpu, "--memory", "bind", "--export", "omp", "--", Report(),
                  "--env", "OMP_NUM_THREADS", "--env", "NUMABIND_BOUND", "--env", "NUMABIND_POLICY"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_CONTAINS(r.out, "\"cpus\":\"" + cpu + "\"");
  EXPECT_CONTAINS(r.out, "\"policy\":\"bind\"");
  EXPECT_CONTAINS(r.out, "\"OMP_NUM_THREADS\":\"1\"");
  // The marker a launcher inside CMD plans within; the options' variables stay out of CMD's environment.
  EXPECT_CONTAINS(r.out, "\"NUMABIND_BOUND\":\"bind=0 cpus=" + cpu + " by=");
  EXPECT_CONTAINS(r.out, "\"NUMABIND_POLICY\":null");
  cr_expect_eq(r.err, "");
}

// Rank 1 of 2 under cpus:A|B is the second entry; --log info says where it went.
Test(bind, rank_of_ranks) {
  std::vector<int> cpus = TwoCpus();
  std::string policy = "cpus:" + std::to_string(cpus[0]) + "|" + std::to_string(cpus[1]);
  Result r =
      Run({"bind", "--policy", policy, "--rank", "1", "--ranks", "2", "--log", "info", "--", Report()});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_CONTAINS(r.out, "\"cpus\":\"" + std::to_string(cpus[1]) + "\"");
  EXPECT_CONTAINS(r.err, "numabind bind: rank 1 of 2: CPUs " + std::to_string(cpus[1]));
}

// No library in CMD: a static binary is bound too.
Test(bind, static_binary) {
  struct stat st;
  if (stat("/bin/busybox", &st) != 0) cr_skip_test("needs busybox-static (scripts/install-deps.sh)");
  std::string cpu = std::to_string(TwoCpus()[1]);
  Result r = Run({"bind", "--policy", "cpus:" + cpu, "--", "/bin/busybox", "cat", "/proc/self/status"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_CONTAINS(r.out, "Cpus_allowed_list:\t" + cpu + "\n");
}

// A topology larger than the machine: the line names the CPUs (or nodes) missing and the topology; CMD
// does not run.
Test(bind, refuses_cpus_and_nodes_the_machine_lacks) {
  std::string flag = numabind::test::TempDir() + "/ran";
  Result cpus = Run({"bind", "--topology", "synthetic:node:1 core:64 pu:1", "--policy", "cpus:60-63", "--",
                     "/bin/touch", flag});
  cr_expect_eq(cpus.status, 1);
  EXPECT_CONTAINS(cpus.err, "rank 0 of 1 needs CPUs 60-63 (topology: synthetic:node:1 core:64 pu:1), but");
  EXPECT_CONTAINS(cpus.err, ": 60-63 missing");
  Result nodes = Run({"bind", "--topology", "synthetic:node:2 core:1 pu:1", "--policy", "node", "--rank", "1",
                      "--ranks", "2", "--", "/bin/touch", flag});
  cr_expect_eq(nodes.status, 1);
  EXPECT_CONTAINS(nodes.err,
                  "needs node 1 (topology: synthetic:node:2 core:1 pu:1), but this process may use");
  cr_expect_neq(access(flag.c_str(), F_OK), 0, "CMD ran");
}

Test(bind, rebinds_every_thread_of_a_pid, .timeout = 30) {
  std::string cpu = std::to_string(TwoCpus()[1]);
  pid_t pid = StartThreads();
  Result r = Run({"bind", "--policy", "cpus:" + cpu, "--pid", std::to_string(pid)});
  std::vector<std::string> threads = ThreadCpus(pid);
  Reap(pid);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_CONTAINS(r.out, "process " + std::to_string(pid) + ": 4 threads bound to CPUs " + cpu);
  cr_assert_eq(threads.size(), 4u);
  for (const std::string& t : threads) cr_expect_eq(t, cpu);
}

// A plan the process cannot take whole: refused with the numbers, every thread as it was.
Test(bind, refused_pid_is_left_as_it_was, .timeout = 30) {
  pid_t pid = StartThreads();
  std::vector<std::string> before = ThreadCpus(pid);
  Result r = Run({"bind", "--topology", "synthetic:node:1 core:64 pu:1", "--policy", "cpus:0-63", "--pid",
                  std::to_string(pid)});
  std::vector<std::string> after = ThreadCpus(pid);
  Reap(pid);
  cr_expect_eq(r.status, 1);
  EXPECT_CONTAINS(r.err, "but process " + std::to_string(pid) + " may use CPUs ");
  EXPECT_CONTAINS(r.err, "; left as it was");
  cr_expect(before == after, "threads' CPUs changed");
}

// Another user's process: one line naming CAP_SYS_NICE.
Test(bind, another_users_process_is_not_permitted, .timeout = 30) {
  if (geteuid() != 0) cr_skip_test("needs root to run numabind as nobody");
  std::vector<std::string> nobody = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  std::vector<std::string> version = nobody;
  version.push_back(numabind::test::Numabind());
  version.push_back("--version");
  if (RunProgram(version).status != 0) cr_skip_test("nobody cannot run %s", version.back().c_str());
  pid_t pid = StartThreads();
  std::vector<std::string> argv = nobody;
  for (const char* a : {"bind", "--policy", "cpus:0", "--pid"}) argv.push_back(a);
  argv.insert(argv.begin() + 4, numabind::test::Numabind());
  argv.push_back(std::to_string(pid));
  Result r = RunProgram(argv);
  Reap(pid);
  cr_expect_eq(r.status, 1, "%s", r.err.c_str());
  EXPECT_CONTAINS(r.err, "not permitted (another user's process needs CAP_SYS_NICE)");
}

Test(bind, usage_errors) {
  Result none = Run({"bind"});
  cr_expect_eq(none.status, 2);
  EXPECT_CONTAINS(none.err, "no command to run");
  Result both = Run({"bind", "--pid", "1", "--", "true"});
  cr_expect_eq(both.status, 2);
  EXPECT_CONTAINS(both.err, "--pid and a command");
  cr_expect_eq(Run({"bind", "--no-move", "--", "true"}).status, 2);
  cr_expect_eq(Run({"bind", "--rank", "2", "--ranks", "2", "--", "true"}).status, 2);
  cr_expect_eq(Run({"bind", "--pid", "abc"}).status, 2);
  Result gone = Run({"bind", "--pid", "999999999"});
  cr_expect_eq(gone.status, 1);
  EXPECT_CONTAINS(gone.err, "numabind bind: no process 999999999");
  cr_expect_eq(Run({"bind", "--", "/no/such/program"}).status, 127);
}
