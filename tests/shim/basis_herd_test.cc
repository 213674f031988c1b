// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shared basis under churn (shim/launcher/basis_herd.cc): self-binding ranks started at once, cold, run
// the helper once and are all bound; when the process preparing dies, one of those waiting takes over well
// within the bound, and a waiter still dies of SIGTERM at once; a writer killed while writing leaves a
// temporary that the next writer removes. Ranks are forked by the test and held at a barrier (a pipe whose
// write end the test closes), then exec helpers/report preloaded.

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

using namespace numabind::shim::test;  // NOLINT: test file

namespace {

double Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Herd {
  std::string base = MakeTempDir("numabind-herd");
  std::string dir = base + "/numabind-" + std::to_string(geteuid());
  std::string log = base + "/log", reports = base + "/reports";
  std::vector<int> allowed = AllowedCpus();
  std::vector<pid_t> pids;
  int barrier[2] = {-1, -1};

  Herd() {
    if (allowed.size() < 2) cr_assert_fail("these tests need 2 CPUs");
    cr_assert_eq(pipe2(barrier, O_CLOEXEC), 0);
  }
  ~Herd() {
    for (int fd : barrier) {
      if (fd >= 0) close(fd);
    }
    RemoveTree(base);
  }
  /// Rank `rank`'s CPU under the map "cpus:SECOND|FIRST" (ranks wrap around).
  std::string Expected(int rank) const { return std::to_string(allowed[rank % 2 == 0 ? 1 : 0]); }

  /// Forks rank `rank` (a self-binding helpers/report) held at the barrier; `fsize` > 0 limits the size
  /// of the files it writes (a write past it kills it with SIGXFSZ), `shared` overrides NUMABIND_SHARED.
  pid_t Start(int rank, std::vector<std::string> extra = {}, long fsize = 0) {
    extra.insert(extra.begin(), "LOCAL_RANK=" + std::to_string(rank));
    return StartProgram({BuildDir() + "/helpers/report", "--out", reports}, extra, fsize);
  }
  /// Forks `argv` preloaded with this herd's configuration and `extra`, held at the barrier.
  pid_t StartProgram(std::vector<std::string> argv, std::vector<std::string> extra = {}, long fsize = 0) {
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                                    "NUMABIND_POLICY=cpus:" + Expected(0) + "|" + Expected(1),
                                    "NUMABIND_SHARED=" + base};
    if (fsize == 0) env.insert(env.end(), {"NUMABIND_LOG=debug", "NUMABIND_LOG_FILE=" + log});
    env.insert(env.end(), extra.begin(), extra.end());
    std::vector<char*> a, e;
    for (std::string& s : argv) a.push_back(s.data());
    for (std::string& s : env) e.push_back(s.data());
    a.push_back(nullptr);
    e.push_back(nullptr);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {  // async-signal-safe calls only until execve
      close(barrier[1]);
      char c;
      while (read(barrier[0], &c, 1) < 0 && errno == EINTR) {
      }
      if (fsize > 0) {
        rlimit size{static_cast<rlim_t>(fsize), static_cast<rlim_t>(fsize)}, none{0, 0};
        setrlimit(RLIMIT_FSIZE, &size);
        setrlimit(RLIMIT_CORE, &none);
      }
      execve(a[0], a.data(), e.data());
      _exit(127);
    }
    pids.push_back(pid);
    return pid;
  }
  /// A new barrier for the ranks started next.
  void Rearm() {
    for (int fd : barrier) {
      if (fd >= 0) close(fd);
    }
    cr_assert_eq(pipe2(barrier, O_CLOEXEC), 0);
  }
  /// Lets every rank started so far exec at once.
  void Release() {
    close(barrier[1]);
    barrier[1] = -1;
  }
  /// Waits for every rank; their wait statuses.
  std::vector<int> WaitAll() {
    std::vector<int> out;
    for (pid_t pid : pids) {
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      out.push_back(status);
    }
    pids.clear();
    return out;
  }
  size_t Count(const std::string& needle) const { return LinesWith(ReadFile(log), needle).size(); }
  /// Waits (inotify on the log) until `n` lines contain `needle`, at most `seconds`; false if not.
  bool AwaitLines(const std::string& needle, size_t n, double seconds) const {
    int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);  // there to be watched
    if (fd >= 0) close(fd);
    inotify_add_watch(in, log.c_str(), IN_MODIFY);
    double end = Now() + seconds;
    while (Count(needle) < n && Now() < end) {
      pollfd p{in, POLLIN, 0};
      poll(&p, 1, 100);  // a bounded wait for the next write; the loop looks at the file again
      char buf[4096];
      while (read(in, buf, sizeof(buf)) > 0) {
      }
    }
    close(in);
    return Count(needle) >= n;
  }
  /// Entries of the user's directory whose name starts with `prefix`.
  std::vector<std::string> Entries(const std::string& prefix) const {
    std::vector<std::string> out;
    std::string list = base + "/list";
    Run({"sh", "-c", "ls -A \"$0\" 2>/dev/null", dir}, {}, list, 10);
    for (const std::string& l : LinesWith(ReadFile(list), prefix)) {
      if (l.rfind(prefix, 0) == 0) out.push_back(l);
    }
    return out;
  }
  /// Every rank exited 0 and is on its CPU; the reports' count.
  void ExpectBound(const std::vector<int>& statuses) const {
    for (size_t i = 0; i < statuses.size(); ++i)
      cr_expect(WIFEXITED(statuses[i]) && WEXITSTATUS(statuses[i]) == 0, "rank %zu: status %#x", i,
                statuses[i]);
    for (const Report& r : ReadReports(reports)) {
      int rank = std::stoi(r.Get("rank"));
      cr_expect_eq(r.Get("cpus"), Expected(rank), "rank %d unbound; log:\n%s", rank,
                   Tail(ReadFile(log)).c_str());
    }
  }
};

constexpr char kByHelper[] = "ms by ";
constexpr char kFromShared[] = "ms from the shared basis";
constexpr char kWaiting[] = "waiting for another process preparing";

/// A process that holds the preparation lock of `h`'s configuration (found by a probe herd of its own),
/// until killed.
pid_t HoldLock(Herd& h) {
  std::string lock;
  {
    Herd probe;  // the configuration's name: its basis file's, in a directory of its own
    probe.Start(0);
    probe.Release();
    probe.WaitAll();
    std::vector<std::string> files = probe.Entries("basis-");
    cr_assert_eq(files.size(), 1u);
    lock = h.dir + "/lock-" + files[0].substr(6);
  }
  cr_assert_eq(mkdir(h.dir.c_str(), 0700), 0);
  int ready[2];
  cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
  pid_t holder = fork();
  cr_assert_geq(holder, 0);
  if (holder == 0) {
    close(h.barrier[1]);  // else the ranks' barrier never opens
    int fd = open(lock.c_str(), O_RDWR | O_CREAT, 0600);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(1);
    write(ready[1], "x", 1);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  cr_assert_eq(read(ready[0], &c, 1), 1, "the lock holder did not start");
  close(ready[0]);
  return holder;
}

}  // namespace

Test(basis_herd, ranks_started_at_once_run_the_helper_once, .timeout = 120) {
  Herd h;
  constexpr int kRanks = 16;
  for (int r = 0; r < kRanks; ++r) h.Start(r);
  h.Release();
  h.ExpectBound(h.WaitAll());
  cr_expect_eq(ReadReports(h.reports).size(), static_cast<size_t>(kRanks));
  std::string log = ReadFile(h.log);
  size_t helper_runs = LinesWith(log, kByHelper).size();
  cr_expect_eq(helper_runs, 1u, "%zu helper runs for %d ranks; log:\n%s", helper_runs, kRanks,
               Tail(log).c_str());
  cr_expect_eq(LinesWith(log, kFromShared).size(), kRanks - 1u, "log:\n%s", Tail(log).c_str());
}

// The test holds the configuration's lock in a child of its own, as a process preparing would, and kills
// it once every rank waits: one rank prepares, the others read its basis. A waiter given SIGTERM dies of it
// at once (nothing blocks or handles signals while waiting).
Test(basis_herd, a_dead_preparer_is_taken_over, .timeout = 120) {
  Herd h;
  pid_t holder = HoldLock(h);
  constexpr int kRanks = 4;
  for (int r = 0; r < kRanks; ++r) h.Start(r);
  pid_t terminated = h.Start(kRanks);
  h.pids.pop_back();  // waited for apart
  h.Release();
  bool waiting = h.AwaitLines(kWaiting, kRanks + 1, 30);
  double kill_term = Now();
  kill(terminated, SIGTERM);
  int status = 0;
  waitpid(terminated, &status, 0);
  double term_s = Now() - kill_term;
  kill(holder, SIGKILL);
  double kill_holder = Now();
  waitpid(holder, nullptr, 0);
  std::vector<int> statuses = h.WaitAll();
  double takeover_s = Now() - kill_holder;
  std::string log = ReadFile(h.log);
  std::string entries;
  for (const std::string& e : h.Entries("")) entries += " " + e;
  cr_assert(waiting, "the ranks did not wait for the lock's holder (directory:%s); log:\n%s", entries.c_str(),
            Tail(log).c_str());
  cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %#x", status);
  cr_expect_lt(term_s, 1.0, "a waiter took %.3f s to die of SIGTERM", term_s);
  h.ExpectBound(statuses);
  cr_expect_eq(LinesWith(log, kByHelper).size(), 1u, "helper runs; log:\n%s", Tail(log).c_str());
  cr_expect_eq(LinesWith(log, kFromShared).size(), kRanks - 1u, "log:\n%s", Tail(log).c_str());
  cr_expect_lt(takeover_s, 10.0, "taken over in %.3f s, past the 10 s bound", takeover_s);
  cr_log_info("SIGTERM: %.3f s; taken over in %.3f s", term_s, takeover_s);
}

Test(basis_herd, a_writer_killed_while_writing_leaves_no_temporary, .timeout = 120) {
  Herd h;
  // 512 bytes: the header goes through, the frame does not (SIGXFSZ while writing the temporary).
  h.Start(0, {}, 512);
  h.Release();
  std::vector<int> killed = h.WaitAll();
  cr_assert(WIFSIGNALED(killed[0]) && WTERMSIG(killed[0]) == SIGXFSZ, "status %#x", killed[0]);
  std::vector<std::string> left = h.Entries(".basis-");
  cr_assert_eq(left.size(), 1u, "no temporary left by the killed writer");
  cr_assert_eq(h.Entries("basis-").size(), 0u);
  // Beside it: one of a live writer (this test) older than any write takes, and one just begun.
  std::string live = std::to_string(getpid());
  std::string old_live = ".basis-0123456789abcdef." + live + ".1",
              fresh_live = ".basis-0123456789abcdef." + live + ".2";
  for (const std::string& name : {old_live, fresh_live}) {
    int fd = open((h.dir + "/" + name).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    cr_assert_geq(fd, 0);
    close(fd);
  }
  timespec past[2] = {{time(nullptr) - 600, 0}, {time(nullptr) - 600, 0}};
  cr_assert_eq(utimensat(AT_FDCWD, (h.dir + "/" + old_live).c_str(), past, 0), 0);

  h.Rearm();
  h.Start(1);
  h.Release();
  h.ExpectBound(h.WaitAll());
  cr_expect_eq(h.Count(kByHelper), 1u);
  std::vector<std::string> temps = h.Entries(".basis-");
  std::string names;
  for (const std::string& t : temps) names += " " + t;
  cr_expect(temps.size() == 1 && temps[0] == fresh_live, "temporaries left:%s (only %s should be)",
            names.c_str(), fresh_live.c_str());
  cr_expect_eq(h.Entries("basis-").size(), 1u);
}

// A Python launcher whose spawn waits on the lock while another process prepares (and its helper hangs)
// dies within 1 s of SIGTERM: with subprocess.Popen, which blocks every signal around its vfork (before:
// 9.5 s, the wait's whole bound), with os.posix_spawn, and with a Python handler that raises SystemExit.
Test(basis_herd, a_waiting_launcher_stops_at_once_on_sigterm, .timeout = 120) {
  std::string script = RepoDir() + "/tests/shim/scripts/herd_launcher.py";
  for (const char* mode : {"popen", "posix_spawn"}) {
    for (const char* handler : {"", "handler"}) {
      Herd h;
      pid_t holder = HoldLock(h);
      std::vector<std::string> argv = {"/usr/bin/python3", script, mode};
      if (*handler != '\0') argv.push_back(handler);
      pid_t launcher = h.StartProgram(argv);
      h.pids.pop_back();  // waited for here
      h.Release();
      bool waiting = h.AwaitLines(kWaiting, 1, 30);
      double start = Now();
      kill(launcher, SIGTERM);
      int status = 0;
      waitpid(launcher, &status, 0);
      double took = Now() - start;
      kill(holder, SIGKILL);
      waitpid(holder, nullptr, 0);
      cr_assert(waiting, "%s %s: the launcher did not wait for the lock; log:\n%s", mode, handler,
                Tail(ReadFile(h.log)).c_str());
      bool stopped = *handler != '\0' ? WIFEXITED(status) && WEXITSTATUS(status) == 143
                                      : WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM;
      cr_expect(stopped, "%s %s: status %#x", mode, handler, status);
      cr_expect_lt(took, 1.0, "%s %s: %.3f s to stop after SIGTERM", mode, handler, took);
      cr_log_info("%s %s: stopped %.3f s after SIGTERM", mode, handler, took);
    }
  }
}
