// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The exec family. glibc's execv, execvp, execl... call its internal __execve, not the execve we export, so
// each is wrapped itself. An exec wrapper binds the calling thread just before the real exec (affinity and
// memory policy survive exec) and puts the old binding back if the exec fails. It usually runs in the child
// of a fork or vfork, so it touches nothing but its stack, data the parent prepared and a mapping of its own
// (the rank's environment: its size follows the environment's, and the thread's stack may be 16 KiB).

#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "shim/child/bind_call.h"
#include "shim/child/container.h"
#include "shim/child/first_program.h"
#include "shim/entry/configure.h"
#include "shim/entry/site_config.h"
#include "shim/launcher/prepare.h"
#include "shim/rank/become_rank.h"

extern char** environ;

namespace numabind::shim {
namespace {

/// Binds if the program is a rank, runs `call(env)` (the real exec) and restores the binding if it returns.
template <typename Call>
NUMABIND_HOT int ExecRank(Entry entry, const char* path, char* const* argv, char* const* envp, Call call) {
  if (t_fork_child) GiveBackForkRank(path);  // NUMABIND_FORKS: a fork child that execs is no worker
  if (!g_role.Acts()) {
    // A child of a rank found by order starting a program its glob matches too: the glob pitfall.
    if (g_role.IsRank() && g_role.how == Role::kByOrder && base::Sys6(SYS_getpid) != g_role.pid)
      WarnOrderRankSpawn(path, argv, g_role.pid);
    return call(envp);
  }
  // A process exec'ing a program of its own reads a pending site file first (site_config.h); a child
  // between fork and exec never does: its parent read it before the fork, or it goes without.
  if (SiteFilePending() && !t_fork_child && base::Sys6(SYS_getpid) == g_startup.pid &&
      !ApplyPendingSiteFile())
    return call(envp);
  pid_t launcher = static_cast<pid_t>(base::Sys6(SYS_getppid));
  RankMatch found;
  bool rank = FindSpawnRank(argv, envp, launcher, &found);
  // The first program a launcher's child starts (not the launcher exec'ing itself), at info.
  if (g_prepared.first_program != nullptr && base::Sys6(SYS_getpid) != g_startup.pid) {
    ChildArgs first = ChildArgsNow();
    NoteFirstProgram(first, rank, path);
  }
  if (!rank) return call(envp);
  pid_t self = static_cast<pid_t>(base::Sys6(SYS_getpid));
  // A process exec'ing itself (not a child between fork/vfork and exec) may prepare here: it is the parent
  // side of its own start. A child never does: it uses what its parent prepared, or runs unbound.
  if (self == g_startup.pid && !t_fork_child && found.bad_value == nullptr) EnsurePrepared();
  int refused = 0;
  ChildArgs args = ChildArgsNow();
  BindCall b;  // each field by name (C++17 has no designated initialisers)
  b.args = &args, b.entry = entry, b.path = path, b.envp = envp, b.m = &found, b.use = BlockUse::kExec;
  b.pid = self, b.refused_errno = &refused, b.argv = argv;
  int ret = BindAndCall(b, call);
  if (refused == 0) return ret;
  errno = refused;
  return -1;
}

/// ExecRank with the environment a container runtime gets (shim/child/container.h), in every process the
/// library is in, inert or not: the library may be preloaded into all of a user's shells.
template <typename Call>
NUMABIND_HOT int RunExec(Entry entry, const char* path, char* const* argv, char* const* envp, Call call) {
  ContainerStart start = ClassifyStart(path, envp);
  // A process exec'ing a runtime itself (a shell's last command) prepares as a rank's would, so that the
  // library inside finds the shared basis; a fork child's parent prepared before the fork.
  if (start == ContainerStart::kKeepRuntime && g_role.Acts() && !t_fork_child &&
      static_cast<pid_t>(base::Sys6(SYS_getpid)) == g_startup.pid)
    EnsurePrepared();
  ContainerBlock container;
  if (start == ContainerStart::kStrip) BuildContainerBlock(envp, &container);
  if (container.map == nullptr) return ExecRank(entry, path, argv, envp, call);
  ExecMapping& slot = t_exec_mapping;
  // One an exec in a CLONE_VM child left here (no vfork of ours to unmap it): unused now.
  if (slot.container_map != nullptr)
    base::Sys6(SYS_munmap, reinterpret_cast<long>(slot.container_map),
               static_cast<long>(slot.container_size));
  slot.container_map = container.map;
  slot.container_size = container.map_size;
  int ret = ExecRank(entry, path, argv, container.env, call);
  FreeContainerBlock(&container);  // raw munmap: errno stays the exec's
  slot.container_map = nullptr;
  slot.container_size = 0;
  return ret;
}

/// Collects execl-style arguments (arg0, ..., NULL[, envp]) into argv on the caller's stack.
// NOLINTBEGIN(bugprone-macro-parentheses): the arguments are names being declared, not expressions.
#define NUMABIND_COLLECT_ARGS(arg0, argv_name, envp_name, with_envp)       \
  va_list ap;                                                              \
  va_start(ap, arg0);                                                      \
  size_t count = 1;                                                        \
  while (va_arg(ap, char*) != nullptr) ++count;                            \
  va_end(ap);                                                              \
  char* argv_name[count + 1];                                              \
  argv_name[0] = const_cast<char*>(arg0);                                  \
  va_start(ap, arg0);                                                      \
  for (size_t i = 1; i <= count; ++i) argv_name[i] = va_arg(ap, char*);    \
  char* const* envp_name = with_envp ? va_arg(ap, char* const*) : environ; \
  va_end(ap)
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace
}  // namespace numabind::shim

using numabind::shim::Entry;
using numabind::shim::g_real;
using numabind::shim::RunExec;

#define NUMABIND_EXPORT extern "C" __attribute__((visibility("default")))

NUMABIND_EXPORT NUMABIND_HOT int execve(const char* path, char* const argv[], char* const envp[]) {
  NUMABIND_NEED(execve);
  return RunExec(Entry::kExecve, path, argv, envp,
                 [&](char* const* e) { return g_real.execve(path, argv, e); });
}

NUMABIND_EXPORT NUMABIND_HOT int execv(const char* path, char* const argv[]) {
  NUMABIND_NEED(execv);
  NUMABIND_NEED(execve);
  return RunExec(Entry::kExecv, path, argv, environ, [&](char* const* e) {
    return e == environ ? g_real.execv(path, argv) : g_real.execve(path, argv, e);
  });
}

NUMABIND_EXPORT NUMABIND_HOT int execvp(const char* file, char* const argv[]) {
  NUMABIND_NEED(execvp);
  NUMABIND_NEED(execvpe);
  return RunExec(Entry::kExecvp, file, argv, environ, [&](char* const* e) {
    return e == environ ? g_real.execvp(file, argv) : g_real.execvpe(file, argv, e);
  });
}

NUMABIND_EXPORT NUMABIND_HOT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  NUMABIND_NEED(execvpe);
  return RunExec(Entry::kExecvpe, file, argv, envp,
                 [&](char* const* e) { return g_real.execvpe(file, argv, e); });
}

NUMABIND_EXPORT NUMABIND_HOT int fexecve(int fd, char* const argv[], char* const envp[]) {
  NUMABIND_NEED(fexecve);
  const char* path = argv != nullptr && argv[0] != nullptr ? argv[0] : "(fexecve)";
  return RunExec(Entry::kFexecve, path, argv, envp,
                 [&](char* const* e) { return g_real.fexecve(fd, argv, e); });
}

NUMABIND_EXPORT NUMABIND_HOT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[],
                                          int flags) {
  NUMABIND_NEED(execveat);
  if (g_real.execveat == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return RunExec(Entry::kExecveat, path, argv, envp,
                 [&](char* const* e) { return g_real.execveat(dirfd, path, argv, e, flags); });
}

// Each wrapper finds its real function first: already there in a child of our fork, vfork or spawn (their
// parent side resolves every one); in a process exec'ing itself, one dlsym, as the C library's own lazy
// binding would do.

// The execl family becomes execve / execvp with an argv built on the stack (no allocation: this may be a
// vfork child).
NUMABIND_EXPORT NUMABIND_HOT int execl(const char* path, const char* arg, ...) {
  NUMABIND_NEED(execve);
  NUMABIND_COLLECT_ARGS(arg, argv, envp, false);
  return RunExec(Entry::kExecl, path, argv, envp,
                 [&](char* const* e) { return g_real.execve(path, argv, e); });
}

NUMABIND_EXPORT NUMABIND_HOT int execle(const char* path, const char* arg, ...) {
  NUMABIND_NEED(execve);
  NUMABIND_COLLECT_ARGS(arg, argv, envp, true);
  return RunExec(Entry::kExecle, path, argv, envp,
                 [&](char* const* e) { return g_real.execve(path, argv, e); });
}

NUMABIND_EXPORT NUMABIND_HOT int execlp(const char* file, const char* arg, ...) {
  NUMABIND_NEED(execvp);
  NUMABIND_NEED(execvpe);
  NUMABIND_COLLECT_ARGS(arg, argv, envp, false);
  return RunExec(Entry::kExeclp, file, argv, envp, [&](char* const* e) {
    return e == environ ? g_real.execvp(file, argv) : g_real.execvpe(file, argv, e);
  });
}
