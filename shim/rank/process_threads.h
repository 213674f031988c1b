// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The other threads of a process that becomes a rank. At start-up: libraries linked into a program start
// threads in their own constructors (OpenBLAS's pthread build starts its workers there), and the dynamic
// linker runs those before the preloaded library's. Later: a forked worker that sets its rank variable
// (torch's Callable workers) may have started threads since the fork. A binding of the calling thread alone
// would leave them where they were.

#ifndef NUMABIND_SHIM_RANK_PROCESS_THREADS_H_
#define NUMABIND_SHIM_RANK_PROCESS_THREADS_H_

#include <stdint.h>

namespace numabind::shim {

/// What BindOtherThreads found.
struct OtherThreads {
  uint32_t bound = 0;   ///< threads other than the caller now on its CPUs
  uint32_t failed = 0;  ///< threads that sched_setaffinity refused (gone threads are not counted)
  long error = 0;       ///< the first refusal's -errno
};

/// Gives every thread of this process other than the caller the caller's CPUs (sched_setaffinity on each
/// thread id of /proc/self/task, raw system calls), walking the directory again until a walk finds no
/// thread it has not bound (a thread started meanwhile by one not yet bound inherits the old CPUs). Memory
/// policy is per thread and only a thread can set its own: the caller's alone is changed.
OtherThreads BindOtherThreads();

/// The thread id a /proc/self/task entry names, or -1 ("." and ".."). Child-safe.
int TidOf(const char* name);

/// When the threads BindOtherThreads moved were started: the text after "N threads started before".
enum class ThreadsFrom { kStartup, kBecameRank };

/// Says what became of them: bound to the rank's CPUs, with the memory policy they had (set_mempolicy
/// reaches only the calling thread). A warning when a memory policy was set, info otherwise. Nothing when
/// there were none.
void LogOtherThreads(const char* program, const OtherThreads& t, ThreadsFrom from);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_PROCESS_THREADS_H_
