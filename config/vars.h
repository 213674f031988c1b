// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one table of every NUMABIND_* variable: name, accepted values, default, meaning and the reader that
// parses it into its typed field of Config (config/readers.h). Parse (config.h) knows a variable only if it
// is here and reads it with its row's reader, `numabind --help` and `numabind vars` print this table, and the
// README's variable section is generated from `numabind vars --markdown` (scripts/readme-vars.sh).
//
// Compiled into the shim: plain data, no constructors.

#ifndef NUMABIND_CONFIG_VARS_H_
#define NUMABIND_CONFIG_VARS_H_

#include <stddef.h>

#include "config/readers.h"

namespace numabind::config {

struct VarInfo {
  const char* name;     ///< "NUMABIND_POLICY"
  const char* values;   ///< what it accepts, for people: "node|socket|...", "0|1"
  const char* dflt;     ///< the default value as written ("local"), or nullptr when the default is unset
  const char* unset;    ///< what leaving it unset means, when dflt is nullptr ("the live machine")
  const char* meaning;  ///< one or two sentences, one line
  Reader read;          ///< parses the value into its field of Config
  /// An empty value is a value (NUMABIND_MATCH: matches nothing); for every other variable it is unset.
  bool reads_empty = false;
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
