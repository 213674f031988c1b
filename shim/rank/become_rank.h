// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one way into the rank role (g_role, shim/state/state.h), and the one binding of a running process by
// itself: at start-up (a rank no launcher bound, a device's rank), in a fork child under
// NUMABIND_FORKS=ranks, in a forked worker that sets its rank variable. Each way used to write its own
// refusal, role, bound line, thread sweep, guard and marker; here they are written once, and each way
// differs only where the table in BecomeRank's contract says.

#ifndef NUMABIND_SHIM_RANK_BECOME_RANK_H_
#define NUMABIND_SHIM_RANK_BECOME_RANK_H_

#include "shim/child/child.h"
#include "shim/state/state.h"

namespace numabind::shim {

/// Exit status of a rank that binds itself in its own process, cannot be bound and runs in strict mode
/// (NUMABIND_STRICT=1): it stops there, as a refused exec would (the shell's 127).
constexpr int kStrictExitStatus = 127;

/// What this process hands the child side of a spawn (shim/child/child.h), from its preparation and its role:
/// made by the entry points (on the parent side of a spawn or fork, or in a child between fork and exec from
/// the memory it has from its parent) and by a rank binding itself, after they prepared.
ChildArgs ChildArgsNow();

/// A process that started as a rank bound before its start (`how`: Role::kByLauncher, its NUMABIND_BOUND's
/// proof; Role::kByOrder, its command line matches NUMABIND_MATCH): the role (whether its exit is the rank's
/// end: Role::ends), and the affinity guard.
void BecomeBoundRank(Role::How how);

/// This running process binds itself as rank *m, which its caller found, with what its preparation hands the
/// child side (a, shim/child/child.h), and becomes it (`how`: kSelf or
/// kDevice at start-up, kFork in a fork child whose rank by order is m->order's slot, kSetenv in a forked
/// worker). In order:
///   - BindRank (the child side's, shim/child/child.h); strict mode stops a rank it cannot bind
///     (exit status kStrictExitStatus);
///   - NUMABIND_BOUND, bound or not, so that its children and its exec do not try again (kSelf and kDevice:
///     `environ` remade with NUMABIND_EXPORT's entries; kSetenv: `set_marker`; a fork child has none);
///   - when bound: the role (the only place that makes one), the bound line (a forked worker's only once
///     its rank count is known), its other threads moved to its CPUs (not a fork child's: it has one), and
///     the affinity guard (NUMABIND_GUARD=1).
/// A fork child keeps its slot and the binding it had until it exits or execs (GiveBackForkRank). `program`
/// names it in its lines. Returns whether it is bound.
/// A forked worker's NUMABIND_BOUND value into its environment: the entry point's setenv (under the lock that
/// keeps its other threads' system and popen out, shim/entry/caller_environment.h).
using SetMarker = void (*)(const char* value);

bool BecomeRank(const ChildArgs& a, Role::How how, const char* program, RankMatch* m,
                SetMarker set_marker = nullptr);

/// The CPUs this rank was bound to, when KeepPlannedCpus (shim/rank/locality.h) kept them: *words of them;
/// nullptr when it did not.
const uint64_t* PlannedCpus(uint32_t* words);

/// Child-safe: in a fork child that took a rank under NUMABIND_FORKS=ranks, called at exec of `path`: gives
/// the rank's slot back to the shared counter, undoes the binding, says so (WriteGaveBack) and is the
/// launcher it was again. Else nothing: in that child's own fork or vfork children too, which keep its rank.
void GiveBackForkRank(const char* path);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_BECOME_RANK_H_
