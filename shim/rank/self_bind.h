// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Ranks that bind themselves: the library's constructor in a process that starts as a rank which no
// numabind launcher bound (srun's tasks, ranks of a launcher that is not preloaded: mpirun's daemons over
// ssh, hydra's proxies, launchers written in Go).

#ifndef NUMABIND_SHIM_RANK_SELF_BIND_H_
#define NUMABIND_SHIM_RANK_SELF_BIND_H_

#include <stddef.h>

#include "config/rank_count.h"

namespace numabind::shim {

/// Constructor, once the configure step (shim/entry/configure.h) has parsed the configuration, from the
/// start-up environment's one pass (g_startup.facts; facts.named is NUMABIND_RANK_VAR's variable's value,
/// when it is set): decides, by the rule in
/// docs/launchers.md ("Who binds itself"), whether this process is a rank, and binds it when it is one that
/// no launcher bound. Returns true for a rank (bound now, bound before, or found by NUMABIND_MATCH), false
/// for a launcher. Records the rank variables of the start-up environment (g_startup.rank_vars). In
/// strict mode a rank that cannot be bound exits here (BecomeRank, shim/rank/become_rank.h). Makes the role
/// of a rank (BecomeRank, BecomeBoundRank); leaves a launcher's to the caller.
bool StartAsRank();

/// NUMABIND_BY_DEVICE=1, after this running process set `name` (its first name_len characters: setenv,
/// putenv, Python's os.environ) in its environment: when `name` is a visibility list that now leaves it one
/// device, it becomes that device's rank (Role::kSetDevice, BecomeRank: its threads, then its pages), or
/// that of another device it is given later. Ray's workers get their GPU so, in a process started before.
/// Returns whether it bound.
bool AssignedDevice(const char* name, size_t name_len);

/// NUMABIND_BOUND's value into this process's environment: the real setenv under the environment lock
/// (shim/entry/fork_wrappers.cc), for a rank that became one in a running process.
void SetMarkerNow(const char* value);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_SELF_BIND_H_
