// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// How many local ranks run on this machine, from the launcher's variables. One place for both the library
// (which may call it between fork and exec) and `numabind plan`, so that the command shows what a launch
// does. Pure: no allocation, no system calls.

#ifndef NUMABIND_CONFIG_RANK_COUNT_H_
#define NUMABIND_CONFIG_RANK_COUNT_H_

#include <stdint.h>

namespace numabind::config {

/// Slurm's compressed per-node task counts, as in SLURM_STEP_TASKS_PER_NODE and SLURM_TASKS_PER_NODE:
/// comma-separated entries "N" or "N(xM)" (N tasks on each of M nodes), e.g. "2(x3),1" for 2,2,2,1.
/// Sets *out to the count of node `node` (0-based) and returns true; false when the value does not follow
/// the grammar, a count is 0 or above 2^20, or the list has no entry for `node`.
bool ParseTaskCounts(const char* value, uint32_t node, uint32_t* out);

/// The local rank count that goes with kRankVars[var] in env, or 0 when unknown: the launcher's local-size
/// variable (a positive decimal number); for SLURM_LOCALID, this node's entry (by SLURM_NODEID, default 0)
/// of SLURM_STEP_TASKS_PER_NODE, else of SLURM_TASKS_PER_NODE. A value that is not a count is not a count
/// (0). Child-safe.
uint32_t LocalRankCount(const char* const* env, int var);

/// The variable LocalRankCount read for kRankVars[var] in env ("SLURM_TASKS_PER_NODE"), nullptr when none.
const char* LocalRankCountSource(const char* const* env, int var);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_RANK_COUNT_H_
