// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A bound rank's end, for `numabind report` (WriteRankEnd, with a JSON log file): written by the rank's own
// process (g_role's pid) whichever way it exits by itself: `exit` and `main`'s return (the destructor),
// `_exit` and `_Exit` (their wrappers: dash leaves by `_exit`, Python's `os._exit`, a forked worker). A fatal
// signal, SIGKILL and a raw exit_group end a rank without one (docs/log.md, docs/limits.md). The root of a
// tree of ranks by order removes its counter page the same ways.

#include <unistd.h>

#include "base/syscalls.h"
#include "shim/child/order_counter.h"
#include "shim/launcher/launch_id.h"
#include "shim/log/log.h"
#include "shim/rank/locality.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

/// Set once the rank's end line is written: a destructor that calls _exit, or two threads that exit at once,
/// write one line. Only the rank's own process ever sets it (never a vfork child, whose pid is another).
int g_end_written;

/// Child-safe and async-signal-safe: raw system calls and the stack. The rank's end line, when this process
/// is the rank (Role::ends and pid: one that bound itself, or whose NUMABIND_BOUND proof names it), named by
/// the launch its line names: its own lines' (a rank that bound itself), else its launcher's, its parent.
/// A child of the rank (fork, vfork, or a program it runs) has another pid and writes nothing.
__attribute__((noinline)) void EndRank() {
  pid_t self = static_cast<pid_t>(base::Sys6(SYS_getpid));
  if (g_role.pid != self) return;
  if (__atomic_exchange_n(&g_end_written, 1, __ATOMIC_ACQ_REL) != 0) return;
  char launch[kLaunchMax];
  const char* token = g_prepared.launch;
  if (token[0] == '\0') {
    FormatLaunch(static_cast<pid_t>(base::Sys6(SYS_getppid)), g_startup.facts, launch);
    token = launch;
  }
  Locality where;  // where its memory and threads are now (NUMABIND_LOCALITY)
  MeasureLocality(&where);
  WriteRankEnd(self, token, where);
}

/// Whether this process may be the rank whose end to write: a load and a branch in a process that is no
/// rank (a rank's command), a call into .text.hot in a rank without a JSON log file; neither reaches
/// EndRank's page.
inline bool MayEndRank() { return g_role.ends && RecordsRanks(); }

/// The by-order counter page of the tree this process is the root of (CheckOrderCounter set
/// order_counter_pid), removed as it ends; one left behind (a root killed) is removed by the next tree's
/// creator (shim/child/order_counter.h). A vfork child of the root has another pid and removes nothing.
inline void EndOrderTree() {
  if (g_prepared.order_counter_pid != 0 && g_prepared.order_counter_pid == base::Sys6(SYS_getpid))
    RemoveOwnOrderCounter();
}

// A destructor runs at exit() and at main's return. Every other process pays two loads and branches.
__attribute__((destructor)) void Fini() {
  if (MayEndRank()) EndRank();
  EndOrderTree();
}

/// _exit and _Exit: the rank's end, then the process ends as the C library's would (glibc's and musl's are
/// this one system call). No real function is looked up: a vfork child whose exec failed calls _exit, and a
/// signal handler may, where dlsym may not be called.
[[noreturn]] void ExitNow(int status) {
  if (MayEndRank()) EndRank();
  EndOrderTree();
  for (;;) {
    base::Sys6(SYS_exit_group, status);
    base::Sys6(SYS_exit, status);
  }
}

}  // namespace
}  // namespace numabind::shim

#define NUMABIND_EXPORT extern "C" __attribute__((visibility("default")))

NUMABIND_EXPORT void _exit(int status) { numabind::shim::ExitNow(status); }
NUMABIND_EXPORT void _Exit(int status) { numabind::shim::ExitNow(status); }
