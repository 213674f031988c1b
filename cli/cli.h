// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The `numabind` command: what its commands share. main.cc only calls Main; each command is a record of
// cli/commands.h's table and lives in its own file, taking its arguments, environment and output streams
// as parameters so that tests can run it in their own process (RunNamed).

#ifndef NUMABIND_CLI_CLI_H_
#define NUMABIND_CLI_CLI_H_

#include <stdint.h>
#include <stdio.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/printable.h"
#include "config/config.h"
#include "config/site_file.h"
#include "config/vars.h"

namespace numabind::cli {

inline constexpr char kVersion[] = "0.1.0";

/// Exit statuses: 0 success, 1 the work failed (a rank could not be placed, a process is gone), 2 bad usage
/// or configuration; `run` gives 126/127 when the command cannot be executed, as shells do.
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

using Args = std::vector<std::string>;

/// `numabind ARGS...`: argv[0] is the program name. The commands are the table of cli/commands.h.
int Main(int argc, char** argv, const char* const* env);

/// Runs the command called `name` in this process, as `numabind NAME ARGS...` would with environment `env`
/// (it may be nullptr for a command that reads none) and argv[0] `argv0`; kExitUsage for no such command.
int RunNamed(const std::string& name, const Args& args, const char* const* env, const char* argv0, FILE* out,
             FILE* err);
/// `numabind plan ARGS` and `numabind show ARGS` in this process (tests call them so).
inline int PlanCommand(const Args& args, const char* const* env, FILE* out, FILE* err) {
  return RunNamed("plan", args, env, "numabind", out, err);
}
inline int ShowCommand(const Args& args, FILE* out, FILE* err) {
  return RunNamed("show", args, nullptr, "numabind", out, err);
}

/// `numabind --help`: the commands and every variable.
void PrintUsage(FILE* out);
/// `numabind` alone: the commands one per line and where to read more, in at most 25 lines.
void PrintShortUsage(FILE* out);
/// `text` wrapped at `width` columns, each line indented by `indent` spaces.
std::string Wrap(const std::string& text, size_t indent, size_t width);
/// Every variable of config/vars.h, as text for a terminal or as the README's markdown table; as text with
/// `env`, also each one's value in effect for a process with that environment and where it came from (the
/// environment, the site file's line, the default).
void PrintVars(FILE* out, bool markdown, const char* const* env = nullptr);

// ---------------------------------------------------------------------------------- shared by commands

/// An option that sets no variable (--json).
inline constexpr config::VarId kNoVar = static_cast<config::VarId>(-1);

/// One option of a command, a row of its record (cli/commands.h): the parser, the synopsis, the help, the
/// manual and the completion read it. A flag takes no value and sets its variable to flag_value.
struct OptionSpec {
  const char* name;   ///< "--policy"
  config::VarId var;  ///< the variable it sets (config/vars.def's config::kVarPolicy), or kNoVar
  bool flag;
  const char* arg;  ///< what its value is, for the synopsis and the help: "P"
  const char* help;
  bool alternative = false;      ///< the option before it or this one, not both: "[--json|--draw]"
  const char* flag_value = "1";  ///< the value a flag sets
};

/// A command's options: an array in the command's own file, which its record names.
struct OptionList {
  const OptionSpec* specs;
  size_t count;
};

struct ParsedArgs {
  std::vector<std::pair<const OptionSpec*, std::string>> options;  ///< in the order given
  std::vector<std::string> positionals;
  bool help = false;
  OptionList accepted = {nullptr, 0};  ///< the options parsed with
  /// Whether option `name` was given. `name` must be one of `accepted`: asking for any other is a bug (the
  /// option would be read but never parsed, nor shown), and aborts.
  bool Has(const char* name) const;
  /// The last value given for `name` (one of `accepted`, as for Has), or nullptr.
  const std::string* Value(const char* name) const;
};

/// Parses "--name VALUE", "--name=VALUE", flags, --help/-h. With stop_at_command, the first argument that is
/// not an option, or the one after "--", and everything after it are positionals (for `run`). Otherwise
/// "--" ends the options. Two alternatives given together are an error. On error returns false with a
/// one-line message naming the command.
bool ParseArgs(const char* command, const Args& args, const OptionSpec* specs, size_t nspecs,
               bool stop_at_command, ParsedArgs* out, std::string* error);

/// The environment with the NUMABIND_* variables that the options set (first, replacing any the
/// environment had), as an owned NULL-terminated array.
struct Environment {
  std::vector<std::string> strings;
  std::vector<const char*> ptrs;
  const char* const* get() const { return ptrs.data(); }
  void Set(const std::string& name, const std::string& value);  ///< replaces or appends
  void Unset(const std::string& name);                          ///< removes every NAME=... entry
  const char* Get(const char* name) const;
};
Environment MergeOptions(const char* const* env, const ParsedArgs& parsed);

/// Parses the merged environment's NUMABIND_* variables through config::Parse. A bad value that came from
/// an option is reported as the option ("--memory fast: expected ..."), one from the environment as the
/// variable ("NUMABIND_MEMORY=fast: expected ..."). Returns the error line, empty when fine; cfg points into
/// env. An unknown NUMABIND_* name is no error: *warning gets its line ("... (did you mean ...?)"), empty
/// when there is none, and it is ignored as the library ignores it.
std::string ValidateConfig(const Environment& env, const ParsedArgs& parsed, config::Config* cfg,
                           std::string* warning);

/// Names a variable's error line after the option that set it, when one did: "NUMABIND_MEMORY=fast: why"
/// becomes "--memory fast: why".
std::string AsOption(const std::string& text, const ParsedArgs& parsed);

/// Every problem of the configuration a process with environment `env` would have: each bad value of a
/// NUMABIND_* variable (named as the option of `parsed` that set it) and each bad line of the site file,
/// errors: the library would leave its ranks unbound; each unknown NUMABIND_* name of either, with the
/// nearest known name, warnings: the library ignores them. Values are checked even under NUMABIND_DISABLE=1.
/// `numabind vars --check` prints it; `numabind run` refuses to start on an error.
struct ConfigCheck {
  struct Problem {
    bool error;        ///< false: a warning
    std::string text;  ///< "NUMABIND_POLICY=sockte: why", "PATH:LINE: why", "NUMABIND_FOO is not ..."
  };
  std::vector<Problem> problems;  ///< the environment's values, its names, then the site file's lines
  int errors = 0, warnings = 0;
  /// What was checked: "the environment and PATH", or "the environment; no site file at PATH".
  std::string checked;
};
ConfigCheck CheckConfig(const Environment& env, const ParsedArgs& parsed);

/// The site file (config/site_file.h) of `env` (its NUMABIND_CONFIG_FILE, or the path compiled in), read
/// once per process; a bad file is reported once on `err` (when not nullptr) and read as no file, and the
/// first unknown name of a good one is warned about there.
/// ValidateConfig applies it under the environment's values, as the library does.
const config::SiteFile& SiteDefaults(const char* const* env, FILE* err);

/// Writes rows as columns separated by two spaces, each as wide as its widest cell, the last unpadded.
/// A row shorter than the others ends in a message that runs on without widening the columns it spans.
void PrintTable(FILE* out, const std::vector<std::vector<std::string>>& rows);

// ------------------------------------------------------------------------------------------- run parts

/// libnumabind.so at the path the command was built with (installed), else next to `self_exe` (build tree)
/// or in its ../lib, canonical (but through the link when only that path has no space or colon); empty when
/// none is there.
std::string FindShim(const std::string& self_exe, std::string* tried);

/// This program's path: /proc/self/exe, or `argv0` made absolute (links kept) when that has a slash and the
/// real path has a space or a colon, so that a link reaches a library that LD_PRELOAD can name.
std::string SelfExe(const char* argv0);

/// Whether LD_PRELOAD can carry `path`: the dynamic loader splits it at spaces and colons.
bool Preloadable(const std::string& path);

/// A path LD_PRELOAD can carry to the library `lib` (a real path with a space or a colon): the symbolic link
/// `shared`/numabind-UID/build-HASH to lib's directory (HASH of that directory, so builds do not collide),
/// plus "/libnumabind.so". The directory follows the plan basis's rules (the user's own, mode 0700); the
/// link is reused when it points there, else made under a temporary name and renamed over. shared nullptr:
/// /dev/shm. Returns "" and sets *err on failure.
std::string PreloadableLink(const std::string& lib, const char* shared, std::string* err);

/// LD_PRELOAD with `lib` added after the entries already there, unless a libnumabind.so is one of them.
std::string ComposePreload(const char* existing, const std::string& lib);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_CLI_H_
