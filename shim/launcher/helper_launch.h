// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Starting a helper program from inside a host process without the host ever noticing, the way musl's
// posix_spawn starts a child: every signal blocked across the clone and reset in the child, only the pipe's
// descriptor kept, the exec error sent back over a close-on-exec pipe and the wait status decoded into a
// message. Two processes are made:
//
//   host --clone(CLONE_VM, no exit signal)--> keeper --clone(CLONE_VM|CLONE_VFORK, SIGCHLD)--> helper (execs)
//
// The kernel gives every process that execs an exit signal (SIGCHLD), so the exec'd helper cannot be the
// host's child without the host seeing it. The keeper never execs: its exit sends the host nothing, and
// only waits with __WCLONE or __WALL see it, so the host's wait(-1), waitid(P_ALL) and SIGCHLD handler never
// do. The keeper starts the helper, bounds its run time, reaps it and reports back over a second pipe.
//
// Everything here is async-signal-safe (raw system calls, mmap, no malloc or locks), so it may run in a
// signal handler's _Fork or from a thread with a small stack.

#ifndef NUMABIND_SHIM_LAUNCHER_HELPER_LAUNCH_H_
#define NUMABIND_SHIM_LAUNCHER_HELPER_LAUNCH_H_

#include <stddef.h>

namespace numabind::shim {

struct HelperRun {
  /// What the helper wrote to its standard output, at most the cap: mmap'd, release with FreeHelperOutput.
  char* out = nullptr;
  size_t size = 0;
  size_t mapped = 0;  ///< the mapping's length
  /// Why the run failed, "" when it exited 0 in time: "exec ENOENT", "open /dev/null ENOENT" (the step
  /// before the exec that failed), "exited 3", "killed by SIGSEGV", "timed out after 10000 ms", "wrote
  /// more than 16777216 bytes", "clone EAGAIN".
  char why[64] = {0};
  /// The set_mempolicy probe (probe_mempolicy): "" when a process may set its memory policy, else why not
  /// ("EPERM", "ENOSYS", "killed by SIGSYS"): a seccomp profile may kill on it, so the host never tries.
  char mempolicy[32] = {0};
  long elapsed_ms = 0;
};

/// Parent side, async-signal-safe: runs `path` (absolute) with argv and envp, its standard output on a pipe,
/// standard input and error on /dev/null, no other descriptor, every signal default and unblocked. Waits
/// at most timeout_ms (then kills it) and reads at most `cap` bytes (more kills it). With probe_mempolicy,
/// the keeper also tries set_mempolicy (to the policy it has) in a child of its own. True when the helper
/// exited 0; run->why says why not.
bool RunHelper(const char* path, char* const argv[], char* const envp[], int timeout_ms, size_t cap,
               bool probe_mempolicy, HelperRun* run);

/// Releases run->out.
void FreeHelperOutput(HelperRun* run);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LAUNCHER_HELPER_LAUNCH_H_
