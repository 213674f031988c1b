// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's process-wide state, at the bottom of shim/ (every folder of it may include this one; it
// includes none of them): written by the constructor and by the parent side of a spawn (under a once-flag),
// only read between fork/vfork and exec. The real functions the wrappers call are here too, one slot per
// row of shim/state/wrapped.def; shim/state/resolve.h finds them.

#ifndef NUMABIND_SHIM_STATE_STATE_H_
#define NUMABIND_SHIM_STATE_STATE_H_

#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "config/config.h"
#include "plan/plan_basis.h"
#include "shim/state/resolve.h"

/// The real vfork, jumped to by the trampoline (vfork_x86_64.S), which cannot be written in C: a C wrapper's
/// frame would be reused by the vfork child and then returned through by the parent.
extern "C" pid_t (*numabind_real_vfork)();

namespace numabind::shim {

/// The real functions, one slot per wrapped function with a real one of its own (shim/state/wrapped.def),
/// found with dlsym(RTLD_NEXT) by EnsureResolved on the parent side before the first fork, vfork or spawn,
/// so that a child never calls dlsym. A function the C library lacks (pidfd_spawn before glibc 2.39) stays
/// nullptr. The lazy rows' (_Fork, the affinity guard's) are found by their wrappers.
struct RealFunctions {
#define NUMABIND_ENTRY(symbol, id, ret, params) ret(*symbol) params;
#define NUMABIND_ENTRY_ONLY(symbol, id)
#define NUMABIND_EXPORT_ONLY(symbol, ret, params) ret(*symbol) params;
#define NUMABIND_EXPORT_LAZY(symbol, ret, params) ret(*symbol) params;
#define NUMABIND_EXPORT_SPECIAL(symbol)
#define NUMABIND_EXPORT_EXIT(symbol)
#include "shim/state/wrapped.def"
};

extern RealFunctions g_real;

/// The slot of wrapped function `symbol` in g_real and its name, as two arguments: the name is written once,
/// where the slot is used (NUMABIND_REAL, NUMABIND_NEED, ResolveAll, the lazy wrappers).
#define NUMABIND_SLOT(symbol) &::numabind::shim::g_real.symbol, #symbol

/// Largest CPU and node sets the child side handles on its stack (config/limits.h).
using config::kMaxCpuWords;
using config::kMaxNodeWords;

/// The NUMABIND_* entries of an environment (and their NULL) that the start-up's and the site file's
/// readings collect on the stack, for config::Parse and config::ApplySite (one more than config/vars.def has
/// rows, with room to spare). An environment with more (unknown names: other versions', generated ones) is
/// read whole by them instead, which look at its NUMABIND_* entries alone: every one is read.
constexpr int kOursMax = 40;

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
  const plan::PlanBasis* basis = nullptr;
  bool prepared = false;
  char prepare_error[320] = {0};
  /// Nonzero once a rank said the mistake all of them share (config_error, or no basis): a word in a page
  /// a launcher shares with its children, or a self-binding rank's own (shim/log/shared_mistake.h);
  /// nullptr: every rank says it.
  uint32_t* mistake_said = nullptr;
  /// Why ranks get no memory policy ("EPERM", "ENOSYS", "killed by SIGSYS": set_mempolicy as tried by
  /// the helper's keeper at prepare time), "" when they do: CPU binding only.
  char memory_policy_denied[32] = {0};
  /// The CPUs the launcher may use at prepare time (sched_getaffinity), to tell when a launcher bound the
  /// child itself between fork and exec.
  uint64_t launcher_cpus[config::kMaxCpuWords] = {0};
  uint32_t launcher_cpu_words = 0;
  /// A forked worker that became a rank through setenv (fork children only): its rank and rank count, so
  /// that an exec that follows (hydra's proxy sets the variables, then execs) is not logged twice.
  uint32_t worker_rank = ~0u;
  uint32_t worker_nranks = ~0u;
  /// The launch this process's rank lines name (shim/launcher/launch_id.h): a launcher's own token, written
  /// on the parent side when it prepares, or a rank binding itself's parent's; "" until then.
  char launch[96] = {0};
  /// NUMABIND_LOG=debug: the spawning call stack, captured in the parent before fork/vfork.
  char stack[1024] = {0};
  /// This process is a rank numabind bound: at start-up (itself, or before: NUMABIND_BOUND, or its
  /// launcher, found by NUMABIND_MATCH), or a forked worker through setenv. What NUMABIND_GUARD guards.
  bool rank_bound = false;
  /// The pid of the rank its bound line names: one that bound itself (at start-up, or a forked worker), or,
  /// with a JSON log file, one its launcher bound (its NUMABIND_BOUND proof names it: StartedBound in
  /// shim/rank/self_bind.cc). Its exit is the rank's end (WriteRankEnd), whichever way it exits; its
  /// children inherit rank_bound, and this, which is not their pid.
  pid_t rank_pid = 0;
  /// This process's pid when it is a rank found by order (its own command line matches NUMABIND_MATCH):
  /// a program it starts that matches too is warned about (WarnOrderRankSpawn, shim/child/child.h).
  pid_t order_rank = 0;
  /// Set at start-up by a process that binds as its device's rank (NUMABIND_BY_DEVICE): its basis is
  /// prepared without the device visibility variables, over every device (PlannerReads).
  bool plan_all_devices = false;
  /// Set by a configured process's first fork or spawn (CheckOrderCounter, shim/child/child.h): whether
  /// ranks by order can have the shared counter was checked where they may be started, and said when not.
  /// Fork children inherit it.
  bool order_counter_checked = false;
  /// The pid of the process whose first fork or spawn that was (CheckOrderCounter): at its exit it removes
  /// the counter page its tree may have (RemoveOwnOrderCounter). A fork child's differs from its own.
  pid_t order_counter_pid = 0;
  /// Whether this process is a Python interpreter, the only kind whose forks take ranks under
  /// NUMABIND_FORKS=ranks (ForksTakeRanks, shim/child/pool_process.h): 0 not known yet, 1 yes, 2 no. Found
  /// at its first fork there; fork children inherit it.
  uint8_t forks_python = 0;
};

extern State g_state;

/// Set in the child of our fork wrapper (on its one thread): a fork child that has not exec'd yet.
/// Thread-local rather than in g_state: the child writes its thread's TLS block anyway (errno, the C
/// library's thread descriptor beside it), where a write to g_state would copy the library's data page in
/// every child.
extern __thread bool t_fork_child __attribute__((tls_model("initial-exec")));

template <typename T>
void Need(T* slot, const char* name) {
  if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) == nullptr) *slot = reinterpret_cast<T>(ResolveOne(name));
}

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

/// RealFor and Need of the slot named `symbol` under its own name.
#define NUMABIND_REAL(symbol) ::numabind::shim::RealFor(NUMABIND_SLOT(symbol))
#define NUMABIND_NEED(symbol) ::numabind::shim::Need(NUMABIND_SLOT(symbol))

/// A configured process that is no rank becomes one whose wrappers look at its spawns: the one place for
/// both ways there (its environment at start-up, the site file at its first rank spawn). The caller has
/// filled g_state.config.
void BecomeConfigured();

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_STATE_STATE_H_
