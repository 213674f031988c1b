// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run between fork and exec): no allocation, no system calls.

#include "config/rank_count.h"

#include "base/digits.h"
#include "config/config.h"

namespace numabind::config {
namespace {

/// Reads decimal digits at *s (advancing it) into *out; false when there are none or the value exceeds max.
bool Digits(const char** s, uint32_t max, uint32_t* out) {
  const char* p = *s;
  uint64_t v = 0;
  if (base::ScanDecimal(&p, nullptr, max, &v) != base::Digits::kOk) return false;
  *s = p;
  *out = static_cast<uint32_t>(v);
  return true;
}

bool IsSlurm(int var) { return var == kSlurmRankVar; }

}  // namespace

bool ParseTaskCounts(const char* value, uint32_t node, uint32_t* out) {
  if (value == nullptr) return false;
  const char* s = value;
  uint64_t first = 0;  // index of the first node of the current entry
  bool found = false;
  uint32_t result = 0;
  for (;;) {
    uint32_t count = 0, repeat = 1;
    if (!Digits(&s, kMaxRanks, &count) || count == 0) return false;
    if (*s == '(') {
      if (s[1] != 'x') return false;
      s += 2;
      if (!Digits(&s, 0xffffffffu, &repeat) || repeat == 0 || *s != ')') return false;
      ++s;
    }
    if (!found && node >= first && node < first + repeat) {
      found = true;
      result = count;
    }
    first += repeat;
    if (*s == '\0') break;
    if (*s != ',') return false;
    ++s;
  }
  if (!found) return false;
  *out = result;
  return true;
}

const char* LocalRankCountSource(const char* const* env, int var) {
  if (var < 0 || var >= kRankVarCount) return nullptr;
  if (!IsSlurm(var))
    return kRankVars[var].size != nullptr && Lookup(env, kRankVars[var].size) != nullptr ? kRankVars[var].size
                                                                                         : nullptr;
  // The step's own counts first: a batch script's SLURM_TASKS_PER_NODE describes the job, not the step.
  static const char* const kSlurmCounts[] = {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"};
  for (const char* name : kSlurmCounts) {
    if (Lookup(env, name) != nullptr) return name;
  }
  return nullptr;
}

uint32_t LocalRankCount(const char* const* env, int var) {
  const char* name = LocalRankCountSource(env, var);
  if (name == nullptr) return 0;
  const char* value = Lookup(env, name);
  uint32_t n = 0;
  if (!IsSlurm(var)) {
    const char* s = value;
    return Digits(&s, kMaxRanks, &n) && *s == '\0' && n != 0 ? n : 0;
  }
  // This node's entry: SLURM_NODEID counts the step's nodes (the job's in a batch script), from 0.
  uint32_t node = 0;
  const char* id = Lookup(env, "SLURM_NODEID");
  if (id != nullptr && (!Digits(&id, 0xffffffffu, &node) || *id != '\0')) return 0;
  return ParseTaskCounts(value, node, &n) ? n : 0;
}

}  // namespace numabind::config
