// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The completion scripts' shared words (cli/completion.cc: bash; cli/completion_zsh.cc: zsh), from the
// command table and config/vars.def, so that both shells offer the same commands, options and values.

#ifndef NUMABIND_CLI_COMPLETION_H_
#define NUMABIND_CLI_COMPLETION_H_

#include <stdio.h>

#include <string>

#include "config/vars.h"

namespace numabind::cli {

/// What a value of `var` may be, from what it accepts (config::VarValues: its words or vars.def's VALUES,
/// alternatives separated by '|': "node|socket|...|cpus:LIST|LIST...|..."): the lower-case keywords it may
/// begin with, space-separated, and "cpus:" for "cpus:LIST" (the rest is typed); into *items, the keywords
/// of an alternative that is a comma list of them ("none|omp,omp-cpus,gpu,nic"), the only words that may
/// follow a comma. *files when FILE or PATH is one.
std::string ValueWords(config::VarId var, std::string* items, bool* files);

/// `numabind completion zsh`: a #compdef script of _arguments specs, one case per command.
void PrintZsh(FILE* out);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_COMPLETION_H_
