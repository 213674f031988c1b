// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The host, keeper and helper of shim/launcher/helper_launch.h. The keeper and the helper share the host's
// memory (CLONE_VM) and run on stacks the host mapped: they make raw system calls only and write nothing but
// their own stacks. One exception, in the keeper: libc's clone() sets the host thread's errno when it fails
// (the keeper runs with that thread's TLS); the host reads errno from no system call of its own meanwhile.

#include "shim/launcher/helper_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "base/syscalls.h"

#ifndef SYS_close_range
#define SYS_close_range 436  // the same number on every architecture; older headers lack it
#endif

namespace numabind::shim {
namespace {

constexpr long kStackSize = 64L * 1024;  // each of the keeper's and the helper's (both use far less)
constexpr long kSigsetBytes = 8;         // the kernel's sigset_t: 64 signals
constexpr int kMarginMs = 2000;          // the host's own bound beyond the keeper's, should the keeper stall
constexpr int32_t kNotProbed = INT32_MIN;
constexpr int kStopSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};  // a process asked to stop
constexpr long kSfdNonblockCloexec = 04000 | 02000000;              // SFD_NONBLOCK | SFD_CLOEXEC

constexpr uint64_t Bit(int sig) { return 1ULL << (sig - 1); }

/// The kernel's struct sigaction (x86_64 layout; aarch64 has no restorer, and all-zero means SIG_DFL in
/// both). Large enough for either.
struct KernelSigaction {
  void* handler;
  unsigned long flags;
  void* restorer;
  uint64_t mask;
};

/// What the host hands the keeper and the helper (on the host's stack, which outlives both).
struct Shared {
  long host;  // the host's pid: the keeper's parent
  const char* path;
  char* const* argv;
  char* const* envp;
  int data_w;  // the helper's standard output
  int err_r;   // exec errno: helper -> keeper, close-on-exec
  int err_w;
  int status_w;  // keeper -> host: the helper's pid, then a Final
  int timeout_ms;
  bool probe;
  char* helper_stack;  // top of the helper's (then the probe's) stack
};

/// The keeper's last report, one write (below PIPE_BUF, so whole).
struct Final {
  int32_t clone_errno;
  int32_t exec_errno;
  int32_t exec_step;  // which Step failed, with exec_errno
  int32_t status;     // wait status
  int32_t timed_out;
  int32_t probe;  // 0 allowed, > 0 errno, < 0 -signal, kNotProbed
};

/// The helper's steps from clone to exec, named in run->why when one fails ("open /dev/null ENOENT").
enum Step : int32_t { kExec, kDupOutput, kOpenNull, kDupNull, kStepCount };
constexpr char kStepNames[kStepCount][16] = {"exec", "dup3 stdout", "open /dev/null", "dup3 /dev/null"};

/// What the helper sends over the close-on-exec pipe when a step fails (below PIPE_BUF, so whole).
struct StepError {
  int32_t step;
  int32_t errno_value;
};

/// A fixed buffer writer for short messages. Async-signal-safe.
struct Text {
  char* buf;
  size_t cap;
  size_t len = 0;
  Text& Str(const char* s) {
    while (*s != '\0' && len + 1 < cap) buf[len++] = *s++;
    buf[len] = '\0';
    return *this;
  }
  Text& Num(long v) {
    char d[24];
    int n = 0;
    unsigned long u = v < 0 ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
    do d[n++] = static_cast<char>('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0) Str("-");
    while (n > 0 && len + 1 < cap) buf[len++] = d[--n];
    buf[len] = '\0';
    return *this;
  }
};

long NowMs() {
  timespec ts{};
  Sys6(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&ts));
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/// Closes descriptors lo..hi; before Linux 5.9 (no close_range) one by one up to the descriptor limit.
void CloseRange(unsigned lo, unsigned hi) {
  if (lo > hi || Sys6(SYS_close_range, lo, hi, 0) != -ENOSYS) return;
  rlimit lim{};
  unsigned max = 65536;
  if (Sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, reinterpret_cast<long>(&lim)) == 0 && lim.rlim_cur < max) {
    max = static_cast<unsigned>(lim.rlim_cur);
  }
  for (unsigned fd = lo; fd <= hi && fd < max; ++fd) Sys6(SYS_close, fd);
}

/// Closes every descriptor but the n in keep (n <= 4).
void CloseAllBut(int* keep, int n) {
  for (int i = 1; i < n; ++i) {  // insertion sort
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; --j) {
      int t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  }
  unsigned lo = 0;
  for (int i = 0; i < n; ++i) {
    if (static_cast<unsigned>(keep[i]) > lo) CloseRange(lo, static_cast<unsigned>(keep[i]) - 1);
    lo = static_cast<unsigned>(keep[i]) + 1;
  }
  CloseRange(lo, ~0u);
}

/// What the keeper hands the helper (on the keeper's stack).
struct Launch {
  const Shared* shared;
  long keeper;  // the keeper's pid: the helper's parent
};

/// Ends the calling process with its parent thread (PR_SET_PDEATHSIG), or now when the parent already ended:
/// a launcher killed while preparing leaves no keeper or helper behind.
void DieWithParent(long parent) {
  Sys6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
  if (Sys6(SYS_getppid) != parent) Sys6(SYS_exit_group, 127);
}

/// The helper, between clone and exec (the keeper waits, CLONE_VFORK): signals default and unblocked,
/// standard output the pipe, standard input and error /dev/null, no other descriptor.
int HelperMain(void* arg) {
  const Launch* launch = static_cast<const Launch*>(arg);
  const Shared* s = launch->shared;
  DieWithParent(launch->keeper);
  // Everything is blocked (the host blocked it around the clone): reset, then unblock, so that none of the
  // host's handlers can run here, in the host's memory.
  for (int sig = 1; sig <= 64; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    KernelSigaction old{}, dfl{};
    if (Sys6(SYS_rt_sigaction, sig, 0, reinterpret_cast<long>(&old), kSigsetBytes) == 0 &&
        old.handler != nullptr) {
      Sys6(SYS_rt_sigaction, sig, reinterpret_cast<long>(&dfl), 0, kSigsetBytes);
    }
  }
  StepError e{kDupOutput, 0};
  long r = Sys6(SYS_dup3, s->data_w, 1, 0);  // data_w >= 3 (the host saw to it)
  long nul = -1;
  if (r >= 0) {
    e.step = kOpenNull;
    r = nul = OpenAt(AT_FDCWD, "/dev/null", O_RDWR);
  }
  if (nul >= 0) {
    e.step = kDupNull;
    if (nul != 0) r = Sys6(SYS_dup3, nul, 0, 0);
    if (r >= 0 && nul != 2) r = Sys6(SYS_dup3, nul, 2, 0);
    if (nul > 2) Sys6(SYS_close, nul);
  }
  if (r >= 0) {
    e.step = kExec;
    int keep[] = {0, 1, 2, s->err_w};
    CloseAllBut(keep, 4);
    uint64_t none = 0;
    Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&none), 0, kSigsetBytes);
    r = Sys6(SYS_execve, reinterpret_cast<long>(s->path), reinterpret_cast<long>(s->argv),
             reinterpret_cast<long>(s->envp));
  }
  e.errno_value = static_cast<int32_t>(-r);
  Sys6(SYS_write, s->err_w, reinterpret_cast<long>(&e), sizeof(e));
  Sys6(SYS_exit_group, 127);
  return 127;
}

/// The probe: tries set_mempolicy to the policy it has; exits 0 or with the errno.
int ProbeMain(void*) {
  int mode = 0;
  uint64_t nodes[16] = {0};  // 1024 nodes
  long r = Sys6(SYS_get_mempolicy, reinterpret_cast<long>(&mode), reinterpret_cast<long>(nodes), 1024, 0, 0);
  if (r == 0) r = Sys6(SYS_set_mempolicy, mode, reinterpret_cast<long>(nodes), 1024);
  Sys6(SYS_exit_group, r < 0 ? -r : 0);
  return 0;
}

/// Waits for `pid` at most timeout_ms (SIGCHLD, blocked here, is waited for with sigtimedwait), then
/// kills it. Returns its wait status.
int WaitBounded(long pid, int timeout_ms, int32_t* timed_out) {
  long start = NowMs();
  uint64_t chld = 1ULL << (SIGCHLD - 1);
  for (;;) {
    int status = 0;
    long r = Sys6(SYS_wait4, pid, reinterpret_cast<long>(&status), WNOHANG, 0);
    if (r == pid) return status;
    if (r < 0 && r != -EINTR) return 0;
    long left = timeout_ms - (NowMs() - start);
    if (left <= 0) {
      *timed_out = 1;
      Sys6(SYS_kill, pid, SIGKILL);
      while (Sys6(SYS_wait4, pid, reinterpret_cast<long>(&status), 0, 0) == -EINTR) {
      }
      return status;
    }
    timespec ts{left / 1000, (left % 1000) * 1000000L};
    Sys6(SYS_rt_sigtimedwait, reinterpret_cast<long>(&chld), 0, reinterpret_cast<long>(&ts), kSigsetBytes);
  }
}

/// The keeper: starts the helper, bounds and reaps it, reports. Never execs, so its own exit signal stays
/// none and the host never sees it.
int KeeperMain(void* arg) {
  const Shared* s = static_cast<const Shared*>(arg);
  DieWithParent(s->host);
  Launch launch{s, Sys6(SYS_getpid)};
  // SIGCHLD must become pending here even if the host ignores it (SIG_IGN would also reap the helper).
  KernelSigaction dfl{};
  Sys6(SYS_rt_sigaction, SIGCHLD, reinterpret_cast<long>(&dfl), 0, kSigsetBytes);
  int keep[] = {s->data_w, s->err_r, s->err_w, s->status_w};
  CloseAllBut(keep, 4);  // the host's other descriptors (a `$(...)` pipe) are not held open by us
  Final f{0, 0, kExec, 0, 0, kNotProbed};
  int pid = clone(HelperMain, s->helper_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &launch);
  if (pid < 0) f.clone_errno = errno != 0 ? errno : EAGAIN;
  Sys6(SYS_close, s->err_w);
  Sys6(SYS_close, s->data_w);
  int32_t p = pid > 0 ? pid : 0;
  Sys6(SYS_write, s->status_w, reinterpret_cast<long>(&p), sizeof(p));
  if (pid > 0) {
    StepError e{kExec, 0};
    if (Sys6(SYS_read, s->err_r, reinterpret_cast<long>(&e), sizeof(e)) == sizeof(e)) {
      f.exec_step = e.step >= 0 && e.step < kStepCount ? e.step : kExec;
      f.exec_errno = e.errno_value;
    }
    f.status = WaitBounded(pid, s->timeout_ms, &f.timed_out);
  }
  Sys6(SYS_close, s->err_r);
  if (s->probe) {
    int probe = clone(ProbeMain, s->helper_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, nullptr);
    int status = 0;
    if (probe > 0) {
      while (Sys6(SYS_wait4, probe, reinterpret_cast<long>(&status), 0, 0) == -EINTR) {
      }
      f.probe = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
    }
  }
  Sys6(SYS_write, s->status_w, reinterpret_cast<long>(&f), sizeof(f));
  return 0;
}

/// A close-on-exec pipe whose ends are both >= 3 (a host with 0, 1 or 2 closed would otherwise hand one
/// out, and the helper's dup3 onto 0..2 would close it).
bool Pipe(int fds[2]) {
  if (Sys6(SYS_pipe2, reinterpret_cast<long>(fds), O_CLOEXEC) != 0) return false;
  for (int i = 0; i < 2; ++i) {
    if (fds[i] > 2) continue;
    long moved = Sys6(SYS_fcntl, fds[i], F_DUPFD_CLOEXEC, 3);
    Sys6(SYS_close, fds[i]);
    if (moved < 0) {
      Sys6(SYS_close, fds[1 - i]);
      return false;
    }
    fds[i] = static_cast<int>(moved);
  }
  return true;
}

/// The first of `watched` pending for the calling thread or its process, 0 when none is.
int PendingStop(uint64_t watched) {
  uint64_t pending = 0;
  Sys6(SYS_rt_sigpending, reinterpret_cast<long>(&pending), kSigsetBytes);
  for (int sig : kStopSignals) {
    if ((pending & watched & Bit(sig)) != 0) return sig;
  }
  return 0;
}

/// Appends up to what `fd` has to run->out, growing the mapping; false at end of file or error.
bool ReadSome(int fd, size_t cap, HelperRun* run, size_t* mapped) {
  if (run->size == *mapped) {
    size_t bigger = *mapped == 0 ? 65536 : *mapped * 2;
    void* p = *mapped == 0
                  ? reinterpret_cast<void*>(Sys6(SYS_mmap, 0, static_cast<long>(bigger),
                                                 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
                  : reinterpret_cast<void*>(Sys6(SYS_mremap, reinterpret_cast<long>(run->out),
                                                 static_cast<long>(*mapped), static_cast<long>(bigger),
                                                 MREMAP_MAYMOVE));
    if (reinterpret_cast<long>(p) < 0 && reinterpret_cast<long>(p) > -4096) return false;
    run->out = static_cast<char*>(p);
    *mapped = bigger;
  }
  size_t want = *mapped - run->size;
  if (want > cap + 1 - run->size) want = cap + 1 - run->size;  // one byte past the cap tells "too much"
  long got = Sys6(SYS_read, fd, reinterpret_cast<long>(run->out + run->size), static_cast<long>(want));
  if (got == -EINTR || got == -EAGAIN) return true;
  if (got <= 0) return false;
  run->size += static_cast<size_t>(got);
  return run->size <= cap;
}

}  // namespace

bool RunHelper(const char* path, char* const argv[], char* const envp[], int timeout_ms, size_t cap,
               bool probe_mempolicy, HelperRun* run) {
  *run = HelperRun();
  Text why{run->why, sizeof(run->why)};
  char name[16];  // an errno's or a signal's name, when it has none of its own
  long start = NowMs();
  int data[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1};
  if (!Pipe(data) || !Pipe(err) || !Pipe(status)) {
    int opened[] = {data[0], data[1], err[0], err[1]};
    for (int fd : opened) {
      if (fd >= 0) Sys6(SYS_close, fd);
    }
    why.Str("pipe failed");
    return false;
  }
  long stacks = Sys6(SYS_mmap, 0, 2 * kStackSize, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  Shared s{Sys6(SYS_getpid),
           path,
           argv,
           envp,
           data[1],
           err[0],
           err[1],
           status[1],
           timeout_ms,
           probe_mempolicy,
           reinterpret_cast<char*>(stacks) + 2 * kStackSize};
  int keeper = -1;
  // The stop signals the host does not ignore are blocked in this thread while it waits, so that one that
  // comes stays pending, where a signalfd sees it: the wait then ends at once (the helper killed), and the
  // signal acts when the mask is restored, on return: its default action, or a handler that asks the
  // caller to stop (Python's runs when the interpreter regains control: the spawn must return for it).
  // Waiting with them unblocked could not tell which signal interrupted it, and a host that had them
  // blocked (CPython's subprocess blocks every signal around its vfork) never is interrupted.
  uint64_t old = 0, watched = 0;
  for (int sig : kStopSignals) {
    KernelSigaction act{};
    if (Sys6(SYS_rt_sigaction, sig, 0, reinterpret_cast<long>(&act), kSigsetBytes) == 0 &&
        act.handler != SIG_IGN) {
      watched |= Bit(sig);
    }
  }
  if (stacks < 0 && stacks > -4096) {
    why.Str("mmap ").Str(ErrnoShortName(static_cast<int>(-stacks), name));
  } else {
    // Every signal blocked across the clone: no handler of the host may run in the keeper (it has the
    // host's memory and TLS). The raw call also blocks the C library's internal signals.
    uint64_t all = ~0ULL;
    Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&all), reinterpret_cast<long>(&old),
         kSigsetBytes);
    int saved_errno = errno;
    keeper = clone(KeeperMain, reinterpret_cast<char*>(stacks) + kStackSize, CLONE_VM, &s);  // no exit signal
    if (keeper < 0) why.Str("clone ").Str(ErrnoShortName(errno, name));
    errno = saved_errno;
    uint64_t waiting = keeper > 0 ? old | watched : old;
    Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&waiting), 0, kSigsetBytes);
  }
  // Made after the clone: the keeper never holds it.
  int stop_fd = keeper > 0 && watched != 0
                    ? static_cast<int>(Sys6(SYS_signalfd4, -1, reinterpret_cast<long>(&watched), kSigsetBytes,
                                            kSfdNonblockCloexec))
                    : -1;
  int stop = 0;
  int theirs[] = {data[1], err[0], err[1], status[1]};
  for (int fd : theirs) Sys6(SYS_close, fd);

  // Read the helper's output and the keeper's reports until both end, within the keeper's bound + margin.
  char reports[sizeof(int32_t) + sizeof(Final)];
  size_t reported = 0, mapped = 0;
  bool data_open = keeper > 0, status_open = keeper > 0, too_much = false;
  long deadline = start + timeout_ms + kMarginMs;
  while ((data_open || status_open) && (stop = PendingStop(watched)) == 0) {
    long left = deadline - NowMs();
    if (left <= 0) break;
    if (stop_fd < 0 && left > 100) left = 100;  // no signalfd (a seccomp filter?): look every 100 ms
    pollfd fds[3];
    int n = 0;
    if (data_open) fds[n++] = {data[0], POLLIN, 0};
    if (status_open) fds[n++] = {status[0], POLLIN, 0};
    if (stop_fd >= 0) fds[n++] = {stop_fd, POLLIN, 0};  // never read: the signal stays pending
    timespec ts{left / 1000, (left % 1000) * 1000000L};
    long r = Sys6(SYS_ppoll, reinterpret_cast<long>(fds), n, reinterpret_cast<long>(&ts), 0, kSigsetBytes);
    if (r == -EINTR || r == 0) continue;
    if (r < 0) break;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == stop_fd) continue;
      if (fds[i].fd == data[0]) {
        data_open = ReadSome(data[0], cap, run, &mapped);
        too_much = run->size > cap;
      } else {
        long got = Sys6(SYS_read, status[0], reinterpret_cast<long>(reports + reported),
                        static_cast<long>(sizeof(reports) - reported));
        if (got > 0) reported += static_cast<size_t>(got);
        status_open = got > 0 || got == -EINTR;
      }
    }
    if (too_much) break;
    if (reported == sizeof(int32_t) + sizeof(Final) && data_open) {
      // The helper is reaped: take what it left in the pipe, but wait for no one else (a child of the
      // helper's that kept its standard output).
      pollfd fd{data[0], POLLIN, 0};
      timespec now{0, 0};
      while (data_open && !too_much &&
             Sys6(SYS_ppoll, reinterpret_cast<long>(&fd), 1, reinterpret_cast<long>(&now), 0, kSigsetBytes) >
                 0) {
        data_open = ReadSome(data[0], cap, run, &mapped);
        too_much = run->size > cap;
      }
      break;
    }
  }
  Sys6(SYS_close, data[0]);  // past the cap: the helper's next write fails (EPIPE, SIGPIPE)
  if (too_much && status_open) {
    // Wait for the keeper's report of the helper's end (bounded by the keeper's timeout).
    while (reported < sizeof(reports) && NowMs() < deadline && (stop = PendingStop(watched)) == 0) {
      pollfd fd{status[0], POLLIN, 0};
      timespec ts{0, 100 * 1000000L};
      if (Sys6(SYS_ppoll, reinterpret_cast<long>(&fd), 1, reinterpret_cast<long>(&ts), 0, kSigsetBytes) <= 0)
        continue;
      long got = Sys6(SYS_read, status[0], reinterpret_cast<long>(reports + reported),
                      static_cast<long>(sizeof(reports) - reported));
      if (got <= 0) break;
      reported += static_cast<size_t>(got);
    }
  }
  Final f{0, 0, kExec, 0, 0, kNotProbed};
  bool complete = reported == sizeof(reports);
  if (complete) {
    stop = 0;  // the helper's answer came all the same
    for (size_t i = 0; i < sizeof(f); ++i) reinterpret_cast<char*>(&f)[i] = reports[sizeof(int32_t) + i];
  } else if (keeper > 0) {
    // The keeper stalled (stopped?) or a stop signal came: end both, the helper first (not reaped yet: its
    // pid is still its own).
    int32_t helper = 0;
    if (reported >= sizeof(helper)) {
      for (size_t i = 0; i < sizeof(helper); ++i) reinterpret_cast<char*>(&helper)[i] = reports[i];
    }
    if (helper > 0) Sys6(SYS_kill, helper, SIGKILL);
    Sys6(SYS_kill, keeper, SIGKILL);
  }
  Sys6(SYS_close, status[0]);
  if (stop_fd >= 0) Sys6(SYS_close, stop_fd);
  if (keeper > 0) {
    int st = 0;
    while (Sys6(SYS_wait4, keeper, reinterpret_cast<long>(&st), __WCLONE, 0) == -EINTR) {
    }
  }
  // Left mapped when the keeper was killed: its helper (before its exec) or probe may still run on them.
  if ((stacks > 0 || stacks < -4096) && (keeper < 0 || complete)) Sys6(SYS_munmap, stacks, 2 * kStackSize);
  run->elapsed_ms = NowMs() - start;

  if (keeper < 0) {
    // why already says it
  } else if (stop != 0) {
    why.Str("interrupted by ").Str(SignalName(stop, name));
  } else if (!complete) {
    why.Str("timed out after ").Num(timeout_ms + kMarginMs).Str(" ms");
  } else if (f.clone_errno != 0) {
    why.Str("clone ").Str(ErrnoShortName(f.clone_errno, name));
  } else if (f.exec_errno != 0) {
    why.Str(kStepNames[f.exec_step]).Str(" ").Str(ErrnoShortName(f.exec_errno, name));
  } else if (too_much) {
    why.Str("wrote more than ").Num(static_cast<long>(cap)).Str(" bytes");
  } else if (f.timed_out) {
    why.Str("timed out after ").Num(timeout_ms).Str(" ms");
  } else if (WIFSIGNALED(f.status)) {
    why.Str("killed by ").Str(SignalName(WTERMSIG(f.status), name));
  } else if (WEXITSTATUS(f.status) != 0) {
    why.Str("exited ").Num(WEXITSTATUS(f.status));
  }
  Text mp{run->mempolicy, sizeof(run->mempolicy)};
  if (f.probe > 0)
    mp.Str(ErrnoShortName(f.probe, name));
  else if (f.probe < 0 && f.probe != kNotProbed)
    mp.Str("killed by ").Str(SignalName(-f.probe, name));
  run->mapped = mapped;
  if (run->why[0] != '\0') FreeHelperOutput(run);  // on success the caller keeps what run->out holds
  // A pending stop signal acts now (the process may end here, its helper gone).
  if (keeper > 0) Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&old), 0, kSigsetBytes);
  return run->why[0] == '\0';
}

void FreeHelperOutput(HelperRun* run) {
  if (run->out != nullptr) Sys6(SYS_munmap, reinterpret_cast<long>(run->out), static_cast<long>(run->mapped));
  run->out = nullptr;
  run->size = 0;
  run->mapped = 0;
}

const char* ErrnoShortName(int e, char* buf) {
  switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case E2BIG: return "E2BIG";
    case ENOEXEC: return "ENOEXEC";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case ENFILE: return "ENFILE";
    case EMFILE: return "EMFILE";
    case ETXTBSY: return "ETXTBSY";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOSYS: return "ENOSYS";
    case ELOOP: return "ELOOP";
    case ELIBBAD: return "ELIBBAD";
    default: break;
  }
  Text t{buf, 16};
  t.Str("errno ").Num(e);
  return buf;
}

const char* SignalName(int sig, char* buf) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: break;
  }
  Text t{buf, 16};
  t.Str("signal ").Num(sig);
  return buf;
}

}  // namespace numabind::shim
