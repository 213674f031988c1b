// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A launcher told to stop (SIGHUP, SIGINT, SIGQUIT or SIGTERM that it does not ignore) while the library
// waits for it (the helper's answer, another process's preparation) must act on it at once, even when it
// had every signal blocked around the spawn (CPython's subprocess does, around its vfork). The waiting
// thread blocks those signals for the length of the wait, so that one that comes stays pending where a
// signalfd sees it, and restores its mask on return: the signal then acts, its default action or the
// handler that asks the caller to stop (Python's runs when the interpreter regains control).

#ifndef NUMABIND_SHIM_LAUNCHER_STOP_SIGNALS_H_
#define NUMABIND_SHIM_LAUNCHER_STOP_SIGNALS_H_

#include <stdint.h>

namespace numabind::shim {

/// The stop signals this process does not ignore, as a kernel signal set (bit sig - 1).
uint64_t WatchedStopSignals();

/// A wait that a pending stop signal ends. Begin blocks the watched signals in the calling thread, on top
/// of its mask, and opens a close-on-exec, non-blocking signalfd on them (never read: the signal stays
/// pending); End closes it and restores the mask. Raw system calls only.
struct StopWatch {
  uint64_t watched = 0;
  uint64_t old_mask = 0;
  int fd = -1;  ///< readable when a watched signal is pending; -1 when none is watched or no signalfd
  void Begin();
  void End();
  /// The lowest watched signal pending for this thread or process, or 0.
  int Pending() const;
};

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LAUNCHER_STOP_SIGNALS_H_
