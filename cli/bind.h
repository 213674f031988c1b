// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind bind`'s parts: binding this process and running a command (cli/bind_command.cc), and rebinding a
// live one (cli/bind_pid.cc). Both apply one rank's plan, computed as `numabind plan` computes it.

#ifndef NUMABIND_CLI_BIND_H_
#define NUMABIND_CLI_BIND_H_

#include <stdint.h>
#include <stdio.h>

#include <string>

#include "plan/plan_basis.h"
#include "planner/cpu_set.h"

namespace numabind::cli {

/// The rank `bind` applies: rank of nranks's plan (its sets in the basis's words), and where its topology
/// came from, for the messages ("this machine", "the file F", "synthetic:DESC").
struct BindTarget {
  const plan::PlanBasis* basis = nullptr;
  plan::RankPlan plan{};
  uint32_t rank = 0, nranks = 1;
  std::string topology;
};

/// "rank 0 of 1".
std::string RankName(const BindTarget& t);
/// The rank's CPUs and nodes as sets.
planner::CpuSet PlanCpus(const BindTarget& t);
planner::CpuSet PlanNodes(const BindTarget& t);

/// Why a plan's set does not fit what a process may use: "rank 0 of 1 needs CPUs 0-15 (topology:
/// synthetic:...), but process 7 may use CPUs 0-1: 2-15 missing"; `what` is "CPU" or "node".
std::string NotAllowed(const BindTarget& t, const char* what, const planner::CpuSet& want,
                       const planner::CpuSet& allowed, const std::string& who);

/// `bind --pid`: every thread of the process to the rank's CPUs (each restored when one is refused, or when
/// the kernel would give it fewer than the plan's), then its private pages off the rank's nodes moved to
/// them, up to `budget` bytes (0: none). Prints what it did on `out`, one line per failure on `err`.
/// Returns the exit status: 0, 1 (gone, refused, not permitted) or 2 (not a process id).
int RebindPid(const std::string& pid_text, const BindTarget& t, uint64_t budget, FILE* out, FILE* err);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_BIND_H_
