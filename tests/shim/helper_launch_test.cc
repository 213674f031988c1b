// The helper launch (shim/launcher/helper_launch.h), linked into this test and run against plain commands:
// what the helper gets (descriptors, signals), what comes back (output, a decoded status), its bounds (time,
// size), and that the host sees no child, no SIGCHLD and no zombie.

#include "shim/launcher/helper_launch.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

using numabind::shim::FreeHelperOutput;
using numabind::shim::HelperRun;
using numabind::shim::RunHelper;

extern char** environ;

namespace {

struct Result {
  bool ok;
  std::string out, why, mempolicy;
  double seconds;
};

Result Launch(std::vector<const char*> argv, int timeout_ms = 5000, size_t cap = 1 << 20,
              bool probe = false) {
  argv.push_back(nullptr);
  HelperRun run;
  timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  bool ok = RunHelper(argv[0], const_cast<char* const*>(argv.data()), environ, timeout_ms, cap, probe, &run);
  clock_gettime(CLOCK_MONOTONIC, &b);
  Result r{ok, std::string(run.out ? run.out : "", run.size), run.why, run.mempolicy,
           (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9};
  FreeHelperOutput(&run);
  return r;
}

volatile sig_atomic_t g_sigchld;
void OnChld(int) { g_sigchld = g_sigchld + 1; }

}  // namespace

Test(helper_launch, output_comes_back) {
  Result r = Launch({"/bin/sh", "-c", "printf 'hello\\nworld'"});
  cr_expect(r.ok, "%s", r.why.c_str());
  cr_expect_eq(r.out, "hello\nworld");
  cr_expect_eq(r.why, "");
}

Test(helper_launch, status_decoded) {
  cr_expect_eq(Launch({"/nonexistent/numabind-helper"}).why, "exec ENOENT");
  cr_expect_eq(Launch({"/etc/passwd"}).why, "exec EACCES");
  cr_expect_eq(Launch({"/bin/sh", "-c", "exit 3"}).why, "exited 3");
  Result segv = Launch({"/bin/sh", "-c", "kill -SEGV $$"});
  cr_expect_not(segv.ok);
  cr_expect_eq(segv.why, "killed by SIGSEGV");
  cr_expect_eq(segv.out, "");
}

Test(helper_launch, bounded_in_time) {
  Result r = Launch({"/bin/sleep", "30"}, 300);
  cr_expect_eq(r.why, "timed out after 300 ms");
  cr_expect_lt(r.seconds, 2.0, "took %.2f s", r.seconds);
  // A child of the helper's that keeps the pipe open does not hold the host either.
  Result g = Launch({"/bin/sh", "-c", "sleep 30 & exit 0"}, 5000);
  cr_expect(g.ok, "%s", g.why.c_str());
  cr_expect_lt(g.seconds, 2.0, "took %.2f s", g.seconds);
}

Test(helper_launch, bounded_in_size) {
  Result r = Launch({"/bin/sh", "-c", "head -c 50000000 /dev/zero"}, 5000, 100000);
  cr_expect_eq(r.why, "wrote more than 100000 bytes");
  cr_expect_eq(r.out, "", "output kept after a failure");
  Result fits = Launch({"/bin/sh", "-c", "head -c 300000 /dev/zero"}, 5000, 300000);
  cr_expect(fits.ok, "%s", fits.why.c_str());
  cr_expect_eq(fits.out.size(), 300000u);
}

Test(helper_launch, helper_gets_the_pipe_and_default_signals_only) {
  // The host: a descriptor without close-on-exec, a blocked and an ignored signal.
  int fd = open("/dev/null", O_RDONLY);
  cr_assert(dup2(fd, 57) == 57);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, nullptr);
  signal(SIGINT, SIG_IGN);
  // The shell's own descriptors above 2 (tested with a builtin: no pipeline or child holds any).
  Result fds = Launch(
      {"/bin/sh", "-c",
       "i=3; while [ $i -lt 64 ]; do [ -e /proc/$$/fd/$i ] && printf '%s ' $i; i=$((i+1)); done; true"});
  cr_expect(fds.ok, "%s", fds.why.c_str());
  cr_expect_eq(fds.out, "", "the helper's descriptors above 2: %s", fds.out.c_str());
  Result status = Launch({"/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"});
  cr_expect_eq(status.out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n", "%s",
               status.out.c_str());
  Result in = Launch({"/bin/sh", "-c", "readlink /proc/$$/fd/0 /proc/$$/fd/2 | tr '\\n' ' '"});
  cr_expect_eq(in.out, "/dev/null /dev/null ");
  close(57);
  close(fd);
}

Test(helper_launch, host_sees_no_child_signal_or_zombie) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnChld;
  sigaction(SIGCHLD, &sa, nullptr);
  for (const char* cmd : {"exit 0", "exit 3", "kill -SEGV $$"}) {
    Launch({"/bin/sh", "-c", cmd});
  }
  Launch({"/bin/sleep", "30"}, 100);
  Launch({"/nonexistent"});
  // No sleep: ECHILD means no child at all, live or dead, is left to send a SIGCHLD; one sent before (by a
  // helper or keeper that was this process's child) was handled by the time its Launch returned.
  siginfo_t info;
  memset(&info, 0, sizeof info);
  errno = 0;
  int w = waitid(P_ALL, 0, &info, WEXITED | WNOHANG);
  cr_expect(w == -1 && errno == ECHILD, "waitid(P_ALL) found pid %d", static_cast<int>(info.si_pid));
  cr_expect_eq(g_sigchld, 0, "%d SIGCHLD", static_cast<int>(g_sigchld));
}

Test(helper_launch, sigchld_ignored_by_the_host) {
  signal(SIGCHLD, SIG_IGN);  // would make the kernel reap the helper itself, status lost
  cr_expect_eq(Launch({"/bin/sh", "-c", "exit 4"}).why, "exited 4");
  Result ok = Launch({"/bin/echo", "x"});
  cr_expect(ok.ok, "%s", ok.why.c_str());
}

Test(helper_launch, mempolicy_probe) {
  Result r = Launch({"/bin/true"}, 5000, 1 << 20, true);
  cr_expect(r.ok);
  cr_expect_eq(r.mempolicy, "", "set_mempolicy refused here: %s", r.mempolicy.c_str());
}

namespace {

volatile sig_atomic_t g_sigterm;
void OnTerm(int) { g_sigterm = g_sigterm + 1; }

}  // namespace

Test(helper_launch, stop_signal_ends_the_wait) {
  // The helper sends the host SIGTERM, then would run 30 s: the host stops waiting at once, the helper
  // killed, and the signal reaches the host's handler as the call returns.
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnTerm;
  sigaction(SIGTERM, &sa, nullptr);
  std::string kill_host = "kill -TERM " + std::to_string(getpid()) + "; exec sleep 30";
  Result r = Launch({"/bin/sh", "-c", kill_host.c_str()});
  cr_expect_eq(r.why, "interrupted by SIGTERM");
  cr_expect_lt(r.seconds, 1.0, "took %.2f s", r.seconds);
  cr_expect_eq(g_sigterm, 1);
  // A host that blocks it (CPython around its vfork): the signal stays pending for the host to take.
  sigset_t term, mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigprocmask(SIG_BLOCK, &term, nullptr);
  r = Launch({"/bin/sh", "-c", kill_host.c_str()});
  cr_expect_eq(r.why, "interrupted by SIGTERM");
  cr_expect_lt(r.seconds, 1.0, "took %.2f s", r.seconds);
  sigpending(&mask);
  cr_expect(sigismember(&mask, SIGTERM), "SIGTERM no longer pending");
  int sig = 0;
  sigwait(&term, &sig);
  sigprocmask(SIG_BLOCK, nullptr, &mask);
  cr_expect(sigismember(&mask, SIGTERM) && !sigismember(&mask, SIGINT), "the host's mask was not restored");
  // An ignored one changes nothing.
  signal(SIGINT, SIG_IGN);
  std::string int_host = "kill -INT " + std::to_string(getpid()) + "; echo done";
  r = Launch({"/bin/sh", "-c", int_host.c_str()});
  cr_expect(r.ok, "%s", r.why.c_str());
  cr_expect_eq(r.out, "done\n");
}
