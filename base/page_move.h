// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The memory a process already has, moved to the nodes it is bound to now. Binding a process's threads
// changes where its new pages go, not where the old ones are: a worker that touched 64 MiB on node 0 before
// it learnt its rank keeps all of it there. One mover for the library (a process that becomes a rank late:
// its own pages, shim/rank/become_rank.cc) and `numabind bind --pid` (another process's): raw system calls
// into a mapping of its own, no allocation, errno unchanged.

#ifndef NUMABIND_BASE_PAGE_MOVE_H_
#define NUMABIND_BASE_PAGE_MOVE_H_

#include <stdint.h>
#include <sys/types.h>

namespace numabind::base {

/// What MovePrivatePages did.
struct PagesMoved {
  uint64_t before_kb = 0;  ///< private anonymous memory off the nodes, before
  uint64_t left_kb = 0;    ///< the same, after (over budget, shared copy-on-write, refused)
  uint32_t ranges = 0;     ///< mappings asked to move
  bool over_budget = false;
  long error = 0;  ///< the first refusal's -errno (EPERM: seccomp or another user's process; ESRCH: gone)
  long ms = 0;
};

/// Moves process `pid`'s (0: this one) private anonymous pages (its heap, stacks and anonymous mappings:
/// maps lines with no file, numa_maps lines with the default policy: a mapping the program bound itself is
/// left as it is) that are off `nodes` (node_words words) onto them. This process's own: mbind with
/// MPOL_MF_MOVE, MPOL_BIND (MPOL_INTERLEAVE when `spread`), then the mapping's policy back to default.
/// Another's: move_pages(2) of the pages found off `nodes`, dealt over them in turn (Linux sets no policy
/// on another process's mappings). MPOL_MF_MOVE moves only pages the process alone maps: pages it shares (a
/// fork child's copy-on-write pages not yet written, its parent's) stay and count as left. Mappings are
/// taken in address order until `budget` bytes would be passed. Synchronous: a process that exits or execs
/// meanwhile loses nothing, the kernel moves each page whole.
PagesMoved MovePrivatePages(pid_t pid, const uint64_t* nodes, uint32_t node_words, bool spread,
                            uint64_t budget);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_PAGE_MOVE_H_
