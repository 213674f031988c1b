// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The host's side of shim/launcher/helper_launch.h: pipes, the keeper's stacks and clone, its end, and the
// message. The wait is in helper_wait.cc, the keeper and the helper in helper_procs.cc.

#include "shim/launcher/helper_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "base/syscalls.h"
#include "base/text.h"
#include "base/text_writer.h"
#include "shim/launcher/helper_procs.h"
#include "shim/launcher/stop_signals.h"

namespace numabind::shim {
namespace {

using base::TextWriter;
using helper::Bit;
using helper::Final;
using helper::Host;
using helper::KernelSigaction;
using helper::kNotProbed;
using helper::kSigsetBytes;
using helper::kStackSize;
using helper::kStopSignals;
using helper::NowMs;

constexpr int kMarginMs = 2000;  // the host's own bound beyond the keeper's, should the keeper stall
constexpr long kSfdNonblockCloexec = 04000 | 02000000;  // SFD_NONBLOCK | SFD_CLOEXEC
constexpr char kStepNames[helper::kStepCount][16] = {"exec", "dup3 stdout", "open /dev/null",
                                                     "dup3 /dev/null"};

/// A close-on-exec pipe whose ends are both >= 3 (a host with 0, 1 or 2 closed would otherwise hand one
/// out, and the helper's dup3 onto 0..2 would close it).
bool Pipe(int fds[2]) {
  if (base::Sys6(SYS_pipe2, reinterpret_cast<long>(fds), O_CLOEXEC) != 0) return false;
  for (int i = 0; i < 2; ++i) {
    if (fds[i] > 2) continue;
    long moved = base::Sys6(SYS_fcntl, fds[i], F_DUPFD_CLOEXEC, 3);
    base::Sys6(SYS_close, fds[i]);
    if (moved < 0) {
      base::Sys6(SYS_close, fds[1 - i]);
      return false;
    }
    fds[i] = static_cast<int>(moved);
  }
  return true;
}

/// The three pipes, or false with none left open.
bool OpenPipes(Host* h) {
  if (Pipe(h->data) && Pipe(h->err) && Pipe(h->status)) return true;
  int opened[] = {h->data[0], h->data[1], h->err[0], h->err[1]};
  for (int fd : opened) {
    if (fd >= 0) base::Sys6(SYS_close, fd);
  }
  return false;
}

// The stop signals the host does not ignore are blocked in this thread while it waits, as
// shim/launcher/stop_signals.h explains; here they are added to the mask that ends the clone's.

/// Clones the keeper with every signal blocked across the clone: no handler of the host may run in the
/// keeper (it has the host's memory and TLS); the raw call also blocks the C library's internal signals.
/// Then waits with the stop signals blocked too, and a signalfd on them (made after the clone: the keeper
/// never holds it). Closes the host's copies of the other processes' pipe ends.
void StartKeeper(Host* h, helper::Shared* s, TextWriter* why) {
  char name[base::kErrnoSymbolMax];
  h->watched = WatchedStopSignals();
  if (base::SysFailed(h->stacks)) {
    why->Str("mmap ").Str(base::ErrnoSymbol(static_cast<int>(-h->stacks), name));
  } else {
    uint64_t all = ~0ULL;
    base::Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&all),
               reinterpret_cast<long>(&h->old_mask), kSigsetBytes);
    int saved_errno = errno;
    h->keeper = clone(helper::KeeperMain, reinterpret_cast<char*>(h->stacks) + kStackSize, CLONE_VM,
                      s);  // no exit signal
    if (h->keeper < 0) why->Str("clone ").Str(base::ErrnoSymbol(errno, name));
    errno = saved_errno;
    uint64_t waiting = h->keeper > 0 ? h->old_mask | h->watched : h->old_mask;
    base::Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&waiting), 0, kSigsetBytes);
  }
  if (h->keeper > 0 && h->watched != 0) {
    h->stop_fd = static_cast<int>(base::AboveStdio(base::Sys6(
        SYS_signalfd4, -1, reinterpret_cast<long>(&h->watched), kSigsetBytes, kSfdNonblockCloexec)));
  }
  int theirs[] = {h->data[1], h->err[0], h->err[1], h->status[1]};
  for (int fd : theirs) base::Sys6(SYS_close, fd);
  h->data_open = h->status_open = h->keeper > 0;
}

/// Takes the keeper's Final when it came whole (true); else ends the keeper and the helper, the helper
/// first (not reaped yet: its pid is still its own). Then reaps the keeper, closes the host's descriptors
/// and unmaps the stacks, unless a killed keeper's helper (before its exec) or probe may still run on them.
bool EndKeeper(Host* h, Final* f) {
  bool complete = h->reported == sizeof(h->reports);
  if (complete) {
    h->stop = 0;  // the helper's answer came all the same
    for (size_t i = 0; i < sizeof(*f); ++i) reinterpret_cast<char*>(f)[i] = h->reports[sizeof(int32_t) + i];
  } else if (h->keeper > 0) {
    int32_t pid = 0;
    if (h->reported >= sizeof(pid)) {
      for (size_t i = 0; i < sizeof(pid); ++i) reinterpret_cast<char*>(&pid)[i] = h->reports[i];
    }
    if (pid > 0) base::Sys6(SYS_kill, pid, SIGKILL);
    base::Sys6(SYS_kill, h->keeper, SIGKILL);
  }
  base::Sys6(SYS_close, h->status[0]);
  if (h->stop_fd >= 0) base::Sys6(SYS_close, h->stop_fd);
  if (h->keeper > 0) {
    int st = 0;
    while (base::Sys6(SYS_wait4, h->keeper, reinterpret_cast<long>(&st), __WCLONE, 0) == -EINTR) {
    }
  }
  if (!base::SysFailed(h->stacks) && (h->keeper < 0 || complete))
    base::Sys6(SYS_munmap, h->stacks, 2 * kStackSize);
  return complete;
}

/// Says in run->why why the run failed (nothing when it did not), and in run->mempolicy what the probe
/// found.
void Describe(const Host& h, const Final& f, bool complete, int timeout_ms, size_t cap, HelperRun* run) {
  TextWriter why{run->why, sizeof(run->why), base::StrLen(run->why)};
  char name[base::kErrnoSymbolMax];
  if (h.keeper < 0) {
    // why already says it
  } else if (h.stop != 0) {
    why.Str("interrupted by ").Str(base::SignalName(h.stop, name));
  } else if (!complete) {
    why.Str("timed out after ").Int(timeout_ms + kMarginMs).Str(" ms");
  } else if (f.clone_errno != 0) {
    why.Str("clone ").Str(base::ErrnoSymbol(f.clone_errno, name));
  } else if (f.exec_errno != 0) {
    why.Str(kStepNames[f.exec_step]).Str(" ").Str(base::ErrnoSymbol(f.exec_errno, name));
  } else if (h.too_much) {
    why.Str("wrote more than ").Uint(cap).Str(" bytes");
  } else if (f.timed_out) {
    why.Str("timed out after ").Int(timeout_ms).Str(" ms");
  } else if (WIFSIGNALED(f.status)) {
    why.Str("killed by ").Str(base::SignalName(WTERMSIG(f.status), name));
  } else if (WEXITSTATUS(f.status) != 0) {
    why.Str("exited ").Int(WEXITSTATUS(f.status));
  }
  TextWriter mp{run->mempolicy, sizeof(run->mempolicy), 0};
  if (f.probe > 0)
    mp.Str(base::ErrnoSymbol(f.probe, name));
  else if (f.probe < 0 && f.probe != kNotProbed)
    mp.Str("killed by ").Str(base::SignalName(-f.probe, name));
}

}  // namespace

bool RunHelper(const char* path, char* const argv[], char* const envp[], int timeout_ms, size_t cap,
               bool probe_mempolicy, HelperRun* run) {
  *run = HelperRun();
  long start = NowMs();
  Host h;
  if (!OpenPipes(&h)) {
    TextWriter{run->why, sizeof(run->why), 0}.Str("pipe failed");
    return false;
  }
  h.stacks = base::Sys6(SYS_mmap, 0, 2 * kStackSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  helper::Shared s{base::Sys6(SYS_getpid),
                   path,
                   argv,
                   envp,
                   h.data[1],
                   h.err[0],
                   h.err[1],
                   h.status[1],
                   timeout_ms,
                   probe_mempolicy,
                   reinterpret_cast<char*>(h.stacks) + 2 * kStackSize};
  TextWriter why{run->why, sizeof(run->why), 0};
  StartKeeper(&h, &s, &why);
  long deadline = start + timeout_ms + kMarginMs;
  helper::Collect(&h, cap, deadline, run);
  base::Sys6(SYS_close, h.data[0]);  // past the cap: the helper's next write fails (EPIPE, SIGPIPE)
  if (h.too_much && h.status_open) helper::AwaitReport(&h, deadline);
  Final f{0, 0, helper::kExec, 0, 0, kNotProbed};
  bool complete = EndKeeper(&h, &f);
  run->elapsed_ms = NowMs() - start;
  Describe(h, f, complete, timeout_ms, cap, run);
  run->mapped = h.mapped;
  if (run->why[0] != '\0') FreeHelperOutput(run);  // on success the caller keeps what run->out holds
  // A pending stop signal acts now (the process may end here, its helper gone).
  if (h.keeper > 0)
    base::Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&h.old_mask), 0, kSigsetBytes);
  return run->why[0] == '\0';
}

void FreeHelperOutput(HelperRun* run) {
  if (run->out != nullptr)
    base::Sys6(SYS_munmap, reinterpret_cast<long>(run->out), static_cast<long>(run->mapped));
  run->out = nullptr;
  run->size = 0;
  run->mapped = 0;
}

}  // namespace numabind::shim
