// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's process-wide state, at the bottom of shim/ (every folder of it may include this one; it
// includes none of them), in three parts by who writes them and when, as musl keeps in `struct __libc`
// only what is truly process-wide and hands a spawn's child its own `struct args`:
//   g_startup   what the configure step writes once (shim/entry/configure.h) and then only reads: the
//               configuration, its error, the facts of the environment it came from;
//   g_prepared  what the launcher side prepares once under its lock (shim/launcher/prepare.h): the plan
//               basis, why there is none, the launcher's CPUs, its launch;
//   g_role      what the process is: inert, a launcher, or a rank and how it became one.
// The child side between fork/vfork and exec reads none of them: its entry point hands it a ChildArgs
// (shim/child/child.h). The real functions the wrappers call are here too, one slot per row of
// shim/state/wrapped.def; shim/state/resolve.h finds them.

#ifndef NUMABIND_SHIM_STATE_STATE_H_
#define NUMABIND_SHIM_STATE_STATE_H_

#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "config/config.h"
#include "config/site_file.h"
#include "plan/plan_basis.h"
#include "shim/state/resolve.h"

/// The real vfork, jumped to by the trampoline (vfork_x86_64.S), which cannot be written in C: a C wrapper's
/// frame would be reused by the vfork child and then returned through by the parent.
extern "C" pid_t (*numabind_real_vfork)();

namespace numabind::shim {

struct RankPage;  // shim/rank/become_rank.cc

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

/// What the configure step writes (shim/entry/configure.h): at start-up, or at a late activation under the
/// site file's once-flag, always before the role that makes a wrapper read it; then only read.
struct Startup {
  config::Config config;
  /// Why the configuration is unusable (printed once, at the first rank spawn); "" when it is fine.
  char config_error[256] = {0};
  /// What the environment it was configured from says besides NUMABIND_* (config/env_vars.def), from the
  /// configure step's one pass: pointers into that environment, whose strings the process keeps.
  config::EnvFacts facts;
  /// Bit i set: config::kRankVars[i].rank was in that environment; config::kRankVarBit: NUMABIND_RANK_VAR.
  uint32_t rank_vars = 0;
  /// The process that configured; a different getpid() means a fork or vfork child of it.
  pid_t pid = 0;
  /// The site file's one reading (shim/entry/site_config.cc): the file, in pages mapped when there is one (16
  /// KiB of .bss would cost every process the loader's extra mapping at load), kept for the process's life
  /// (the configuration points into it); 0 not read, 1 a thread is reading it, 2 read (or looked for), a
  /// futex word that only goes up; the thread that moved it to 1, which must never wait for itself.
  struct {
    config::SiteFile* file = nullptr;
    int state = 0;
    int reader = 0;
  } site;
  /// The configuration's warning (an unknown NUMABIND_* name) was said: start-up and a late activation may
  /// both parse.
  bool warned = false;
};

extern Startup g_startup;

/// What the launcher side prepares once, under EnsurePrepared's lock (a rank binding itself prepares the same
/// way): read by the parent side of every spawn, and handed to the child side in its ChildArgs.
struct Prepared {
  /// The prepared basis, or nullptr (not yet, or failed: error says why).
  const plan::PlanBasis* basis = nullptr;
  bool done = false;
  char error[320] = {0};
  /// Why ranks get no memory policy ("EPERM", "ENOSYS", "killed by SIGSYS": set_mempolicy as tried by
  /// the helper's keeper at prepare time), "" when they do: CPU binding only.
  char memory_policy_denied[32] = {0};
  /// The CPUs the launcher may use at prepare time (sched_getaffinity), to tell when a launcher bound the
  /// child itself between fork and exec.
  uint64_t launcher_cpus[config::kMaxCpuWords] = {0};
  uint32_t launcher_cpu_words = 0;
  /// What the basis names that this machine lacks, when it was planned on NUMABIND_TOPOLOGY (a file or a
  /// synthetic description larger than the machine): the CPUs (basis->cpu_words words) then the nodes
  /// (node_words) that are not online, in a page mapped at prepare time (NoteAbsent,
  /// shim/launcher/prepare.h); nullptr when it lacks none, or planned on the machine itself.
  const uint64_t* absent = nullptr;
  /// The launch this process's rank lines name (shim/launcher/launch_id.h): a launcher's own token, or a rank
  /// binding itself's parent's; "" until then.
  char launch[96] = {0};
  /// Nonzero once a rank said the mistake all of them share (config_error, or no basis): a word in a page
  /// a launcher shares with its children, or a self-binding rank's own (own_mistake_said,
  /// shim/rank/mistake_note.h); nullptr: every rank says it.
  uint32_t* mistake_said = nullptr;
  uint32_t own_mistake_said = 0;
  /// Nonzero once a rank said that the kernel lacks the memory policy NUMABIND_MEMORY asks for (near,
  /// weighted): the next word of the launcher's shared page; nullptr: every rank says it.
  uint32_t* memory_said = nullptr;
  /// NUMABIND_LOG=info: nonzero once the first program this launcher started was looked at, to say once
  /// when it was no rank (shim/child/first_program.h): the shared page's third word; nullptr below info.
  uint32_t* first_program = nullptr;
  /// EnsurePrepared's lock: the thread preparing (its tid, a futex word), 0 when free.
  int preparing = 0;
  /// The planner helper's environment, NULL-terminated, made once when preparing from what the planner reads
  /// of this process's (shim/launcher/prepare.cc: NUMABIND_DISABLE=1, HWLOC_*, the visibility lists,
  /// LD_LIBRARY_PATH): here rather than on the stack of a thread that may have 16 KiB.
  const char* helper_env[sizeof(config::EnvFacts::hwloc) / sizeof(char*) + 6] = {};
  /// NUMABIND_LOG=debug: the call stack of the latest fork or vfork, captured in the parent before it, in a
  /// page mapped at the first capture (CaptureStack); nullptr before.
  char* stack = nullptr;
  /// Set by a configured process's first fork or spawn (CheckOrderCounter, shim/child/child.h): whether ranks
  /// by order can have the shared counter was checked where they may be started, and said when not.
  bool order_counter_checked = false;
  /// The pid of the process whose first fork or spawn that was (CheckOrderCounter): at its exit it removes
  /// the counter page its tree may have (RemoveOwnOrderCounter). A fork child's differs from its own.
  pid_t order_counter_pid = 0;
  /// Whether this process is a Python interpreter, the only kind whose forks take ranks under
  /// NUMABIND_FORKS=ranks (ForksTakeRanks, shim/child/pool_process.h): 0 not known yet, 1 yes, 2 no. Found
  /// at its first fork there; fork children inherit it.
  uint8_t forks_python = 0;
};

extern Prepared g_prepared;

/// What the process is (docs/design.md, "Roles"): one tagged value. Written only by the configure step
/// (inert to launcher, and back when the site file says NUMABIND_DISABLE=1) and by BecomeRank and
/// GiveBackForkRank (shim/rank/become_rank.h: a rank, and a fork child's rank given back). A fork child
/// inherits its parent's role with its memory: a rank's child keeps the binding, and writes no end event
/// (it is not `pid`).
struct Role {
  enum Kind : uint8_t {
    kInert,     ///< every wrapper passes through (no configuration, disabled, secure execution, unbound)
    kLauncher,  ///< configured and no rank: its wrappers look at each spawn
    kRank,      ///< a rank numabind bound (`how`)
  };
  /// How it became a rank; the last three in a running launcher, whose wrappers go on looking at spawns.
  enum How : uint8_t {
    kSelf,        ///< bound itself at start-up: a rank variable no launcher bound it by
    kByLauncher,  ///< started bound (NUMABIND_BOUND: by its launcher, or a child of a rank)
    kByOrder,     ///< its command line matches NUMABIND_MATCH: its launcher bound it by order
    kDevice,      ///< bound itself at start-up as its one device's rank (NUMABIND_BY_DEVICE=1)
    kFork,        ///< a fork child of a launcher under NUMABIND_FORKS=ranks, bound before fork returned
    kSetenv,      ///< a forked worker that set its rank variable
    kSetDevice,   ///< a running process given one device in its environment (NUMABIND_BY_DEVICE=1)
  };
  Kind kind = kInert;
  How how = kSelf;
  uint32_t rank = 0;
  uint32_t nranks = 0;  ///< 0 = unknown
  /// The process that became the rank (its fork children inherit the role, not the pid).
  pid_t pid = 0;
  /// Whether pid's exit is the rank's end (WriteRankEnd, shim/entry/exit_wrappers.cc): a rank that bound
  /// itself; one its launcher bound when its NUMABIND_BOUND proof names it, read only with a JSON log file
  /// (by=its pid, or by=its parent, " spawned"). Not a child of a rank (by=its parent, not spawned: a rank's
  /// command, a shell script's), which inherits the binding and ends no rank, nor one found by order.
  bool ends = false;
  /// A rank that became one in a running launcher (fork, setenv): the CPUs it was bound to then (kMaxCpuWords
  /// words, in a page of its own), which a later exec of the same rank compares with as a launcher's.
  uint64_t* cpus = nullptr;
  uint32_t cpu_words = 0;
  /// What such a rank keeps (its CPUs, and a fork child's slot and saved binding), in a page mapped when it
  /// first binds (shim/rank/become_rank.cc); nullptr before.
  RankPage* page = nullptr;

  bool IsRank() const { return kind == kRank; }
  /// Whether its wrappers look at spawns: a launcher, and a rank it became while one.
  bool Acts() const { return kind == kLauncher || (kind == kRank && how >= kFork); }
};

extern Role g_role;

/// Set in the child of our fork wrapper (on its one thread): a fork child that has not exec'd yet.
/// Thread-local rather than in the state: the child writes its thread's TLS block anyway (errno, the C
/// library's thread descriptor beside it), where a write to the library's data would copy its page in
/// every child.
extern __thread bool t_fork_child __attribute__((tls_model("initial-exec")));

template <typename T>
void Need(T* slot, const char* name) {
  if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) == nullptr) *slot = reinterpret_cast<T>(ResolveOne(name));
}

/// The real function a spawn, system, popen, setenv or putenv wrapper calls. A process whose wrappers only
/// pass through (inert, a rank, disabled) resolves just that one, at its first call: a shell that runs one
/// command pays one dlsym (about 1,300 instructions), not EnsureResolved's 16 (about 20,000). Their children
/// run none of this library's code before they exec (the C library's posix_spawn child). An acting process
/// resolves them all, as before. Not for fork and vfork, whose children call exec wrappers.
template <typename T>
T RealFor(T* slot, const char* name) {
  if (g_role.Acts())
    EnsureResolved();
  else
    Need(slot, name);
  return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/// RealFor and Need of the slot named `symbol` under its own name.
#define NUMABIND_REAL(symbol) ::numabind::shim::RealFor(NUMABIND_SLOT(symbol))
#define NUMABIND_NEED(symbol) ::numabind::shim::Need(NUMABIND_SLOT(symbol))

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_STATE_STATE_H_
