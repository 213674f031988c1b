// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's process-wide state: written by the constructor and by the parent side of a spawn (under a
// once-flag), only read between fork/vfork and exec.

#ifndef NUMABIND_SHIM_ENTRY_STATE_H_
#define NUMABIND_SHIM_ENTRY_STATE_H_

#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "config/config.h"
#include "plan/plan_basis.h"

/// The real vfork, jumped to by the trampoline (vfork_x86_64.S), which cannot be written in C: a C wrapper's
/// frame would be reused by the vfork child and then returned through by the parent.
extern "C" pid_t (*numabind_real_vfork)();

namespace numabind::shim {

/// The real functions, found with dlsym(RTLD_NEXT) by EnsureResolved on the parent side before the first
/// fork, vfork or spawn, so that a child never calls dlsym. A function the C library lacks (pidfd_spawn
/// before glibc 2.39) stays nullptr.
struct RealFunctions {
  int (*execve)(const char*, char* const[], char* const[]);
  int (*execv)(const char*, char* const[]);
  int (*execvp)(const char*, char* const[]);
  int (*execvpe)(const char*, char* const[], char* const[]);
  int (*fexecve)(int, char* const[], char* const[]);
  int (*execveat)(int, const char*, char* const[], char* const[], int);
  int (*posix_spawn)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                     char* const[], char* const[]);
  int (*posix_spawnp)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                      char* const[], char* const[]);
  int (*pidfd_spawn)(int*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                     char* const[], char* const[]);
  int (*pidfd_spawnp)(int*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                      char* const[], char* const[]);
  int (*system)(const char*);
  FILE* (*popen)(const char*, const char*);
  pid_t (*fork)();
  pid_t (*fork_)();  ///< _Fork
  int (*setenv)(const char*, const char*, int);
  int (*putenv)(char*);
};

extern RealFunctions g_real;

/// Fills g_real once (16 dlsym calls: about 20k instructions, which an inert process never pays; _Fork is
/// found by its wrapper, with ResolveSafe).
void EnsureResolved();

/// Resolves one real function if it is not yet: for a process that execs itself (env, nice, a shell's
/// `exec`), which needs only the one it calls. A child of our fork, vfork or spawn finds them resolved.
void* ResolveOne(const char* name);
/// ResolveOne without dlsym, for _Fork's wrapper, which may run in a signal handler (where dlsym, which
/// holds the loader's lock through a whole dlopen, may not) and before the constructor: finds `name` in the
/// symbol tables of the objects loaded after this library, in dl_iterate_phdr's order (RTLD_NEXT's), by
/// hand. No malloc; the loader's list lock only while it walks the list. Falls back to dlsym when no object
/// has it by hand.
void* ResolveSafe(const char* name);
template <typename T>
void Need(T* slot, const char* name) {
  if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) == nullptr) *slot = reinterpret_cast<T>(ResolveOne(name));
}

/// Parent side, before every vfork (called by the trampoline in vfork_x86_64.S): prepares, and keeps
/// `caller` (the vfork caller's return address, which the child overwrites on the stack they share).
extern "C" void numabind_before_vfork(void* caller);

/// After vfork returns (`pid`: 0 in the child), in both processes: in the parent, unmaps what the child's
/// exec wrapper mapped (t_exec_mapping, shim/child/rank_exports.h). Returns the caller's return address.
extern "C" void* numabind_after_vfork(int pid);

/// Largest CPU and node sets the child side handles on its stack (config/limits.h).
using config::kMaxCpuWords;
using config::kMaxNodeWords;

struct State {
  /// NUMABIND_POLICY is set, the shim is not disabled, the process is not secure-execution and not itself
  /// a rank: wrappers look at spawns. False makes every wrapper a plain call through.
  bool active = false;
  config::Config config;
  /// Why the configuration is unusable (printed once, at the first rank spawn); "" when it is fine.
  char config_error[256] = {0};
  /// Bit i set: config::kRankVars[i].rank was in the start-up environment; config::kRankVarBit:
  /// NUMABIND_RANK_VAR.
  uint32_t startup_rank_vars = 0;
  /// The process whose memory this is; a different getpid() means a vfork child.
  pid_t pid = 0;
  /// The prepared basis, or nullptr (not yet, or failed: prepare_error says why).
  const core::PlanBasis* basis = nullptr;
  bool prepared = false;
  char prepare_error[320] = {0};
  /// Why ranks get no memory policy ("EPERM", "ENOSYS", "killed by SIGSYS": set_mempolicy as tried by
  /// the helper's keeper at prepare time), "" when they do: CPU binding only.
  char memory_policy_denied[32] = {0};
  /// The CPUs the launcher may use at prepare time (sched_getaffinity), to tell when a launcher bound the
  /// child itself between fork and exec.
  uint64_t launcher_cpus[kMaxCpuWords] = {0};
  uint32_t launcher_cpu_words = 0;
  /// A forked worker that became a rank through setenv (fork children only): its rank and rank count, so
  /// that an exec that follows (hydra's proxy sets the variables, then execs) is not logged twice.
  uint32_t worker_rank = ~0u;
  uint32_t worker_nranks = ~0u;
  /// NUMABIND_LOG=debug: the spawning call stack, captured in the parent before fork/vfork.
  char stack[1024] = {0};
  /// This process is a rank numabind bound: at start-up (itself, or before: NUMABIND_BOUND, or its
  /// launcher, found by NUMABIND_MATCH), or a forked worker through setenv. What NUMABIND_GUARD guards.
  bool rank_bound = false;
  /// This process's pid when it is a rank found by order (its own command line matches NUMABIND_MATCH):
  /// a program it starts that matches too is warned about (WarnOrderRankSpawn, shim/child/child.h).
  pid_t order_rank = 0;
  /// Set at start-up by a process that binds as its device's rank (NUMABIND_BY_DEVICE): its basis is
  /// prepared without the device visibility variables, over every device (PlannerReads).
  bool plan_all_devices = false;
};

extern State g_state;

/// Set in the child of our fork wrapper (on its one thread): a fork child that has not exec'd yet.
/// Thread-local rather than in g_state: the child writes its thread's TLS block anyway (errno, the C
/// library's thread descriptor beside it), where a write to g_state would copy the library's data page in
/// every child.
extern __thread bool t_fork_child __attribute__((tls_model("initial-exec")));

/// The real function a spawn, system, popen, setenv or putenv wrapper calls. A process whose wrappers only
/// pass through (inert, a rank, disabled) resolves just that one, at its first call: a shell that runs one
/// command pays one dlsym (about 1,300 instructions), not EnsureResolved's 16 (about 20,000). Their children
/// run none of this library's code before they exec (the C library's posix_spawn child). An active process
/// resolves them all, as before. Not for fork and vfork, whose children call exec wrappers.
template <typename T>
T RealFor(T* slot, const char* name) {
  if (g_state.active)
    EnsureResolved();
  else
    Need(slot, name);
  return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/// Parent side: runs the planner helper and prepares the basis, once per process (thread-safe and
/// async-signal-safe). Returns g_state.basis (nullptr on failure, reason in g_state.prepare_error).
const core::PlanBasis* EnsurePrepared();

/// Parent side, NUMABIND_LOG=debug: records the calling stack into g_state.stack (libunwind via dlopen).
void CaptureStack();
/// The calling stack into out (cap bytes, NUL-terminated), one "  #i symbol (file)" line per frame;
/// `callers_only` leaves out the frames inside this library.
void CaptureStack(char* out, size_t cap, bool callers_only);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_ENTRY_STATE_H_
