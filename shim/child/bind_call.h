// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Binding the calling thread to a rank's plan around the one call that starts the rank: an exec (the exec
// wrappers, usually in the child of a fork or vfork) or a spawn the C library makes (posix_spawn, system,
// popen: the child inherits the thread's binding). One template for both; they differ in when the bound
// line is written and in how long the rank's environment lives (BlockUse, shim/child/rank_exports.h).

#ifndef NUMABIND_SHIM_CHILD_BIND_CALL_H_
#define NUMABIND_SHIM_CHILD_BIND_CALL_H_

#include <errno.h>
#include <sys/types.h>

#include "base/command_name.h"
#include "base/syscalls.h"
#include "shim/child/child.h"
#include "shim/child/rank_exports.h"
#include "shim/log/log.h"

namespace numabind::shim {

/// One call that starts rank `m` with `path`; envp is the environment it would start with.
struct BindCall {
  const ChildArgs* args = nullptr;  ///< what the process that starts it hands the child side
  Entry entry = Entry::kStartup;
  const char* path = nullptr;
  char* const* envp = nullptr;
  RankMatch* m = nullptr;
  /// What the rank's environment is for (rank_exports.h). kExec: the bound line is written before the call,
  /// which does not come back (with `pid`, the caller's, unless setenv bound and logged this rank already),
  /// and the rank's environment is noted in t_exec_mapping for numabind_after_vfork. Else a spawn: the line
  /// is written after the call, with *child_pid (when child_pid is nullptr: with the pid unknown; when
  /// *child_pid is 0: not at all).
  BlockUse use = BlockUse::kExec;
  pid_t pid = 0;
  const pid_t* child_pid = nullptr;
  /// Set when the call is refused (NUMABIND_STRICT=1 and the rank could not be bound): the errno to fail
  /// with; `call` is then not made.
  int* refused_errno = nullptr;
  /// The program's arguments (may be nullptr): a Python rank is named by its script (base/command_name.h).
  char* const* argv = nullptr;
};

/// Child-safe: binds the calling thread to rank b.m's plan, runs `call(env)` and restores the thread's
/// binding after it (a successful exec does not return). `env` is envp with NUMABIND_BOUND first for a
/// rank, so that it does not bind itself again at start-up, nor do its children, then NUMABIND_EXPORT's
/// entries, built in a mapping of their own (BuildRankBlock; the thread's stack may be 16 KiB), which the
/// exec drops, or, in a vfork child, numabind_after_vfork in the parent; a spawn's is kept for the next, and
/// one that `call` makes `environ` stays mapped for good (BlockUse). Refused: returns a value-initialised
/// result with *b.refused_errno set. Not inlined: its saved binding is on the stack only now, not while
/// FindRank reads /proc. Stack: this frame is 0.75 KiB and the sets (child.h); it keeps the bound rank's
/// event, not its line, across `call` (popen's and system's own spawn runs below it: a 16 KiB thread stack
/// overflowed when it held a 2 KiB line and an 8,192-CPU mask there). The rank is named in its lines by
/// base::CommandName (a Python rank by its script: a 256-byte name, only then).
template <typename Call>
__attribute__((noinline)) auto BindAndCall(const BindCall& b, Call call) -> decltype(call(b.envp)) {
  // The binding it had and the rank's plan, computed once by BindRank and handed on to its exports.
  const ChildArgs& a = *b.args;
  NUMABIND_BIND_STORAGE(a, saved, plan);
  // Room for a Python rank's name only (a VLA: the stack is unchanged for others); the event points at it.
  bool python = base::IsPythonName(b.path) || (b.argv != nullptr && base::IsPythonName(b.argv[0]));
  char name[python ? base::kCommandNameMax : 1];
  const char* path = base::CommandName(b.path, const_cast<const char* const*>(b.argv), name, sizeof(name));
  BoundEvent event;  // its line is made when it is written (FinishBound): no line's buffer here
  b.m->spawned = b.use != BlockUse::kExec;  // a spawn's child is the rank this process binds from outside
  BindResult r = BindRank(a, b.entry, path, b.m, &saved, &event, b.refused_errno, &plan);
  if (r == BindResult::kRefused) return decltype(call(b.envp))();
  RankBlock block;
  bool exec = b.use == BlockUse::kExec;
  int e = BuildRankBlock(a, b.envp, *b.m, r == BindResult::kBound ? &plan : nullptr, path, &block, b.use);
  if (e != 0 && r == BindResult::kBound) {
    Restore(saved);
    r = FailEnvironment(a, path, *b.m, e, b.refused_errno);
    if (r == BindResult::kRefused) return decltype(call(b.envp))();
  }
  if (exec) {
    // A mapping an exec in a CLONE_VM child left here (no vfork of ours to unmap it): unused now.
    if (t_exec_mapping.map != nullptr)
      base::Sys6(SYS_munmap, reinterpret_cast<long>(t_exec_mapping.map),
                 static_cast<long>(t_exec_mapping.size));
    t_exec_mapping.map = block.map;
    t_exec_mapping.size = block.map_size;
    // A launcher that binds the child between setenv and exec (hydra's -bind-to) is worth a line again.
    if (r == BindResult::kBound && (!BoundAtSetenv(a, *b.m) || b.m->replaced)) FinishBound(event, b.pid);
  }
  auto ret = call(block.env);
  e = errno;
  FreeRankBlock(&block, b.use);
  if (exec) t_exec_mapping.map = nullptr, t_exec_mapping.size = 0;
  if (r == BindResult::kBound) {
    Restore(saved);
    if (!exec && (b.child_pid == nullptr || *b.child_pid > 0))
      FinishBound(event, b.child_pid != nullptr ? *b.child_pid : 0);
  }
  errno = e;
  return ret;
}

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_BIND_CALL_H_
