// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan`'s rows, one per local rank, and the three ways it prints them (cli/plan_print.cc): a
// table under a heading, JSON, or a drawing of the machine.

#ifndef NUMABIND_CLI_PLAN_ROWS_H_
#define NUMABIND_CLI_PLAN_ROWS_H_

#include <stdint.h>
#include <stdio.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "planner/planner.h"

namespace numabind::cli {

/// One rank's place, as text.
struct RankRow {
  uint32_t rank;
  bool ok;
  std::string device, nodes, cpus, memory, nics, error;
  uint32_t more_devices = 0;         ///< auto with fewer ranks than devices: the block's other devices
  std::vector<std::string> devices;  ///< every device the rank drives (its block under auto), first first
  std::string share;                 ///< auto: what share of its group the rank got
  std::vector<std::string> exports;  ///< NUMABIND_EXPORT's "NAME=value" entries
  std::string note;                  ///< what was asked for and not exported, and why
  std::string kind;  ///< core kinds: "fastest", "other" or "both" (its CPUs'); "" with one kind
};

/// Every rank's row, and what the printers need to know about them.
struct PlanRows {
  std::vector<RankRow> rows;
  bool all_ok = true, any_nics = false, is_auto = false;
  std::string decision;  ///< auto: what it decided and why (docs/policies.md)
  /// "4 ranks, policy node (the default; --policy to choose), memory local": what was planned, and where
  /// the policy came from unless the command line gave it.
  std::string heading;
  /// Core kinds: "core kinds: CPUs 2-3 the fastest, 0-1 the others; ..."; "" with one kind.
  std::string kinds;
};

/// `words` (nwords 64-bit words) as a Linux list: "0-3,8".
std::string FormatBits(const uint64_t* words, uint32_t nwords);
/// The planner's request that config's typed values make (the policy node when unset): what `plan`
/// shows and `bind` applies.
planner::PrepareRequest RequestOf(config::Config* cfg, const char* const* env);

/// The default output: the heading, auto's decision, a table with a row per rank, then each rank's
/// exports one variable per line, a long value wrapped after its commas, so that lines fit 100 columns.
void PrintRows(const PlanRows& plan, const config::Config& cfg, FILE* out);
/// --json: one object per rank.
void PrintJson(const PlanRows& plan, const config::Config& cfg, FILE* out);
/// --draw: the machine with a mark per rank, under the heading. False with *error when the topology
/// cannot be drawn.
bool DrawRows(const PlanRows& plan, const config::Config& cfg, uint32_t nranks, FILE* out,
              std::string* error);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_PLAN_ROWS_H_
