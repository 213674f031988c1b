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

namespace numabind::config {

/// What an environment says about ranks, read in one pass (ScanEnvFacts): the values of the built-in rank
/// variables and their local-size variables, and Slurm's step facts. Everything after the pass reads this,
/// not the environment again. Pointers into the environment (the first entry of a name, as Lookup finds
/// it), nullptr when absent. Child-safe: plain data.
struct EnvFacts {
  const char* rank[kRankVarCount] = {};  ///< kRankVars[i].rank's value
  const char* size[kRankVarCount] = {};  ///< kRankVars[i].size's value (SLURM_LOCALID has none)
  const char* slurm_step_id = nullptr;
  const char* slurm_step_tasks = nullptr;  ///< SLURM_STEP_TASKS_PER_NODE
  const char* slurm_tasks = nullptr;       ///< SLURM_TASKS_PER_NODE
  const char* slurm_node_id = nullptr;     ///< SLURM_NODEID
  /// The value of the variable ScanEnvFacts's `named` names (NUMABIND_RANK_VAR's, read in the same pass
  /// when the caller knows it already: a launcher's child side), nullptr when absent or not asked for.
  const char* named = nullptr;
  size_t count = 0;  ///< the environment's entries
  /// The environment's NUMABIND_* entries, all of them: more than ScanEnvFacts's `cap` - 1 means `ours`
  /// holds only the first (the caller reads the environment itself).
  int ours_count = 0;
};

/// Child-safe: one pass over `env` (may be nullptr) into *out; when `ours` is not nullptr, also collects
/// its NUMABIND_* entries there, at most cap - 1, NULL-terminated (config::Parse's input), and counts them
/// all (out->ours_count); when `named` is not nullptr, also the value of that variable (out->named).
void ScanEnvFacts(const char* const* env, EnvFacts* out, const char** ours = nullptr, int cap = 0,
                  const char* named = nullptr);

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
