// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Works around system(3) and popen(3) taking no environment (glibc passes `environ` to its own posix_spawn):
// to start a rank with its environment, `environ` points at the rank's for the length of the call, and at
// the launcher's again after it. The launcher's other threads may use the environment meanwhile:
// - The rank's is a BlockUse::kEnviron block (shim/child/rank_exports.h), never reused or unmapped: a thread
//   may be reading it, and a setenv of a new name copies its pointers into glibc's own array, which then
//   stays the launcher's environment (docs/limits.md).
// - glibc's setenv and putenv read `environ` twice, under a lock of their own that the library cannot take:
//   to count it, then to copy it when it is not glibc's own array. `environ` changed in between gave a copy
//   cut short (the launcher lost its last variables) or one with pointers never written (SIGSEGV later).
//   So the library's changes of `environ` and the wrapped setenv and putenv exclude each other (one lock).
// - glibc's setenv may free the array itself (it reallocates it), never the strings: the launcher's is read
//   from a copy, made under the same lock.

#ifndef NUMABIND_SHIM_ENTRY_CALLER_ENVIRONMENT_H_
#define NUMABIND_SHIM_ENTRY_CALLER_ENVIRONMENT_H_

#include <stddef.h>

namespace numabind::shim {

/// Holds the environment lock around one real setenv or putenv of a configured process. Only such a process
/// changes `environ` (an inert one's system and popen pass through): an inert one's setenv costs nothing
/// more, a configured one's a gettid (90 ns). The lock knows its owner (a thread id), so the child of a fork
/// made while another thread held it takes it over rather than wait for ever.
class EnvironmentWrite {
 public:
  EnvironmentWrite();
  ~EnvironmentWrite();
  EnvironmentWrite(const EnvironmentWrite&) = delete;
  EnvironmentWrite& operator=(const EnvironmentWrite&) = delete;

 private:
  bool held_;
};

/// The launcher's environment for one system or popen call: a copy of the pointers of `environ`, or of the
/// array that was `environ` before a call of another thread made it its rank's, in the mapping a launcher
/// keeps for its next spawn (TakeKeptMapping: no new page once it has one). What the call finds its rank
/// in and builds the rank's environment from. `environ` itself when no mapping could be had.
class LauncherEnvironment {
 public:
  LauncherEnvironment();
  ~LauncherEnvironment() { Done(); }
  LauncherEnvironment(const LauncherEnvironment&) = delete;
  LauncherEnvironment& operator=(const LauncherEnvironment&) = delete;
  char* const* env() const { return env_; }
  /// The copy is read no more (the rank's environment is built): its mapping goes back for the next spawn
  /// now, not when a system call's rank exits. env() is still what it was, to compare with.
  void Done();

 private:
  char** env_;
  char* map_ = nullptr;
  size_t map_size_ = 0;
};

/// Makes `env` the process's `environ` for one system or popen call; nothing when it is `launcher`'s copy
/// (no rank, or nothing to add: the copy is private and is never made `environ`). At the end, while
/// `environ` is still `env`, the launcher's comes back: the array that was `environ` before the first of the
/// calls that overlap, in whatever order they end. When a setenv of a new name made `environ` an array of
/// glibc's meanwhile, that array stays. Parent side only; the wrappers' Guard keeps a signal handler's
/// system or popen on the same thread out of it.
class CallerEnvironment {
 public:
  CallerEnvironment(char* const* env, const LauncherEnvironment& launcher);
  ~CallerEnvironment();
  CallerEnvironment(const CallerEnvironment&) = delete;
  CallerEnvironment& operator=(const CallerEnvironment&) = delete;

 private:
  char** env_;  ///< the array made `environ`, nullptr when none was
};

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_ENTRY_CALLER_ENVIRONMENT_H_
