// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The processes of shim/launcher/helper_launch.h and what they share: the keeper and the helper
// (helper_procs.cc), the host's start and end of a run (helper_launch.cc) and its wait for the helper's
// output and the keeper's report (helper_wait.cc). Internal to the launcher side.

#ifndef NUMABIND_SHIM_LAUNCHER_HELPER_PROCS_H_
#define NUMABIND_SHIM_LAUNCHER_HELPER_PROCS_H_

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/launcher/helper_launch.h"

namespace numabind::shim::helper {

constexpr long kStackSize = 64L * 1024;  // each of the keeper's and the helper's (both use far less)
constexpr long kSigsetBytes = 8;         // the kernel's sigset_t: 64 signals
constexpr int32_t kNotProbed = INT32_MIN;
constexpr int kStopSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};  // a process asked to stop

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

/// What the helper sends over the close-on-exec pipe when a step fails (below PIPE_BUF, so whole).
struct StepError {
  int32_t step;
  int32_t errno_value;
};

/// One run as the host sees it.
struct Host {
  int data[2] = {-1, -1};    // the helper's standard output
  int err[2] = {-1, -1};     // the helper's failed step, to the keeper
  int status[2] = {-1, -1};  // the keeper's reports
  long stacks = -ENOMEM;     // the keeper's and the helper's stacks, or -errno
  int keeper = -1;
  uint64_t old_mask = 0;
  uint64_t watched = 0;  // the stop signals the host does not ignore
  int stop_fd = -1;
  int stop = 0;  // the stop signal that ended the wait
  char reports[sizeof(int32_t) + sizeof(Final)];
  size_t reported = 0;
  size_t mapped = 0;
  bool data_open = false;
  bool status_open = false;
  bool too_much = false;
};

/// Reads the helper's output (into run->out, at most `cap` bytes: one more sets h->too_much) and the
/// keeper's reports until both end, or a stop signal comes (h->stop), within `deadline` (NowMs()).
void Collect(Host* h, size_t cap, long deadline, HelperRun* run);

/// Past the cap: waits for the keeper's report of the helper's end (bounded by `deadline`).
void AwaitReport(Host* h, long deadline);

/// The keeper (clone's entry point, `arg` the host's Shared): starts the helper, bounds and reaps it, probes
/// set_mempolicy when asked, and reports on status_w: the helper's pid, then a Final. Never execs, so its
/// own exit signal stays none and the host never sees it.
int KeeperMain(void* arg);

/// Closes every descriptor but the n in keep (n <= 4; sorted in place).
void CloseAllBut(int* keep, int n);

/// CLOCK_MONOTONIC in milliseconds.
long NowMs();

}  // namespace numabind::shim::helper

#endif  // NUMABIND_SHIM_LAUNCHER_HELPER_PROCS_H_
