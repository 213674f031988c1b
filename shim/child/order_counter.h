// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The by-order rank counter (NUMABIND_MATCH) shared by a launcher's whole tree: fork children, subshells and
// exec'd descendants (xargs, GNU parallel) alike. It is one page in the user's shared directory
// (<NUMABIND_SHARED>/numabind-UID/order-PID-START), named by the tree's root: the topmost ancestor of the
// launcher whose environment configures numabind (NUMABIND_POLICY). Each descendant finds it by walking its
// ancestors in /proc, so nothing is added to any environment. The page holds one slot per rank: the pid
// that holds it. A rank takes the lowest slot that is free or whose holder has finished, by compare-and-swap,
// so no two live ranks ever hold one number, and a restarted worker gets a finished one's rank again. The
// page is allocated for real before it is mapped (fallocate, or a write), so that a full file system is a
// failure to have the counter, never a SIGBUS at its first use. The root removes the page when it exits
// (RemoveOwnOrderCounter, at exit, _exit or _Exit); one it leaves (killed) is removed by the next tree's
// creator.

#ifndef NUMABIND_SHIM_CHILD_ORDER_COUNTER_H_
#define NUMABIND_SHIM_CHILD_ORDER_COUNTER_H_

#include <stdint.h>
#include <sys/types.h>

namespace numabind::shim {

/// Ranks one counter page holds.
constexpr uint32_t kOrderSlots = 1023;  // and a word of flags: the page is 1024 words

/// A slot taken by ClaimOrderRank and the page it is in, kept mapped for FinishOrderClaim.
struct OrderClaim {
  uint32_t* slot = nullptr;
  void* map = nullptr;
};

/// Child-safe (raw system calls): takes the lowest free rank of the counter of `launcher`'s tree for the
/// calling process (getpid), creating the page when it is the first. With `keep`, the page stays mapped
/// in *claim for FinishOrderClaim (a posix_spawn parent, which learns the child's pid after); without, it is
/// unmapped at once (a child between fork/vfork and exec: the rank's pid is the caller's). False when there
/// is no shared directory, no /proc or no free slot (the caller counts the launcher's children instead), or
/// when `launcher` is init (a child whose launcher is gone).
bool ClaimOrderRank(pid_t launcher, bool keep, uint32_t* rank, OrderClaim* claim);

/// Child-safe: whether `launcher` is the root of its tree (no configured parent), true too when /proc cannot
/// tell.
bool IsOrderTreeRoot(pid_t launcher);

/// Child-safe: whether the counter of `launcher`'s tree can be had (the page is mapped, made when it is the
/// first, and unmapped again). False when NUMABIND_SHARED is off, its directory is not usable or /proc is
/// not readable (*page_error = 0), or when the page cannot be allocated or mapped in the directory
/// (*page_error = its errno: ENOSPC when the file system is full).
bool OrderCounterUsable(pid_t launcher, int* page_error);

/// Flags of the counter page, for lines said once per tree.
constexpr uint32_t kOrderSaidGlob = 1;   ///< NUMABIND_MATCH matches the launcher's own command line
constexpr uint32_t kOrderSaidCount = 2;  ///< ranks found by order have no count

/// Child-safe: true the first time it is called with `flag` in the tree of `launcher` (a flag in the counter
/// page): for a line said once per launch, whichever fork child gets there first.
bool FirstInOrderTree(pid_t launcher, uint32_t flag);

/// Child-safe: gives the claimed slot to `owner` (0 frees it) and unmaps the page.
void FinishOrderClaim(OrderClaim* claim, uint32_t owner);

/// At the exit of a configured process that started programs: removes the counter page named after it, if
/// there is one. Once it has ended, no process finds that page again (its descendants are reparented, and
/// their tree has another root), so the page would otherwise stay until the next tree's creator reaps it.
void RemoveOwnOrderCounter();

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_ORDER_COUNTER_H_
