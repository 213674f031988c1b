// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// fork, _Fork and vfork: the parent side of a spawn whose child will exec (mpirun, hydra, bash) or run a
// worker without exec (torchrun --start_method fork). The child learns whether it is a rank only from the
// environment it builds after the fork, and must not plan there, so the parent prepares the basis first,
// once per process. A forked worker that never execs becomes a rank when it sets its rank variable
// (torch's worker wrapper sets LOCAL_RANK through os.environ, i.e. setenv): setenv and putenv bind it then.

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "shim/child/child.h"
#include "shim/child/first_program.h"
#include "shim/child/pool_process.h"
#include "shim/child/rank_exports.h"
#include "shim/entry/caller_environment.h"
#include "shim/entry/configure.h"
#include "shim/entry/site_config.h"
#include "shim/entry/vfork.h"
#include "shim/launcher/prepare.h"
#include "shim/rank/become_rank.h"
#include "shim/rank/self_bind.h"
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
  if (g_startup.config.log < config::LogLevel::kInfo) return;
  ShareFirstProgramWord();
  if (g_startup.config.log != config::LogLevel::kDebug) return;
  int e = errno;
  Guard guard;  // the unwinder it may load runs other libraries' constructors
  CaptureStack();
  errno = e;
}

/// Child-safe: in the child of a fork of a Python process under NUMABIND_FORKS=ranks (ForksTakeRanks: a fork
/// or forkserver pool's worker), before fork returns: takes the next rank by order from the tree's shared
/// counter (order_counter.h) and becomes it (shim/rank/become_rank.h), with what its parent prepared (the
/// child's copy: ChildArgsNow). The child has one thread: there are no others to bind. Not inlined: its frame
/// is on the stack of a fork child only, not in every fork's (each page of stack a launcher writes between
/// two forks is a fault at the second).
__attribute__((noinline)) void BindForkChild() {
  RankMatch m;
  pid_t parent = static_cast<pid_t>(base::Sys6(SYS_getppid));
  if (!ClaimOrderRank(parent, true, &m.rank, &m.order)) return;  // no shared directory: unbound
  m.nranks = g_startup.config.nranks;
  if (m.nranks == 0) NoteUnknownCount(parent);
  BecomeRank(ChildArgsNow(), Role::kFork, "(forked child)", &m);
}

NUMABIND_HOT pid_t RunFork(pid_t (*real)()) {
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (!g_role.Acts() || t_in_shim) return real();
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

/// After setenv/putenv of `name` in a forked child: becomes a rank if the child's environment now makes it
/// one (shim/rank/become_rank.h), once per rank and count.
void MaybeBindForkedWorker(const char* name, size_t name_len) {
  // Most variables a worker sets are not ours: skip the environment scan of FindRank for them.
  auto is = [&](const char* var) {
    return var != nullptr && strlen(var) == name_len && strncmp(var, name, name_len) == 0;
  };
  bool relevant = is(g_startup.config.rank_var);
  for (int i = 0; i < config::kRankVarCount && !relevant; ++i) {
    relevant = is(config::kRankVarNames[i]) || is(config::kRankSizeNames[i]);
  }
  if (!relevant) return;
  RankMatch m;
  pid_t launcher = static_cast<pid_t>(base::Sys6(SYS_getppid));
  if (!FindSpawnRank(nullptr, environ, launcher, &m)) return;  // its environment now, in one pass
  if (g_role.IsRank() && m.rank == g_role.rank && m.nranks == g_role.nranks) return;
  BecomeRank(ChildArgsNow(), Role::kSetenv, "(forked worker)", &m, SetMarkerNow);
}

/// After setenv/putenv of `name` (name_len characters) succeeded: what it may make of this process.
void AfterSetenv(const char* name, size_t name_len) {
  if (!g_role.Acts() || t_in_shim) return;
  int e = errno;
  if (!AssignedDevice(name, name_len) && t_fork_child) MaybeBindForkedWorker(name, name_len);
  errno = e;
}

}  // namespace

// A rank's NUMABIND_BOUND value, through the real setenv under the environment lock that system and popen of
// its other threads take (shim/entry/caller_environment.h).
void SetMarkerNow(const char* value) {
  EnvironmentWrite write;
  g_real.setenv(config::kVarNames[config::kVarBound], value, 1);
}

}  // namespace numabind::shim

using numabind::shim::g_real;
using numabind::shim::g_role;

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
  if (!g_role.Acts() || numabind::shim::t_in_shim) return real();
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
  if (g_role.Acts() && !numabind::shim::t_in_shim) numabind::shim::BeforeFork();
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
  if (ret == 0) numabind::shim::AfterSetenv(name, strlen(name));
  return ret;
}

NUMABIND_EXPORT int putenv(char* string) {
  auto real = NUMABIND_REAL(putenv);
  int ret;
  {
    numabind::shim::EnvironmentWrite write;
    ret = real(string);
  }
  if (ret == 0 && g_role.Acts()) {
    size_t n = 0;  // the name's length; a loop, not strchr: the C++ overload would be a strong import
    while (string[n] != '\0' && string[n] != '=') ++n;
    if (string[n] == '=') numabind::shim::AfterSetenv(string, n);
  }
  return ret;
}
