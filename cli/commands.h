// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one table of the `numabind` command's commands: each row names a command once, and Main's dispatch,
// the command list of the usage and `--help`, `help COMMAND`, numabind(1)'s COMMANDS section and the bash
// completion (`numabind completion bash`) are made from it.

#ifndef NUMABIND_CLI_COMMANDS_H_
#define NUMABIND_CLI_COMMANDS_H_

#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"

namespace numabind::cli {

/// What a command is run with: its arguments (after its name), the environment, argv[0] and the streams.
struct Invocation {
  const Args& args;
  const char* const* env;
  const char* argv0;
  FILE* out;
  FILE* err;
};

/// Where a command is listed: its place in the manual page and the help.
enum class Listing {
  kManual,    ///< the usage, `--help`, `help COMMAND`, the completion and a subsection of numabind(1)
  kUsage,     ///< the usage, `--help` and the completion only (`help` itself)
  kInternal,  ///< nowhere: run by the library (prepare-basis) or the build (man, completion)
};

/// One command. `help` prints `numabind help NAME`; `options` gives its options (for the completion).
struct Command {
  const char* name;      ///< "plan"
  const char* synopsis;  ///< what follows the name in the usage: "[OPTIONS]"
  const char* summary;   ///< one line for the usage: "show where each local rank goes"
  int (*run)(const Invocation& call);
  void (*help)(FILE* out);  ///< nullptr: no `help NAME`
  OptionList (*options)();  ///< nullptr: no options
  Listing listing;
};

/// Every command, in the order the usage and the manual list them.
extern const Command kCommands[];
extern const size_t kCommandCount;

/// The command called `name`, or nullptr.
const Command* FindCommand(const std::string& name);

/// The listed commands one per line ("  numabind plan [OPTIONS]   show where ..."), then `--version`.
void PrintCommandList(FILE* out);

/// Internal: `completion bash` prints the bash completion script, made from this table, the commands'
/// options and the values config/vars.def lists for their variables.
int CompletionCommand(const Args& args, FILE* out, FILE* err);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_COMMANDS_H_
