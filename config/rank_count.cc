// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run between fork and exec): no allocation, no system calls.

#include "config/rank_count.h"

#include "base/digits.h"
#include "base/hot.h"
#include "base/text.h"
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

const char* LocalRankCountSource(const EnvFacts& f, int var, const char** value) {
  if (var < 0 || var >= kRankVarCount) return nullptr;
  const char* name = nullptr;
  const char* v = nullptr;
  if (!IsSlurm(var)) {
    if (f.size[var] != nullptr) name = kRankSizeNames[var], v = f.size[var];
  } else if (f.slurm_step_tasks != nullptr) {
    // The step's own counts first: a batch script's SLURM_TASKS_PER_NODE describes the job, not the step.
    name = "SLURM_STEP_TASKS_PER_NODE", v = f.slurm_step_tasks;
  } else if (f.slurm_tasks != nullptr) {
    name = "SLURM_TASKS_PER_NODE", v = f.slurm_tasks;
  }
  if (value != nullptr) *value = v;
  return name;
}

// Child-safe: reads the facts.
NUMABIND_HOT int FirstRankVar(const EnvFacts& facts, uint32_t skip) {
  for (int i = 0; i < kRankVarCount; ++i) {
    if ((skip & (1u << i)) != 0 || facts.rank[i] == nullptr || facts.rank[i][0] == '\0') continue;
    if (i == kSlurmRankVar && facts.slurm_step_id == nullptr) continue;
    return i;
  }
  return -1;
}

NUMABIND_HOT uint32_t LocalRankCount(const EnvFacts& f, int var) {
  const char* value = nullptr;
  if (LocalRankCountSource(f, var, &value) == nullptr) return 0;
  uint32_t n = 0;
  if (!IsSlurm(var)) {
    const char* s = value;
    return Digits(&s, kMaxRanks, &n) && *s == '\0' && n != 0 ? n : 0;
  }
  // This node's entry: SLURM_NODEID counts the step's nodes (the job's in a batch script), from 0.
  uint32_t node = 0;
  const char* id = f.slurm_node_id;
  if (id != nullptr && (!Digits(&id, 0xffffffffu, &node) || *id != '\0')) return 0;
  return ParseTaskCounts(value, node, &n) ? n : 0;
}

const char* LocalRankCountSource(const char* const* env, int var) {
  EnvFacts f;
  ScanEnvFacts(env, &f);
  return LocalRankCountSource(f, var);
}

NUMABIND_HOT uint32_t LocalRankCount(const char* const* env, int var) {
  EnvFacts f;
  ScanEnvFacts(env, &f);
  return LocalRankCount(f, var);
}

}  // namespace numabind::config
