// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The memory a process already has when it becomes a rank while it runs (a forked worker's setenv, a
// NUMABIND_FORKS child, a device given in-process: issue 37) is moved to the rank's nodes by
// base::MovePrivatePages, up to NUMABIND_MOVE's budget, in the thread that made it a rank; this says so.

#ifndef NUMABIND_SHIM_RANK_PAGE_MOVE_H_
#define NUMABIND_SHIM_RANK_PAGE_MOVE_H_

#include <stdint.h>

#include "base/page_move.h"

namespace numabind::shim {

/// Says what base::MovePrivatePages did for this process, once, at info (at warn when a move was
/// refused); nothing when nothing was off the rank's nodes.
void LogPagesMoved(const char* program, const base::PagesMoved& m, const uint64_t* nodes,
                   uint32_t node_words);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_PAGE_MOVE_H_
