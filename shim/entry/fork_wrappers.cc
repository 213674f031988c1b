// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// fork, _Fork and vfork: the parent side of a spawn whose child will exec (mpirun, hydra, bash) or run a
// worker without exec (torchrun --start_method fork). The child learns whether it is a rank only from the
// environment it builds after the fork, and must not plan there, so the parent prepares the basis first,
// once per process. A forked worker that never execs becomes a rank when it sets its rank variable
// (torch's worker wrapper sets LOCAL_RANK through os.environ, i.e. setenv): setenv and putenv bind it then.

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "shim/child/child.h"
#include "shim/child/pool_process.h"
#include "shim/child/rank_exports.h"
#include "shim/entry/caller_environment.h"
#include "shim/entry/site_config.h"
#include "shim/entry/vfork.h"
#include "shim/launcher/prepare.h"
#include "shim/rank/affinity_guard.h"
#include "shim/rank/process_threads.h"
#include "shim/state/guard.h"

extern char** environ;

namespace numabind::shim {
namespace {

/// Need (shim/state/state.h) for _Fork's wrapper, which may run in a signal handler: ResolveSafe, no dlsym.
/// Keeps errno.
template <typename T>
T NeedSafe(T* slot, const char* name) {
  T f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (f == nullptr) {
    int e = errno;
    f = reinterpret_cast<T>(ResolveSafe(name));
    errno = e;
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);  // racing threads store the same value
  }
  return f;
}

/// Parent side of fork and vfork (_Fork prepares without capturing the call stack: it may run in a signal
/// handler). Once the first fork prepared, it only reads flags: every page a process writes between two
/// forks is a copy-on-write fault at the second, so nothing here writes on that path, not even errno (each
/// call below keeps it) or the re-entrancy guard (EnsurePrepared takes its own while it prepares).
void BeforeFork() {
  if (SiteFilePending() && !ApplyPendingSiteFile()) return;  // site_config.h
  EnsurePrepared();
  NoteNoOrderCounter();
  if (g_state.config.log != config::LogLevel::kDebug) return;
  int e = errno;
  Guard guard;  // the unwinder it may load runs other libraries' constructors
  CaptureStack();
  errno = e;
}

/// Child-safe: in the child of a fork of a Python process under NUMABIND_FORKS=ranks (ForksTakeRanks: a fork
/// or forkserver pool's worker), before fork returns: takes the next rank by order from the tree's shared
/// counter (order_counter.h) and binds. The child has one thread: there are no others to bind.
/// The fork child's slot (kept mapped) and the binding it had before, for GiveBackForkRank: in a page
/// BindForkChild maps, as a static one would add a page to every process's writable data (a mapping and a
/// fault at each start of every program). Its own fork and vfork children see them too (a copy, the same
/// memory): `taker` tells the process that took the rank, the only one that gives it back.
OrderClaim g_fork_claim;
struct ForkSaved {
  pid_t taker;
  SavedBinding saved;
  uint64_t cpus[config::kMaxCpuWords];
};
static_assert(sizeof(ForkSaved) <= 4096, "one page");
ForkSaved* g_fork_saved = nullptr;

void BindForkChild() {
  RankMatch m;
  pid_t parent = static_cast<pid_t>(base::Sys6(SYS_getppid));
  if (!ClaimOrderRank(parent, true, &m.rank, &g_fork_claim)) return;  // no shared directory: unbound
  m.nranks = g_state.config.nranks;
  if (m.nranks == 0) NoteUnknownCount(parent);
  long page = base::Sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(page)) {
    FinishOrderClaim(&g_fork_claim, 0);  // cannot undo a binding it could not save: take no rank
    g_fork_claim = OrderClaim();
    return;
  }
  g_fork_saved = reinterpret_cast<ForkSaved*>(page);
  g_fork_saved->taker = static_cast<pid_t>(base::Sys6(SYS_getpid));
  SavedBinding& saved = g_fork_saved->saved;
  saved = SavedBinding();
  saved.cpus = g_fork_saved->cpus, saved.cpu_words = config::kMaxCpuWords;
  BoundEvent event;
  int err = 0;
  NUMABIND_PLAN_STORAGE(plan);
  BindResult r = BindRank(Entry::kFork, "(forked child)", &m, &saved, &event, &err, &plan);
  if (r == BindResult::kRefused) _exit(127);  // strict: as a failed exec would
  if (r != BindResult::kBound) return;
  g_state.worker_rank = m.rank;
  g_state.worker_nranks = m.nranks;
  g_state.rank_bound = true;  // its own forks take no rank
  g_state.rank_pid = static_cast<pid_t>(base::Sys6(SYS_getpid));
  long got = base::Sys6(SYS_sched_getaffinity, 0, sizeof(g_state.launcher_cpus),
                        reinterpret_cast<long>(g_state.launcher_cpus));
  if (got > 0) g_state.launcher_cpu_words = static_cast<uint32_t>(got / 8);
  FinishBound(event, static_cast<pid_t>(base::Sys6(SYS_getpid)));
  ArmAffinityGuard();
}

}  // namespace

// Child-safe: a fork child that execs was no worker (Python's resource tracker and forkserver are started
// by fork and exec when vfork cannot be used): its slot is freed for the next worker and its binding undone.
// The bound line it wrote at fork is followed by one that says so, for the log to stay true. Only the
// process that took the rank gives it back: a worker's fork children inherit its claim, and a program the
// worker runs keeps the worker's binding, as a rank's children do; a vfork child runs in the worker's memory
// and must leave its claim, saved binding and rank as they are.
NUMABIND_HOT void GiveBackForkRank(const char* path) {
  if (g_fork_claim.map == nullptr || g_fork_saved == nullptr ||
      g_fork_saved->taker != static_cast<pid_t>(base::Sys6(SYS_getpid)))
    return;
  FinishOrderClaim(&g_fork_claim, 0);
  g_fork_claim = OrderClaim();
  bool bound = g_state.rank_bound && g_state.worker_nranks != ~0u;
  if (bound) Restore(g_fork_saved->saved);
  base::Sys6(SYS_munmap, reinterpret_cast<long>(g_fork_saved), 4096);
  g_fork_saved = nullptr;
  if (bound) WriteGaveBack(g_state.worker_rank, g_state.worker_nranks, path);
  g_state.rank_bound = false;
  g_state.worker_rank = g_state.worker_nranks = ~0u;
}

namespace {

NUMABIND_HOT pid_t RunFork(pid_t (*real)()) {
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (!g_state.active || t_in_shim) return real();
  BeforeFork();
  bool worker = ForksTakeRanks();
  pid_t pid = real();
  if (pid == 0) {
    numabind::shim::t_fork_child = true;  // the child's own copy: fork children share nothing
    if (worker) {
      int e = errno;
      Guard guard;
      BindForkChild();
      errno = e;
    }
  }
  return pid;
}

/// After setenv/putenv of `name` in a forked child: bind if the child's environment now makes it a rank.
void MaybeBindForkedWorker(const char* name, size_t name_len) {
  // Most variables a worker sets are not ours: skip the environment scan of FindRank for them.
  auto is = [&](const char* var) {
    return var != nullptr && strlen(var) == name_len && strncmp(var, name, name_len) == 0;
  };
  bool relevant = is(g_state.config.rank_var);
  for (int i = 0; i < config::kRankVarCount && !relevant; ++i) {
    relevant = is(config::kRankVars[i].rank) || is(config::kRankVars[i].size);
  }
  if (!relevant) return;
  RankMatch m;
  pid_t launcher = static_cast<pid_t>(base::Sys6(SYS_getppid));
  if (!FindRank(nullptr, environ, launcher, &m)) return;
  if (m.rank == g_state.worker_rank && m.nranks == g_state.worker_nranks) return;
  NUMABIND_BIND_STORAGE(saved, plan);
  BoundEvent event;
  int err = 0;
  BindResult r = BindRank(Entry::kSetenv, "(forked worker)", &m, &saved, &event, &err, &plan);
  // Strict mode cannot refuse a worker that is already running: it stops it, as a failed exec would.
  if (r == BindResult::kRefused) _exit(127);
  // The worker's own children (and an exec of it) must not bind themselves again.
  if (NeedsMarker(m)) {
    char marker[kMarkerMax];
    WriteMarker(m, marker);
    EnvironmentWrite write;  // caller_environment.h
    g_real.setenv("NUMABIND_BOUND", marker + sizeof("NUMABIND_BOUND=") - 1, 1);
  }
  if (r != BindResult::kBound) return;
  // This fork child's memory is its own: remember the binding, so that a later exec of the same rank is
  // neither logged again nor mistaken for a launcher's own binding.
  g_state.worker_rank = m.rank;
  g_state.worker_nranks = m.nranks;
  g_state.rank_bound = true;
  g_state.rank_pid = static_cast<pid_t>(base::Sys6(SYS_getpid));
  long got = base::Sys6(SYS_sched_getaffinity, 0, sizeof(g_state.launcher_cpus),
                        reinterpret_cast<long>(g_state.launcher_cpus));
  if (got > 0) g_state.launcher_cpu_words = static_cast<uint32_t>(got / 8);
  // torch sets LOCAL_RANK before LOCAL_WORLD_SIZE: bind at each, log once the rank count is known.
  bool sized = m.nranks != 0 || m.var == nullptr || g_state.config.rank_var != nullptr;
  for (int i = 0; i < config::kRankVarCount; ++i) {
    if (config::kRankVars[i].rank == m.var && config::kRankVars[i].size == nullptr) sized = true;
  }
  if (sized) FinishBound(event, static_cast<pid_t>(base::Sys6(SYS_getpid)));
  // Threads the worker started since the fork (a Callable worker's pools) join the rank's CPUs, as torchrun
  // binds a Callable's; threads started from now on inherit the calling thread's binding.
  OtherThreads threads = BindOtherThreads();
  if (sized) LogOtherThreads("(forked worker)", threads, ThreadsFrom::kBecameRank);
  ArmAffinityGuard();  // after the binding: the worker's CPUs are the rank's
}

}  // namespace
}  // namespace numabind::shim

using numabind::shim::g_real;
using numabind::shim::g_state;

#define NUMABIND_EXPORT extern "C" __attribute__((visibility("default")))

NUMABIND_EXPORT NUMABIND_HOT pid_t fork() {
  numabind::shim::EnsureResolved();
  return numabind::shim::RunFork(g_real.fork);
}

// _Fork is async-signal-safe (glibc, musl) and may be called from a signal handler: its wrapper finds the
// real one without dlsym (ResolveSafe, at its first call: not at start-up, which every process would pay
// for), captures no call stack, and prepares with mmap and raw system calls only (shim/launcher/prepare.cc).
// Its child resolves an exec lazily, as a process exec'ing itself.
NUMABIND_EXPORT pid_t _Fork() {
  pid_t (*real)() = numabind::shim::NeedSafe(NUMABIND_SLOT(_Fork));
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (!g_state.active || numabind::shim::t_in_shim) return real();
  int e = errno;
  // The site file's reading is raw system calls and an mmap too; a handler on the thread that reads it
  // does not wait for itself (site_config.h).
  if (numabind::shim::SiteFilePending() && !numabind::shim::ApplyPendingSiteFile()) {
    errno = e;
    return real();
  }
  numabind::shim::EnsurePrepared();
  errno = e;
  pid_t pid = real();
  if (pid == 0) numabind::shim::t_fork_child = true;
  return pid;
}

namespace {
/// The return address of this thread's vfork caller, from numabind_before_vfork to numabind_after_vfork.
__thread void* t_vfork_caller __attribute__((tls_model("initial-exec")));
}  // namespace

extern "C" void numabind_before_vfork(void* caller) {
  t_vfork_caller = caller;
  numabind::shim::EnsureResolved();  // the child's exec wrapper must find the real functions ready
  if (g_state.active && !numabind::shim::t_in_shim) numabind::shim::BeforeFork();
}

// Child-safe in the child (pid 0): reads one thread-local slot. In the parent, the child has exec'd or
// exited: a rank block or container environment its exec wrapper mapped is this process's memory, unused now.
extern "C" void* numabind_after_vfork(int pid) {
  numabind::shim::ExecMapping& m = numabind::shim::t_exec_mapping;
  if (pid != 0 && m.map != nullptr) {
    numabind::base::Sys6(SYS_munmap, reinterpret_cast<long>(m.map), static_cast<long>(m.size));
    m.map = nullptr;
    m.size = 0;
  }
  if (pid != 0 && m.container_map != nullptr) {
    numabind::base::Sys6(SYS_munmap, reinterpret_cast<long>(m.container_map),
                         static_cast<long>(m.container_size));
    m.container_map = nullptr;
    m.container_size = 0;
  }
  return t_vfork_caller;
}

// setenv and putenv hold the environment lock: a system or popen call of another thread must not change
// `environ` while glibc reads it (shim/entry/caller_environment.h).
NUMABIND_EXPORT int setenv(const char* name, const char* value, int overwrite) {
  auto real = NUMABIND_REAL(setenv);
  int ret;
  {
    numabind::shim::EnvironmentWrite write;
    ret = real(name, value, overwrite);
  }
  if (ret == 0 && g_state.active && numabind::shim::t_fork_child && !numabind::shim::t_in_shim) {
    int e = errno;
    numabind::shim::MaybeBindForkedWorker(name, strlen(name));
    errno = e;
  }
  return ret;
}

NUMABIND_EXPORT int putenv(char* string) {
  auto real = NUMABIND_REAL(putenv);
  int ret;
  {
    numabind::shim::EnvironmentWrite write;
    ret = real(string);
  }
  if (ret == 0 && g_state.active && numabind::shim::t_fork_child && !numabind::shim::t_in_shim) {
    int e = errno;
    size_t n = 0;  // the name's length; a loop, not strchr: the C++ overload would be a strong import
    while (string[n] != '\0' && string[n] != '=') ++n;
    if (string[n] == '=') numabind::shim::MaybeBindForkedWorker(string, n);
    errno = e;
  }
  return ret;
}
