// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// How many local ranks run on this machine, from the launcher's variables. One place for both the library
// (which may call it between fork and exec) and `numabind plan`, so that the command shows what a launch
// does. Pure: no allocation, no system calls.

#ifndef NUMABIND_CONFIG_RANK_COUNT_H_
#define NUMABIND_CONFIG_RANK_COUNT_H_

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "config/env_facts.h"

namespace numabind::config {

/// Child-safe: the built-in rank variable that decides (an index of kRankVars), or -1: the first whose value
/// `facts` has, non-empty, leaving out those whose bit (1 << i) is in `skip`, and SLURM_LOCALID without
/// SLURM_STEP_ID (a batch script has it; only a step's tasks are Slurm's ranks). The library's start-up and
/// exec wrappers (shim/child/child.cc's FindRankVar) and `numabind ps` pick by it.
int FirstRankVar(const EnvFacts& facts, uint32_t skip = 0);

/// Slurm's compressed per-node task counts, as in SLURM_STEP_TASKS_PER_NODE and SLURM_TASKS_PER_NODE:
/// comma-separated entries "N" or "N(xM)" (N tasks on each of M nodes), e.g. "2(x3),1" for 2,2,2,1.
/// Sets *out to the count of node `node` (0-based) and returns true; false when the value does not follow
/// the grammar, a count is 0 or above 2^20, or the list has no entry for `node`.
bool ParseTaskCounts(const char* value, uint32_t node, uint32_t* out);

/// The local rank count that goes with kRankVars[var], or 0 when unknown: the launcher's local-size
/// variable (a positive decimal number); for SLURM_LOCALID, this node's entry (by SLURM_NODEID, default 0)
/// of SLURM_STEP_TASKS_PER_NODE, else of SLURM_TASKS_PER_NODE. A value that is not a count is not a count
/// (0). Child-safe.
uint32_t LocalRankCount(const EnvFacts& facts, int var);
/// The same, of an environment (one ScanEnvFacts).
uint32_t LocalRankCount(const char* const* env, int var);

/// The variable LocalRankCount reads for kRankVars[var] ("SLURM_TASKS_PER_NODE"), nullptr when none; its
/// value into *value when not nullptr.
const char* LocalRankCountSource(const EnvFacts& facts, int var, const char** value = nullptr);
/// The same, of an environment.
const char* LocalRankCountSource(const char* const* env, int var);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_RANK_COUNT_H_
