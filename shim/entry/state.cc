// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's start-up (constructor). Start-up is on the path of every program a user starts, so it does as
// little as it can: only when NUMABIND_POLICY is set does it find the real functions, parse the
// configuration and note which rank variables the process started with.

#include "shim/entry/state.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "shim/child/child.h"
#include "shim/rank/affinity_guard.h"
#include "shim/rank/self_bind.h"

extern char** environ;

pid_t (*numabind_real_vfork)();

namespace numabind::shim {

RealFunctions g_real;
State g_state;
__thread bool t_in_shim __attribute__((tls_model("initial-exec")));

namespace {

template <typename T>
void Resolve(T* slot, const char* name) {
  *slot = reinterpret_cast<T>(dlsym(RTLD_NEXT, name));
}

void ResolveAll() {
  Resolve(&g_real.execve, "execve");
  Resolve(&g_real.execv, "execv");
  Resolve(&g_real.execvp, "execvp");
  Resolve(&g_real.execvpe, "execvpe");
  Resolve(&g_real.fexecve, "fexecve");
  Resolve(&g_real.execveat, "execveat");
  Resolve(&g_real.posix_spawn, "posix_spawn");
  Resolve(&g_real.posix_spawnp, "posix_spawnp");
  Resolve(&g_real.pidfd_spawn, "pidfd_spawn");
  Resolve(&g_real.pidfd_spawnp, "pidfd_spawnp");
  Resolve(&g_real.system, "system");
  Resolve(&g_real.popen, "popen");
  Resolve(&g_real.fork, "fork");
  Resolve(&g_real.setenv, "setenv");
  Resolve(&g_real.putenv, "putenv");
  Resolve(&numabind_real_vfork, "vfork");
}

/// The environment the program started with, from `environ` (set by glibc and musl before constructors).
const char* const* StartupEnvironment() { return const_cast<const char* const*>(environ); }

/// One pass over the start-up environment: collects the NUMABIND_* entries into `ours` (NULL-terminated,
/// for Parse) and notes which built-in rank variables are there.
void ScanEnvironment(const char* const* env, const char** ours, int cap) {
  int n = 0;
  for (; *env != nullptr; ++env) {
    const char* e = *env;
    if (e[0] == 'N' && strncmp(e, "NUMABIND_", 9) == 0) {
      if (n < cap - 1) ours[n++] = e;
      continue;
    }
    for (int i = 0; i < config::kRankVarCount; ++i) {
      if (config::ValueOf(e, config::kRankVars[i].rank) != nullptr) g_state.startup_rank_vars |= 1u << i;
    }
  }
  ours[n] = nullptr;
}

// Portable start-up (musl, glibc): only glibc passes (argc, argv, envp) to constructors, and reading them
// where the C library does not crashes every program (issue 11). The environment is `environ`, which
// both set before any constructor runs; the arguments are read from /proc, and only by configured
// processes.
__attribute__((constructor)) void Init() {
  // Every program pays for what runs here: without NUMABIND_POLICY, one dlsym and one pass over the
  // environment. The dlsym is _Fork's, which may be called from a signal handler, where dlsym may not. The
  // other real functions are found later, by the first wrapper called (before the first fork, vfork or
  // spawn): a configured process that starts nothing (sed, grep) saves those 16 dlsym calls.
  Resolve(&g_real.fork_, "_Fork");
  const char* const* env = StartupEnvironment();
  if (env == nullptr) return;
  const char* policy = config::Lookup(env, "NUMABIND_POLICY");
  if (policy == nullptr || *policy == '\0') return;
  // Secure-execution programs (setuid, file capabilities) must not be steered by the environment.
  if (getauxval(AT_SECURE) != 0) return;
  const char* ours[40];
  ScanEnvironment(env, ours, 40);
  config::Error err;
  if (!config::Parse(ours, &g_state.config, &err)) {
    memcpy(g_state.config_error, err.text, sizeof(g_state.config_error));
    g_state.config_error[sizeof(g_state.config_error) - 1] = '\0';
  }
  if (g_state.config.disabled) return;
  if (StartAsRank(env)) {  // a rank (bound now if no launcher did): shim/rank/self_bind.cc
    ArmAffinityGuard();    // NUMABIND_GUARD=1: shim/rank/affinity_guard.h
    return;
  }
  g_state.pid = static_cast<pid_t>(Sys6(SYS_getpid));
  g_state.active = true;
}

}  // namespace

void* ResolveOne(const char* name) {
  int e = errno;
  void* f = dlsym(RTLD_NEXT, name);
  errno = e;
  return f;
}

void EnsureResolved() {
  static bool resolved;  // plain bool: resolving twice at once writes the same values
  if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) return;
  int e = errno;
  ResolveAll();
  errno = e;
  __atomic_store_n(&resolved, true, __ATOMIC_RELEASE);
}

}  // namespace numabind::shim
