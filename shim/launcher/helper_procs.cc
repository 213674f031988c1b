// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The keeper and the helper (shim/launcher/helper_procs.h). Both share the host's memory (CLONE_VM) and run
// on stacks the host mapped: they make raw system calls only and write nothing but their own stacks. One
// exception, in the keeper: libc's clone() sets the host thread's errno when it fails (the keeper runs with
// that thread's TLS); the host reads errno from no system call of its own meanwhile.

#include "shim/launcher/helper_procs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "base/syscalls.h"

#ifndef SYS_close_range
#define SYS_close_range 436  // the same number on every architecture; older headers lack it
#endif

namespace numabind::shim::helper {
namespace {

/// Closes descriptors lo..hi; before Linux 5.9 (no close_range) one by one up to the descriptor limit.
void CloseRange(unsigned lo, unsigned hi) {
  if (lo > hi || base::Sys6(SYS_close_range, lo, hi, 0) != -ENOSYS) return;
  rlimit lim{};
  unsigned max = 65536;
  if (base::Sys6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, reinterpret_cast<long>(&lim)) == 0 &&
      lim.rlim_cur < max) {
    max = static_cast<unsigned>(lim.rlim_cur);
  }
  for (unsigned fd = lo; fd <= hi && fd < max; ++fd) base::Sys6(SYS_close, fd);
}

/// What the keeper hands the helper (on the keeper's stack).
struct Launch {
  const Shared* shared;
  long keeper;  // the keeper's pid: the helper's parent
};

/// Ends the calling process with its parent thread (PR_SET_PDEATHSIG), or now when the parent already ended:
/// a launcher killed while preparing leaves no keeper or helper behind.
void DieWithParent(long parent) {
  base::Sys6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
  if (base::Sys6(SYS_getppid) != parent) base::Sys6(SYS_exit_group, 127);
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
    if (base::Sys6(SYS_rt_sigaction, sig, 0, reinterpret_cast<long>(&old), kSigsetBytes) == 0 &&
        old.handler != nullptr) {
      base::Sys6(SYS_rt_sigaction, sig, reinterpret_cast<long>(&dfl), 0, kSigsetBytes);
    }
  }
  StepError e{kDupOutput, 0};
  long r = base::Sys6(SYS_dup3, s->data_w, 1, 0);  // data_w >= 3 (the host saw to it)
  long nul = -1;
  if (r >= 0) {
    e.step = kOpenNull;
    r = nul = base::OpenAt(AT_FDCWD, "/dev/null", O_RDWR);
  }
  if (nul >= 0) {
    e.step = kDupNull;
    if (nul != 0) r = base::Sys6(SYS_dup3, nul, 0, 0);
    if (r >= 0 && nul != 2) r = base::Sys6(SYS_dup3, nul, 2, 0);
    if (nul > 2) base::Sys6(SYS_close, nul);
  }
  if (r >= 0) {
    e.step = kExec;
    int keep[] = {0, 1, 2, s->err_w};
    CloseAllBut(keep, 4);
    uint64_t none = 0;
    base::Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&none), 0, kSigsetBytes);
    r = base::Sys6(SYS_execve, reinterpret_cast<long>(s->path), reinterpret_cast<long>(s->argv),
                   reinterpret_cast<long>(s->envp));
  }
  e.errno_value = static_cast<int32_t>(-r);
  base::Sys6(SYS_write, s->err_w, reinterpret_cast<long>(&e), sizeof(e));
  base::Sys6(SYS_exit_group, 127);
  return 127;
}

/// The probe: tries set_mempolicy to the policy it has; exits 0 or with the errno.
int ProbeMain(void*) {
  int mode = 0;
  uint64_t nodes[16] = {0};  // 1024 nodes
  long r =
      base::Sys6(SYS_get_mempolicy, reinterpret_cast<long>(&mode), reinterpret_cast<long>(nodes), 1024, 0, 0);
  if (r == 0) r = base::Sys6(SYS_set_mempolicy, mode, reinterpret_cast<long>(nodes), 1024);
  base::Sys6(SYS_exit_group, r < 0 ? -r : 0);
  return 0;
}

/// Waits for `pid` at most timeout_ms (SIGCHLD, blocked here, is waited for with sigtimedwait), then
/// kills it. Returns its wait status.
int WaitBounded(long pid, int timeout_ms, int32_t* timed_out) {
  long start = NowMs();
  uint64_t chld = 1ULL << (SIGCHLD - 1);
  for (;;) {
    int status = 0;
    long r = base::Sys6(SYS_wait4, pid, reinterpret_cast<long>(&status), WNOHANG, 0);
    if (r == pid) return status;
    if (r < 0 && r != -EINTR) return 0;
    long left = timeout_ms - (NowMs() - start);
    if (left <= 0) {
      *timed_out = 1;
      base::Sys6(SYS_kill, pid, SIGKILL);
      while (base::Sys6(SYS_wait4, pid, reinterpret_cast<long>(&status), 0, 0) == -EINTR) {
      }
      return status;
    }
    timespec ts{left / 1000, (left % 1000) * 1000000L};
    base::Sys6(SYS_rt_sigtimedwait, reinterpret_cast<long>(&chld), 0, reinterpret_cast<long>(&ts),
               kSigsetBytes);
  }
}

}  // namespace

long NowMs() {
  timespec ts{};
  base::Sys6(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&ts));
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

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

int KeeperMain(void* arg) {
  const Shared* s = static_cast<const Shared*>(arg);
  DieWithParent(s->host);
  Launch launch{s, base::Sys6(SYS_getpid)};
  // SIGCHLD must become pending here even if the host ignores it (SIG_IGN would also reap the helper).
  KernelSigaction dfl{};
  base::Sys6(SYS_rt_sigaction, SIGCHLD, reinterpret_cast<long>(&dfl), 0, kSigsetBytes);
  int keep[] = {s->data_w, s->err_r, s->err_w, s->status_w};
  CloseAllBut(keep, 4);  // the host's other descriptors (a `$(...)` pipe) are not held open by us
  Final f{0, 0, kExec, 0, 0, kNotProbed};
  int pid = clone(HelperMain, s->helper_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &launch);
  if (pid < 0) f.clone_errno = errno != 0 ? errno : EAGAIN;
  base::Sys6(SYS_close, s->err_w);
  base::Sys6(SYS_close, s->data_w);
  int32_t p = pid > 0 ? pid : 0;
  base::Sys6(SYS_write, s->status_w, reinterpret_cast<long>(&p), sizeof(p));
  if (pid > 0) {
    StepError e{kExec, 0};
    if (base::Sys6(SYS_read, s->err_r, reinterpret_cast<long>(&e), sizeof(e)) == sizeof(e)) {
      f.exec_step = e.step >= 0 && e.step < kStepCount ? e.step : kExec;
      f.exec_errno = e.errno_value;
    }
    f.status = WaitBounded(pid, s->timeout_ms, &f.timed_out);
  }
  base::Sys6(SYS_close, s->err_r);
  if (s->probe) {
    int probe = clone(ProbeMain, s->helper_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, nullptr);
    int status = 0;
    if (probe > 0) {
      while (base::Sys6(SYS_wait4, probe, reinterpret_cast<long>(&status), 0, 0) == -EINTR) {
      }
      f.probe = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
    }
  }
  base::Sys6(SYS_write, s->status_w, reinterpret_cast<long>(&f), sizeof(f));
  return 0;
}

}  // namespace numabind::shim::helper
