// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// posix_spawn, pidfd_spawn, system and popen start the child inside the C library (glibc's own clone and
// __execve), so nothing of ours runs in the child. The parent knows the new program's environment, so it
// decides here: bind the calling thread to the rank's plan, call through (the child inherits the thread's
// affinity and memory policy), and put the thread's binding back.

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "shim/child/bind_call.h"
#include "shim/child/container.h"
#include "shim/child/first_program.h"
#include "shim/entry/caller_environment.h"
#include "shim/entry/configure.h"
#include "shim/entry/site_config.h"
#include "shim/launcher/prepare.h"
#include "shim/rank/become_rank.h"
#include "shim/state/guard.h"

namespace numabind::shim {
namespace {

/// Binds if the spawn is a rank (preparing first, once), runs `call(env)` and restores the thread. The bound
/// line is logged with *child_pid when the call produced one, or with the pid unknown when it is nullptr.
/// `use`: kSpawn when `call` passes the environment to the C library, kEnviron when it makes it `environ`.
template <typename Call>
auto RunSpawn(Entry entry, BlockUse use, const char* path, char* const* argv, char* const* envp,
              int* refused_errno, pid_t* child_pid, Call call) -> decltype(call(envp)) {
  *refused_errno = 0;
  if (SiteFilePending() && !ApplyPendingSiteFile()) return call(envp);  // site_config.h
  NoteNoOrderCounter();
  RankMatch m;
  ShareFirstProgramWord();
  bool rank = FindSpawnRank(argv, envp, static_cast<pid_t>(base::Sys6(SYS_getpid)), &m);
  if (g_prepared.first_program != nullptr) {
    ChildArgs first = ChildArgsNow();
    NoteFirstProgram(first, rank, path);
  }
  if (!rank) return call(envp);
  if (m.bad_value == nullptr) EnsurePrepared();
  ChildArgs args = ChildArgsNow();
  BindCall b;  // each field by name (C++17 has no designated initialisers)
  b.args = &args, b.entry = entry, b.path = path, b.envp = envp, b.m = &m, b.use = use;
  b.child_pid = child_pid, b.refused_errno = refused_errno, b.argv = argv;
  auto ret = BindAndCall(b, call);
  // The by-order slot passes to the child; a failed spawn frees it. Without a pid (pidfd_spawn) the caller
  // keeps it until it exits.
  if (m.order.map != nullptr && child_pid != nullptr)
    FinishOrderClaim(&m.order, static_cast<uint32_t>(*child_pid));
  if (m.order.map != nullptr) FinishOrderClaim(&m.order, static_cast<uint32_t>(base::Sys6(SYS_getpid)));
  return ret;
}

bool Passthrough() { return !g_role.Acts() || t_in_shim; }

using SpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                        char* const[], char* const[]);

int SpawnRank(Entry entry, SpawnFn real, pid_t* pid, const char* path,
              const posix_spawn_file_actions_t* actions, const posix_spawnattr_t* attr, char* const argv[],
              char* const envp[]) {
  if (Passthrough()) {
    if (g_role.IsRank() && g_role.how == Role::kByOrder && !t_in_shim)
      WarnOrderRankSpawn(path, argv, g_role.pid);
    return real(pid, path, actions, attr, argv, envp);
  }
  Guard guard;
  // *pid is written only on success, as glibc does: a caller that starts with pid = -1 and cleans up with
  // kill(pid, ...) must not find 0 there (its own process group) after a failed spawn.
  pid_t child = 0;
  int refused = 0;
  bool pidfd = entry == Entry::kPidfdSpawn || entry == Entry::kPidfdSpawnp;  // child is a descriptor
  auto call = [&](char* const* e) {
    int r = real(&child, path, actions, attr, argv, e);
    if (r != 0) child = 0;
    return r;
  };
  int ret = RunSpawn(entry, BlockUse::kSpawn, path, argv, envp, &refused, pidfd ? nullptr : &child, call);
  if (refused != 0) return refused;
  if (ret == 0 && pid != nullptr) *pid = child;
  return ret;
}

/// SpawnRank with the environment a container runtime gets.
int Spawn(Entry entry, SpawnFn real, pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
          const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  if (real == nullptr) return ENOSYS;  // pidfd_spawn: glibc 2.39 and later only
  // An inert launcher's first spawn of a rank reads the site file, which may configure it (docs/site.md).
  if (!g_role.Acts() && !t_in_shim) ActivateForRankSpawn(envp);
  // A container runtime gets LD_PRELOAD without the library (shim/child/container.h), inert or not; with
  // NUMABIND_CONTAINER=keep, the shared basis for the library inside.
  ContainerStart start = ClassifyStart(path, envp);
  if (start == ContainerStart::kKeepRuntime && !Passthrough() &&
      (!SiteFilePending() || ApplyPendingSiteFile()))
    EnsurePrepared();
  ContainerBlock container;
  if (start == ContainerStart::kStrip) BuildContainerBlock(envp, &container);
  int ret =
      SpawnRank(entry, real, pid, path, actions, attr, argv, container.env != nullptr ? container.env : envp);
  FreeContainerBlock(&container);
  return ret;
}

}  // namespace
}  // namespace numabind::shim

using numabind::shim::BlockUse;
using numabind::shim::Entry;
using numabind::shim::g_real;

#define NUMABIND_EXPORT extern "C" __attribute__((visibility("default")))

NUMABIND_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                                const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  auto real = NUMABIND_REAL(posix_spawn);
  return numabind::shim::Spawn(Entry::kPosixSpawn, real, pid, path, actions, attr, argv, envp);
}

NUMABIND_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                                 const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  auto real = NUMABIND_REAL(posix_spawnp);
  return numabind::shim::Spawn(Entry::kPosixSpawnp, real, pid, file, actions, attr, argv, envp);
}

// pidfd_spawn hands back a descriptor, not a pid: its log line says the pid is unknown rather than guess.
NUMABIND_EXPORT int pidfd_spawn(int* pidfd, const char* path, const posix_spawn_file_actions_t* actions,
                                const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  auto real = reinterpret_cast<numabind::shim::SpawnFn>(NUMABIND_REAL(pidfd_spawn));
  return numabind::shim::Spawn(Entry::kPidfdSpawn, real, reinterpret_cast<pid_t*>(pidfd), path, actions, attr,
                               argv, envp);
}

NUMABIND_EXPORT int pidfd_spawnp(int* pidfd, const char* file, const posix_spawn_file_actions_t* actions,
                                 const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  auto real = reinterpret_cast<numabind::shim::SpawnFn>(NUMABIND_REAL(pidfd_spawnp));
  return numabind::shim::Spawn(Entry::kPidfdSpawnp, real, reinterpret_cast<pid_t*>(pidfd), file, actions,
                               attr, argv, envp);
}

NUMABIND_EXPORT int system(const char* command) {
  auto real = NUMABIND_REAL(system);
  if (command == nullptr || numabind::shim::Passthrough()) return real(command);
  numabind::shim::Guard guard;
  char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>(command), nullptr};
  int refused = 0;
  numabind::shim::LauncherEnvironment launcher;
  int ret = numabind::shim::RunSpawn(Entry::kSystem, BlockUse::kEnviron, command, argv, launcher.env(),
                                     &refused, nullptr, [&](char* const* e) {
                                       numabind::shim::CallerEnvironment swap(e, launcher);
                                       launcher.Done();
                                       return g_real.system(command);
                                     });
  if (refused != 0) {
    errno = refused;
    return -1;
  }
  return ret;
}

NUMABIND_EXPORT FILE* popen(const char* command, const char* mode) {
  auto real = NUMABIND_REAL(popen);
  if (command == nullptr || numabind::shim::Passthrough()) return real(command, mode);
  numabind::shim::Guard guard;
  char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>(command), nullptr};
  int refused = 0;
  numabind::shim::LauncherEnvironment launcher;
  FILE* ret = numabind::shim::RunSpawn(Entry::kPopen, BlockUse::kEnviron, command, argv, launcher.env(),
                                       &refused, nullptr, [&](char* const* e) {
                                         numabind::shim::CallerEnvironment swap(e, launcher);
                                         launcher.Done();
                                         return g_real.popen(command, mode);
                                       });
  if (refused != 0) {
    errno = refused;
    return nullptr;
  }
  return ret;
}
