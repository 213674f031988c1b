// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The memory a process already has when it becomes a rank while it runs (a forked worker's setenv, a
// NUMABIND_FORKS child, a device given in-process: issue 37). Binding its threads changes where its new
// pages go, not where the old ones are: a worker that touched 64 MiB on node 0 before it learnt its rank
// kept all of it there. Its private anonymous pages on other nodes move to the rank's nodes, up to
// NUMABIND_MOVE's budget, synchronously in the thread that made it a rank (an exec or exit after it loses
// nothing: the kernel moves each page whole).

#ifndef NUMABIND_SHIM_RANK_PAGE_MOVE_H_
#define NUMABIND_SHIM_RANK_PAGE_MOVE_H_

#include <stdint.h>

namespace numabind::shim {

/// What MoveOwnPages did.
struct PagesMoved {
  uint64_t before_kb = 0;  ///< private anonymous memory off the rank's nodes, before
  uint64_t left_kb = 0;    ///< the same, after (over budget, shared copy-on-write, refused)
  uint32_t ranges = 0;     ///< mappings asked to move
  bool over_budget = false;
  long error = 0;  ///< the first refusal's -errno (EPERM under seccomp, ENOMEM: a node without room)
  long ms = 0;
};

/// Moves this process's private anonymous pages (its heap, stacks and anonymous mappings: /proc/self/maps
/// lines with no file, numa_maps lines with the default policy: a mapping the program bound itself is left
/// as it is) that are off `nodes` (node_words words) onto them: mbind with MPOL_MF_MOVE, MPOL_BIND (or
/// MPOL_INTERLEAVE when `spread`), then the mapping's policy back to default. MPOL_MF_MOVE moves only pages
/// this process alone maps: pages it shares with another (a fork child's copy-on-write pages not yet
/// written, its parent's) stay where they are and count as left. Mappings are taken in address order until
/// `budget` bytes would be passed. Raw system calls into a mapping of its own.
PagesMoved MoveOwnPages(const uint64_t* nodes, uint32_t node_words, bool spread, uint64_t budget);

/// Says what MoveOwnPages did, once, at info (at warn when a move was refused); nothing when nothing was
/// off the rank's nodes.
void LogPagesMoved(const char* program, const PagesMoved& m, const uint64_t* nodes, uint32_t node_words);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_PAGE_MOVE_H_
