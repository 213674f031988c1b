// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Which array `environ` is while system and popen calls of several threads start ranks, and the setenv and
// putenv that must not see it change halfway: one lock, held for a few loads and stores, a copy of the
// launcher's pointers, or one real setenv or putenv; never across a system or popen call.

#include "shim/entry/caller_environment.h"

#include <errno.h>
#include <stdint.h>

#include "base/syscalls.h"
#include "shim/child/rank_exports.h"
#include "shim/state/state.h"

extern char** environ;

namespace numabind::shim {
namespace {

int g_owner;         ///< the tid holding the lock, 0 when free
char** g_installed;  ///< the rank environment a call made `environ` last; nullptr once it is not
char** g_launcher;   ///< what `environ` was before the first of the calls that overlap

/// The system and popen calls waiting for the lock, in the low half, of the process in the high half: the
/// child of a fork gets the count without the threads that counted.
uint64_t g_swaps_waiting;

void CountSwap(uint32_t add) {
  uint64_t pid = static_cast<uint64_t>(base::Sys6(SYS_getpid));
  uint64_t old = __atomic_load_n(&g_swaps_waiting, __ATOMIC_RELAXED);
  for (;;) {
    uint32_t count = (old >> 32) == pid ? static_cast<uint32_t>(old) : 0;
    uint64_t next = pid << 32 | static_cast<uint32_t>(count + add);
    if (__atomic_compare_exchange_n(&g_swaps_waiting, &old, next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return;
  }
}

bool SwapWaiting() {
  uint64_t w = __atomic_load_n(&g_swaps_waiting, __ATOMIC_SEQ_CST);
  return static_cast<uint32_t>(w) != 0 && (w >> 32) == static_cast<uint64_t>(base::Sys6(SYS_getpid));
}

/// `swap`: for a system or popen call. setenv and putenv in a loop (another thread's) would keep it from
/// the lock (0.3-0.9 s in all for 300 popen calls on a loaded 2-CPU machine, up to 60 ms at once): they let
/// a waiting one go first, for at most kDefer turns.
void Lock(bool swap) {
  constexpr int kDefer = 1000;
  if (swap) CountSwap(1);
  for (int i = 0; !swap && i < kDefer && SwapWaiting(); ++i) base::Sys6(SYS_sched_yield);
  int self = static_cast<int>(base::Sys6(SYS_gettid));
  for (;;) {
    int held = 0;
    if (__atomic_compare_exchange_n(&g_owner, &held, self, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
    // Its holder is no thread of this process: the lock came with a fork.
    if (base::Sys6(SYS_tgkill, base::Sys6(SYS_getpid), held, 0) == -ESRCH &&
        __atomic_compare_exchange_n(&g_owner, &held, self, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      break;
    base::Sys6(SYS_sched_yield);
  }
  if (swap) CountSwap(~0u);
}

void Unlock() { __atomic_store_n(&g_owner, 0, __ATOMIC_RELEASE); }

/// Whether this process's wrappers act (its role, read with acquire: a process that became a launcher has
/// its configuration), and so may change `environ`.
bool Acts() {
  __atomic_load_n(&g_role.kind, __ATOMIC_ACQUIRE);
  return g_role.Acts();
}

/// Under the lock: the launcher's environment, not a rank environment another call made `environ`.
char** Launcher() {
  char** now = environ;
  return now != nullptr && now == g_installed ? g_launcher : now;
}

}  // namespace

// A process becomes configured once (its first rank spawn may read the site file, site_config.h): a setenv
// of another thread that started just before and a system call that starts a rank right after are not kept
// apart.
EnvironmentWrite::EnvironmentWrite() : held_(Acts()) {
  if (held_) Lock(false);
}

EnvironmentWrite::~EnvironmentWrite() {
  if (held_) Unlock();
}

LauncherEnvironment::LauncherEnvironment() {
  int e = errno;
  Lock(true);
  char** from = Launcher();
  size_t n = 0;
  while (from != nullptr && from[n] != nullptr) ++n;
  env_ = from;
  if (from != nullptr && TakeKeptMapping((n + 1) * sizeof(char*), &map_, &map_size_) == 0) {
    env_ = reinterpret_cast<char**>(map_);
    for (size_t i = 0; i <= n; ++i) env_[i] = from[i];
  }
  Unlock();
  errno = e;
}

void LauncherEnvironment::Done() {
  int e = errno;
  KeepMapping(map_, map_size_);
  map_ = nullptr;
  errno = e;
}

CallerEnvironment::CallerEnvironment(char* const* env, const LauncherEnvironment& launcher)
    : env_(const_cast<char**>(env)) {
  if (env == launcher.env()) {
    env_ = nullptr;
    return;
  }
  Lock(true);
  char** now = environ;
  // Another call's rank environment is not the launcher's: the one before it still is.
  if (g_installed == nullptr || now != g_installed) g_launcher = now;
  g_installed = env_;
  __atomic_store_n(&environ, env_, __ATOMIC_RELEASE);
  Unlock();
}

CallerEnvironment::~CallerEnvironment() {
  if (env_ == nullptr) return;
  Lock(true);
  // Not `env` any more: a later call's rank environment (that call puts the launcher's back), glibc's copy
  // after a setenv of a new name (which keeps the change), or none after clearenv.
  if (environ == env_) __atomic_store_n(&environ, g_launcher, __ATOMIC_RELEASE);
  if (g_installed == env_) g_installed = nullptr;
  Unlock();
}

}  // namespace numabind::shim
