// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The NUMABIND_* variables, parsed into typed values. Parsing is pure: an environment-style array of
// "NAME=value" strings in, a Config or an Error naming the variable and the bad value out. It never throws
// and never allocates, so the shim (which links libc alone and may run before the program's main) uses the
// same code as the `numabind` command. Each variable's row in config/vars.def owns its parser and its
// field. String fields point into the strings of the array passed to Parse.

#ifndef NUMABIND_CONFIG_CONFIG_H_
#define NUMABIND_CONFIG_CONFIG_H_

#include <stdint.h>

#include "config/limits.h"

#include "base/env.h"
#include "config/env_facts.h"
#include "config/grammar.h"

namespace numabind::config {

enum class LogLevel : uint8_t { kOff, kWarn, kInfo, kDebug };
/// NUMABIND_LOG_FORMAT: one line of text per event, or one JSON object per line.
enum class LogFormat : uint8_t { kText, kJson };

struct Config {
  /// NUMABIND_POLICY is set, non-empty and NUMABIND_DISABLE is not 1: the shim acts.
  bool enabled = false;
  bool disabled = false;                   ///< NUMABIND_DISABLE=1
  Policy policy;                           ///< NUMABIND_POLICY; policy.text is nullptr when unset
  MemoryKind memory = MemoryKind::kLocal;  ///< NUMABIND_MEMORY: local|preferred|bind|interleave
  Devices devices;                         ///< NUMABIND_DEVICES: auto|none|bus ids separated by commas
  uint32_t nranks = 0;                     ///< NUMABIND_NRANKS; 0 = take it from the launcher's variables
  const char* rank_var = nullptr;          ///< NUMABIND_RANK_VAR; nullptr = the built-in precedence list
  const char* match = nullptr;     ///< NUMABIND_MATCH glob; never nullptr after Parse (default applies)
  bool fork_ranks = false;         ///< NUMABIND_FORKS=ranks: fork children of a non-rank take ranks by order
  const char* topology = nullptr;  ///< NUMABIND_TOPOLOGY: nullptr = live machine; file or synthetic:DESC
  uint8_t smt = 0;                 ///< NUMABIND_SMT: hardware threads kept per core; 0 = all
  bool all_kinds = false;          ///< NUMABIND_CORE_KINDS=all: no core kind goes first
  LogLevel log = LogLevel::kWarn;  ///< NUMABIND_LOG: off|warn|info|debug
  LogFormat log_format = LogFormat::kText;  ///< NUMABIND_LOG_FORMAT: text|json
  const char* log_file = nullptr;           ///< NUMABIND_LOG_FILE; nullptr = stderr
  bool strict = false;                      ///< NUMABIND_STRICT=1
  const char* shared = "/dev/shm";  ///< NUMABIND_SHARED: directory of the shared plan basis; nullptr = off
  /// NUMABIND_BOUND: "VAR=value", the rank variable a numabind launcher (or this rank's own start-up)
  /// bound by, then its proof " cpus=LIST by=PID" (shim/child/bound_marker.h); nullptr when unset.
  const char* bound = nullptr;
  /// NUMABIND_EXPORT: config::kExport* bits (grammar.h); 0 = none.
  uint8_t exports = 0;
  /// NUMABIND_GUARD=1: a bound rank's own affinity calls are narrowed to its CPUs
  /// (shim/rank/affinity_guard.h).
  bool guard = false;
  /// NUMABIND_MOVE: bytes a late rank may move to its nodes (shim/rank/page_move.h); 0 = off.
  uint64_t move_bytes = kMoveAuto;
  /// NUMABIND_LOCALITY=0: a rank's end event leaves out where its memory and threads are
  /// (shim/rank/locality.h).
  bool locality = true;
  /// NUMABIND_BY_DEVICE=1: a process that no launcher ranks and that sees exactly one device binds as that
  /// device's rank at start-up (shim/rank/self_bind.h).
  bool by_device = false;
  /// NUMABIND_CONTAINER=keep: a container runtime's programs keep libnumabind.so in LD_PRELOAD
  /// (shim/child/container.h); false (strip) leaves it out.
  bool container_keep = false;
};

/// A parse error: one line naming the variable and the bad value; and a warning that does not fail the parse.
struct Error {
  char text[256] = {0};
  /// The first unknown NUMABIND_* name: "NUMABIND_POLCY is not a numabind variable (did you mean
  /// NUMABIND_POLICY?)"; empty when none. Parse still succeeds: a newer version's variable or a typo must
  /// not switch binding off (issue 26).
  char warning[256] = {0};
};

/// Parses the NUMABIND_* entries of `env` (NULL-terminated "NAME=value" array, as environ). An unknown
/// NUMABIND_* name is not an error: it is ignored and named in err->warning with the nearest known name.
/// Returns false with `err` set on the first bad value of a known variable; `out` then holds every value that
/// parsed (each variable is read even after a bad one, so that the shim still honours NUMABIND_STRICT and
/// NUMABIND_LOG_FILE).
bool Parse(const char* const* env, Config* out, Error* err);

struct Ours;  // config/vars.h
/// Parse of an environment's NUMABIND_* values as its one pass collected them (config/env_facts.h), every
/// one of them however many: what Parse does after its own pass.
bool ParseValues(const Ours& values, Config* out, Error* err);

/// Whether `entry` ("NAME=value": an environment's entry or a site file's line) names a NUMABIND_* variable
/// that config/vars.def does not have; then writes its warning into out[0..cap): "NUMABIND_POLCY is not a
/// numabind variable (did you mean NUMABIND_POLICY?)", or "... (numabind vars lists them)" when no known
/// name is near (base/nearest.h). The one test of an unknown name, for Parse, the site file and `numabind
/// vars --check`.
bool UnknownVar(const char* entry, char* out, size_t cap);

/// Reads one variable's value into its field of `out` with the parser of its row (config/vars.def), as
/// Parse does: false with err set to the line Parse gives ("NAME=value: why") when the value is bad or
/// `name` is not a NUMABIND_* variable. An empty value leaves the field at its default, except for
/// NUMABIND_MATCH. err may be nullptr. What the planner helper reads its arguments with.
bool ParseVar(const char* name, const char* value, Config* out, Error* err);

/// ValueOf(entry, name) and Lookup(env, name): base/env.h's, the one environment lookup.
using base::Lookup;
using base::ValueOf;

/// What a launcher's local-rank value ("3" in LOCAL_RANK=3) holds.
enum class RankValue : uint8_t {
  kOk,         ///< decimal digits, below kMaxRanks
  kMalformed,  ///< anything else: a sign, spaces, a suffix, no digits
  kTooLarge,   ///< digits, but kMaxRanks or more (4294967295, 99999999999)
};

/// Parses a local-rank value: decimal digits only, no sign, spaces or suffix, below kMaxRanks. *out is
/// written only on kOk. Allocation-free; safe between fork and exec.
RankValue ParseRankValue(const char* s, uint32_t* out);

/// A launcher's local-rank variable and the local-size variable that goes with it (nullptr when the
/// launcher has none).
struct RankVar {
  const char* rank;
  const char* size;
};

/// The built-in precedence of local-rank variables (config/env_vars.def), as pointers: the command's table
/// (config/rank_vars.cc, which the library never refers to: its pointers would be relocated at every
/// process's start; the library's names are config::kRankVarNames). kRankVarCount entries.
extern const RankVar kRankVars[kRankVarCount];

/// The variables of the launcher's environment the planner reads (planner/devices.cc), besides hwloc's
/// own HWLOC_* (config/env_vars.def has them all): a basis prepared under other values is another basis
/// (shim/launcher/basis_cache.cc keys its files by them). The command's table, as kRankVars.
enum PlannerVar : int { kCudaVisibleDevices, kRocrVisibleDevices, kHipVisibleDevices, kPlannerVarCount };
extern const char* const kPlannerVars[kPlannerVarCount];

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_CONFIG_H_
