// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every size limit numabind applies, in one place: what the variables may say, what the planner builds and
// what the child side holds on its stack. Plain constants: any context may include this.

#ifndef NUMABIND_CONFIG_LIMITS_H_
#define NUMABIND_CONFIG_LIMITS_H_

#include <stdint.h>

namespace numabind::config {

/// Local ranks and rank counts numabind handles: NUMABIND_NRANKS and a launcher's local size go up to
/// NUMABIND_SMT: hardware threads per core kept, at most (POWER has 8).
constexpr uint32_t kMaxSmt = 8;
/// kMaxRanks, a rank value below it.
constexpr uint32_t kMaxRanks = 1u << 20;

/// The highest CPU and node number a NUMABIND_POLICY map may name.
constexpr uint32_t kMaxCpuId = 65535;
constexpr uint32_t kMaxNodeId = 1023;
/// The most entries a map expands to, after *N repeats (a bound on the planner's time and memory).
constexpr uint32_t kMaxMapEntries = 4096;

/// The largest number a list or mask the planner reads (sysfs, hwloc) may hold, plus one: a typo such as
/// "0-4000000000" must be an error, not a 500 MB allocation (planner/cpu_set.h).
constexpr uint32_t kMaxSetBits = 1u << 22;

/// Largest CPU and node sets the child side handles on its stack, in 64-bit words (8192 CPUs, Linux's
/// largest NR_CPUS; 4096 nodes): a basis wider than this is refused by the library.
constexpr uint32_t kMaxCpuWords = 128;
constexpr uint32_t kMaxNodeWords = 64;

/// NUMABIND_MOVE=auto: the budget of a late rank's page move, 4 GiB (shim/rank/page_move.h).
constexpr uint64_t kMoveAuto = 4ull << 30;

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_LIMITS_H_
