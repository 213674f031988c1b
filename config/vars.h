// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The NUMABIND_* variables, from their one list (config/vars.def). Parse (config.h) knows a variable only if
// it is there and reads it with its row's reader; `numabind --help`, `numabind vars` and the man page print
// its texts, and the README's variable section is generated from `numabind vars --markdown`
// (scripts/readme-vars.sh).
//
// The library's part (names, readers: config/vars.cc) holds no pointer: every process the library is
// preloaded into would relocate each at load. The texts for people are pointers (config/var_help.cc), in an
// object the library never references, so its linker drops them.

#ifndef NUMABIND_CONFIG_VARS_H_
#define NUMABIND_CONFIG_VARS_H_

#include <stddef.h>

#include "config/readers.h"

namespace numabind::config {

/// Every variable, in the order they are documented (and checked by Parse): kVarPolicy, kVarMemory, ...
enum VarId : int {
#define NUMABIND_VAR(id, ...) id,
#include "config/vars.def"
#undef NUMABIND_VAR
  kVarCount
};

/// Room for the longest name and its NUL.
constexpr size_t kVarNameMax = 24;

/// What every variable of config/vars.def begins with (config's tests check each), spelled here only.
constexpr char kVarPrefix[] = "NUMABIND_";
constexpr size_t kVarPrefixLen = sizeof(kVarPrefix) - 1;

/// NUMABIND_BOUND's entry as the library writes it into a rank's environment: kVarNames[kVarBound], '='.
constexpr char kBoundEntry[] = "NUMABIND_BOUND=";

/// Each variable's name ("NUMABIND_POLICY"), as characters in the table itself.
extern const char kVarNames[kVarCount][kVarNameMax];

/// The variable named exactly by the first `len` bytes of `name`, or -1.
int FindVar(const char* name, size_t len);

/// A variable's FLAGS in config/vars.def.
constexpr unsigned kReadsEmpty = 1;  ///< an empty value is a value (NUMABIND_MATCH: matches nothing)
constexpr unsigned kWarnsOnly = 2;   ///< a bad value is a warning, its default kept: it never unbinds a rank

/// Whether an empty value is a value for variable `id` (NUMABIND_MATCH: matches nothing); for every other
/// variable an empty value is unset.
bool ReadsEmpty(int id);

/// Whether a bad value of variable `id` is a warning, the default kept, rather than an error that leaves
/// ranks unbound (NUMABIND_MOVE: how a late rank's pages move never stops its binding).
bool WarnsOnly(int id);

/// Runs variable `id`'s reader (config/readers.h) on `value`.
bool ReadVar(int id, const char* value, Config* out, char* why, size_t cap);

/// The NUMABIND_* entries of an environment, as one pass over it collects them (config/env_facts.h): each
/// variable's value (its first entry, as getenv finds it), however many entries there are. Child-safe:
/// plain data.
struct Ours {
  const char* value[kVarCount] = {};  ///< by VarId; nullptr when unset
  /// The first entry whose NUMABIND_* name is no variable, for Parse's warning; nullptr when none.
  const char* unknown = nullptr;
  /// Takes one entry that begins with NUMABIND_ (not NAME=value: ignored).
  void Take(const char* entry);
  /// Whether variable `id` is set: a non-empty value, or any value for a variable that reads empty ones
  /// (NUMABIND_MATCH). The site file's values count only for variables the environment does not set.
  bool Sets(int id) const;
};

/// The NUMABIND_* values of `env` (NULL-terminated "NAME=value" array; nullptr counts as empty), in one
/// pass over it. Child-safe.
Ours OursOf(const char* const* env);

/// A variable for people: the texts of its row of config/vars.def.
struct VarInfo {
  const char* name;     ///< "NUMABIND_POLICY"
  const char* values;   ///< what it accepts, for people ("FILE|synthetic:DESC"); nullptr: VarValues
  const char* dflt;     ///< the default value as written ("local"), or nullptr when the default is unset
  const char* unset;    ///< what leaving it unset means, when dflt is nullptr ("the live machine")
  const char* meaning;  ///< one or two sentences, one line
};

/// Every variable's texts, by VarId (config/var_help.cc; the command's, never the library's).
extern const VarInfo kVars[kVarCount];

/// What variable `id` accepts, for people: its row's VALUES, or its words (config/choices.h) joined by
/// "|" ("local|preferred|bind|interleave"), into out[0..cap) with a NUL; the length.
size_t VarValues(int id, char* out, size_t cap);

/// The words of variable `id` for a sentence ("local, preferred, bind or interleave"), for --help's
/// options; empty when its values are not a fixed list.
size_t VarChoicesText(int id, char* out, size_t cap);

/// NUMABIND_MATCH's default: Python multiprocessing's spawn workers, whose command line (argv joined with
/// single spaces) is "PYTHON [FLAGS] -c from multiprocessing.spawn import spawn_main; spawn_main(...)
/// --multiprocessing-fork", and not its resource tracker ("-c from multiprocessing.resource_tracker ...").
extern const char kDefaultMatch[];

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_VARS_H_
