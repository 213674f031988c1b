// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The model of the `numabind` command line: one record per command (name, what it takes after its
// options, summary, help paragraphs, options, function), in one table. Everything people read about a
// command is rendered from its record and nothing parses printed text back: the dispatch (Main), the
// command list of `numabind` and `--help`, `help NAME` and `NAME --help` (cli/help.cc), numabind(1)
// (cli/man_command.cc) and the bash completion (cli/completion.cc). Each synopsis is made by Synopsis alone.
// Anchor: ninja's kTools[].

#ifndef NUMABIND_CLI_COMMANDS_H_
#define NUMABIND_CLI_COMMANDS_H_

#include <stddef.h>
#include <stdio.h>

#include <string>

#include "cli/cli.h"

namespace numabind::cli {

struct Command;

/// What a command is run with: its record, its arguments (after its name), the environment (nullptr for
/// none), argv[0] and the streams.
struct Invocation {
  const Command& command;
  const Args& args;
  const char* const* env;
  const char* argv0;
  FILE* out;
  FILE* err;
};

/// Where a command is listed: its place in the manual page and the help.
enum class Listing {
  kManual,    ///< the usage, `--help`, the completion and a subsection of numabind(1)
  kUsage,     ///< the usage, `--help` and the completion only (`help` itself)
  kInternal,  ///< nowhere: run by the library (prepare-basis) or the build (man)
};

/// What a command takes after its options: its synopsis's end, how its arguments are parsed and completed.
enum class Operands {
  kNone,     ///< nothing: an argument is a usage error
  kProgram,  ///< "[--] CMD [ARGS...]": the first argument that is not an option, and all after it (run)
  kPids,     ///< "[PID...]"
  kLogs,     ///< "[FILE|DIR|PATTERN...]": files, directories or NUMABIND_LOG_FILE values (report)
  kCommand,  ///< "[COMMAND]": at most one, a command's name (help)
  kShell,    ///< "bash|zsh": exactly one of the words
  kSection,  ///< "1|7": exactly one of the words (man)
};

/// The words an Operands kind stands for in a synopsis ("[PID...]", "1|7"); "" for kNone.
const char* OperandsText(Operands operands);

/// A command's help for people, besides its synopsis and options: the paragraphs before its options, then
/// its exit statuses. A paragraph's lines are broken where a terminal shows them (within 100 columns, no
/// final newline); numabind(1) joins them, as its reader's width decides.
struct HelpText {
  const char* const* about;  ///< nullptr-terminated
  const char* exit_status;   ///< what follows "Exit status: "
};

/// One command. Its options and help live beside its function, in its own file.
struct Command {
  const char* name;  ///< "plan"
  Operands operands;
  const char* summary;      ///< one line for the command list: "show where each local rank goes"
  const HelpText* help;     ///< nullptr: no `help NAME` (internal commands)
  OptionList (*options)();  ///< nullptr: no options
  int (*run)(const Invocation& call);
  Listing listing;
};

/// Every command, in the order the usage and the manual list them.
extern const Command kCommands[];
extern const size_t kCommandCount;

/// The command called `name`, or nullptr.
const Command* FindCommand(const std::string& name);

/// What follows the command's name in its usage: its options when they are few ("[--json|--draw]
/// [--user NAME|UID] [--all]": alternatives in one bracket), else "[OPTIONS]", then OperandsText; the
/// one writer of every synopsis.
std::string Synopsis(const Command& c);

/// An option as its help and manual name it: "--policy P", "--json".
std::string OptionHead(const OptionSpec& o);
/// What an option does, in one line: the words its variable takes, its help, and its variable:
/// "local, preferred, bind, interleave, near or weighted (NUMABIND_MEMORY)".
std::string OptionText(const OptionSpec& o);

/// A command's start, the same for each: parses its arguments with its record's options and operands and
/// answers a usage error (its line on err), --help (its help on out), arguments it does not take. Returns
/// the exit status when the command is done (0 or kExitUsage), -1 when it goes on with *parsed.
int StartCommand(const Invocation& call, ParsedArgs* parsed);

/// What `plan` and `bind` start with: the environment merged with the options (*merged; NUMABIND_DISABLE
/// left out: the plan is shown or applied whether or not the library is switched off) and its configuration
/// (*cfg, which points into *merged). A bad value is its line on call.err, "numabind COMMAND: ...", and
/// kExitUsage; an unknown name is its warning line. Returns -1 to go on.
int ConfigOfOptions(const char* command, const Invocation& call, const ParsedArgs& parsed,
                    Environment* merged, config::Config* cfg);

/// The listed commands one per line ("  numabind plan [OPTIONS]   show where ..."), then `--version`.
void PrintCommandList(FILE* out);
/// `numabind help NAME`: usage, paragraphs, options, exit status.
void PrintCommandHelp(const Command& c, FILE* out);

// The commands' parts, each defined in the command's own file: its options, help and function.
OptionList RunOptions();
OptionList PlanOptions();
OptionList BindOptions();
OptionList ShowOptions();
OptionList ReportOptions();
OptionList PsOptions();
OptionList VarsOptions();
extern const HelpText kRunHelp, kPlanHelp, kBindHelp, kShowHelp, kReportHelp, kPsHelp, kVarsHelp,
    kCompletionHelp;
/// Execs the command on success, so it returns only on failure (or for --help).
int RunMain(const Invocation& call);
int PlanMain(const Invocation& call);
/// `bind`: execs CMD bound as one rank (returns only on failure), or rebinds a live process (cli/bind.h).
int BindMain(const Invocation& call);
int ShowMain(const Invocation& call);
/// `report`: a job's verdict from its JSON logs (cli/report.h); the environment gives NUMABIND_LOG_FILE and
/// the job id.
int ReportMain(const Invocation& call);
/// `ps`: the processes numabind bound on this machine (cli/ps.h).
int PsMain(const Invocation& call);
int VarsMain(const Invocation& call);
/// Internal, run by the shim: `prepare-basis --policy P [--memory M] [--devices D] [--topology T]` writes
/// the prepared plan basis to `out` as a framed binary block (shim/launcher/prepare.cc reads it); its
/// arguments are config/planner_inputs.h's, parsed by planner::RequestFromArgs.
int PrepareBasisMain(const Invocation& call);
/// Internal, run at build time: `man 1|7` prints numabind(1) or numabind(7) in roff.
int ManMain(const Invocation& call);
/// `completion bash` prints the bash completion script, made from this table, the commands' options and
/// the values config/vars.def lists for their variables.
int CompletionMain(const Invocation& call);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_COMMANDS_H_
