// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one table of every NUMABIND_* variable: name, accepted values, default and meaning. Parse (config.h)
// knows a variable only if it is here, `numabind --help` and `numabind vars` print this table, and the
// README's variable section is generated from `numabind vars --markdown` (scripts/readme-vars.sh).
//
// Compiled into the shim: plain data, no constructors.

#ifndef NUMABIND_CONFIG_VARS_H_
#define NUMABIND_CONFIG_VARS_H_

#include <stddef.h>

namespace numabind::config {

struct VarInfo {
  const char* name;     ///< "NUMABIND_POLICY"
  const char* values;   ///< what it accepts, for people: "node|socket|...", "0|1"
  const char* dflt;     ///< the default value as written ("local"), or nullptr when the default is unset
  const char* unset;    ///< what leaving it unset means, when dflt is nullptr ("the live machine")
  const char* meaning;  ///< one or two sentences, one line
};

/// Every variable, in the order they are documented (and checked by Parse).
extern const VarInfo kVars[];
extern const int kVarCount;

/// NUMABIND_MATCH's default: Python multiprocessing's spawn workers, whose command line (argv joined with
/// single spaces) is "PYTHON [FLAGS] -c from multiprocessing.spawn import spawn_main; spawn_main(...)
/// --multiprocessing-fork", and not its resource tracker ("-c from multiprocessing.resource_tracker ...").
extern const char kDefaultMatch[];

/// The entry named exactly by the first `len` bytes of `name`, or nullptr.
const VarInfo* FindVar(const char* name, size_t len);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_VARS_H_
