// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What an environment says to the library besides its NUMABIND_* variables, made from the one list of those
// variables (config/env_vars.def) and read in one pass (ScanEnvFacts): the start-up's, each spawn's, a late
// activation's. Everything after the pass reads the facts, not the environment again. Child-safe
// throughout: plain data, no allocation, no system calls.

#ifndef NUMABIND_CONFIG_ENV_FACTS_H_
#define NUMABIND_CONFIG_ENV_FACTS_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::config {

struct Ours;  // config/vars.h

/// The launchers' local-rank variables, in their built-in precedence (config/env_vars.def's
/// NUMABIND_RANK_ENV rows). The local rank count that goes with each: config/rank_count.h.
constexpr int kRankVarCount = 0
#define NUMABIND_RANK_ENV(rank, size) +1
#define NUMABIND_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
    ;
/// The index of SLURM_LOCALID (the last; config_test ties them): the one rank variable that a batch script
/// also carries, and whose local size comes from Slurm's compressed task counts.
constexpr int kSlurmRankVar = kRankVarCount - 1;
/// In a set of bits over the rank variables (bit i: the i-th), the bit that stands for NUMABIND_RANK_VAR's
/// variable.
constexpr uint32_t kRankVarBit = 1u << 31;
static_assert(kRankVarCount < 31, "a bit per rank variable, and kRankVarBit");

/// Room for the longest name of config/env_vars.def and its NUL.
constexpr size_t kEnvNameMax = 32;
/// Each rank variable's name, and its local-size variable's ("" when it has none), as characters in the
/// table: the library's names, which cost no relocation at a process's start (config::kRankVars, the same
/// names as pointers, is the command's).
extern const char kRankVarNames[kRankVarCount][kEnvNameMax];
extern const char kRankSizeNames[kRankVarCount][kEnvNameMax];

/// Each NUMABIND_ENV variable's name by its field: kEnvNames.cuda_visible_devices is "CUDA_VISIBLE_DEVICES".
/// Read as constants (a literal's address where it is used), never as a table.
struct EnvNames {
#define NUMABIND_RANK_ENV(rank, size)
#define NUMABIND_ENV(field, name) const char* field = name;
#define NUMABIND_ENV_PREFIX(field, prefix, max) const char* field = prefix;
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
};
inline constexpr EnvNames kEnvNames{};

/// What a rank's environment sets of what NUMABIND_EXPORT sets (config/env_vars.def's NUMABIND_KEPT_ENV
/// rows): the part of its facts a rank found keeps (plan/rank_env.h keeps them as they are).
struct EnvKept {
#define NUMABIND_RANK_ENV(rank, size)
#define NUMABIND_ENV(field, name)
#define NUMABIND_KEPT_ENV(field, name) const char* field = nullptr;
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_KEPT_ENV
#undef NUMABIND_ENV_PREFIX
};

/// What an environment says, read in one pass (ScanEnvFacts): each variable of config/env_vars.def, the
/// value of its first entry as Lookup finds it (what getenv finds), nullptr when absent; a prefix row's
/// entries whole ("HWLOC_XMLFILE=/x.xml"), in order. Pointers into the environment. Child-safe: plain data.
struct EnvFacts {
  const char* rank[kRankVarCount] = {};  ///< kRankVarNames[i]'s value
  const char* size[kRankVarCount] = {};  ///< kRankSizeNames[i]'s value (FLUX_TASK_LOCAL_ID has none)
  EnvKept kept;
#define NUMABIND_RANK_ENV(rank, size)
#define NUMABIND_ENV(field, name) const char* field = nullptr;
#define NUMABIND_KEPT_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max) \
  const char* field[max] = {};                  \
  int field##_count = 0;                        \
  bool field##_more = false; /* more than max: field holds the first max */
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_KEPT_ENV
#undef NUMABIND_ENV_PREFIX
  /// The value of the variable ScanEnvFacts's `named` names (NUMABIND_RANK_VAR's, read in the same pass
  /// when the caller knows it already), nullptr when absent or not asked for.
  const char* named = nullptr;
  /// The environment's first entry, nullptr when it has none: the kernel lays a process's argument strings
  /// out just before its environment's (shim/rank/self_bind.cc reads its own command line up to it).
  const char* first = nullptr;
  size_t count = 0;  ///< the environment's entries
  /// The environment's NUMABIND_* entries when ScanEnvFacts collects them in `ours`, all of them: more than
  /// its `cap` - 1 means `ours` holds only the first (the caller reads the environment itself).
  int ours_count = 0;
};

/// Child-safe: the one pass over `env` (may be nullptr) into *out. Its NUMABIND_* entries go to `values`
/// when it is not nullptr (every one of them, each variable's first: config::ParseValues's input), and to
/// `ours` when it is not nullptr, at most cap - 1, NULL-terminated (config::Parse's input), counting them all
/// (out->ours_count); `named`, when not nullptr, names one more variable whose value it reads (out->named).
void ScanEnvFacts(const char* const* env, EnvFacts* out, const char** ours = nullptr, int cap = 0,
                  const char* named = nullptr, Ours* values = nullptr);

/// Child-safe: the entry "NAME=value" of a value the scan found for `name` (its first byte), nullptr for
/// nullptr.
inline const char* EntryOf(const char* value, size_t name_len) {
  return value != nullptr ? value - name_len - 1 : nullptr;
}

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_ENV_FACTS_H_
