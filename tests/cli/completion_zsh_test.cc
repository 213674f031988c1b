// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The zsh completion (`numabind completion zsh`, cli/completion_zsh.cc) run in a real interactive zsh on a
// pseudo-terminal (zsh/zpty): each line is typed, then Tab, then a key whose widget writes the edit buffer
// to a file; what Tab made of the line is the answer. One fresh zsh per line: completion keeps state.

#include <sys/stat.h>

#include "tests/cli/cli_util.h"

using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;

TestSuite(completion_zsh, .fini = numabind::test::RemoveTempDirs);

namespace {

/// The lines, each completed once; "LINE -> BUFFER" per line. Skips without zsh (scripts/install-deps.sh
/// installs it).
std::string Complete(const std::vector<std::string>& lines) {
  struct stat st;
  if (stat("/usr/bin/zsh", &st) != 0) cr_skip_test("needs zsh (scripts/install-deps.sh)");
  std::string dir = numabind::test::TempDir();
  Result r = Run({"completion", "zsh"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  numabind::test::WriteAll(dir + "/_numabind", r.out);
  std::string script =
      "zmodload zsh/zpty\n"
      "dir=" +
      dir + " out=" + dir +
      "/buffer\n"
      "t() {\n"
      "  : >$out\n"
      "  zpty z zsh -f -i\n"
      "  zpty -w z \"PS1='> '; autoload -U compinit; compinit -u -d $dir/zcompdump; source $dir/_numabind\"\n"
      "  zpty -w z 'pb() { print -r -- \"$BUFFER\" >>'$out'; BUFFER=; }; zle -N pb; bindkey \"^Xp\" pb'\n"
      "  zpty -w -n z \"$1\"$'\\t'$'\\C-xp'\n"
      "  local i; for i in {1..100}; do [[ -s $out ]] && break; sleep 0.05; done\n"
      "  zpty -d z\n"
      "  print -r -- \"$1 -> $(<$out)\"\n"
      "}\n";
  for (const std::string& l : lines) script += "t '" + l + "'\n";
  Result z = RunProgram({"zsh", "-f", "-c", script});
  cr_assert_eq(z.status, 0, "%s", z.err.c_str());
  return z.out;
}

}  // namespace

Test(completion_zsh, commands_options_and_values, .timeout = 60) {
  std::string out = Complete({
      "numabind ru",                     // a command
      "numabind bind --no-m",            // an option of that command
      "numabind run --policy cp",        // a value that goes on: no space after cpus:
      "numabind run --memory=inter",     // --opt=value
      "numabind plan --export omp,g",    // a comma list, each item once
      "numabind plan --topology synth",  // a word beside files
      "numabind show --json --dr",       // --json and --draw are alternatives: --draw is not offered
      "numabind completion z",           // the shells
      "numabind help bi",                // a command's name
  });
  EXPECT_STREQ(out,
               "numabind ru -> numabind run \n"
               "numabind bind --no-m -> numabind bind --no-move \n"
               "numabind run --policy cp -> numabind run --policy cpus:\n"
               "numabind run --memory=inter -> numabind run --memory=interleave \n"
               "numabind plan --export omp,g -> numabind plan --export omp,gpu,\n"
               "numabind plan --topology synth -> numabind plan --topology synthetic:\n"
               "numabind show --json --dr -> numabind show --json --dr\n"
               "numabind completion z -> numabind completion zsh \n"
               "numabind help bi -> numabind help bind \n");
}

// After the options, and after `--`, comes a command (zsh's own table of programs) and its arguments.
Test(completion_zsh, the_command_to_run, .timeout = 60) {
  std::string out = Complete({"numabind run lsbl", "numabind run -- lsbl",
                              "numabind bind --policy node -- lsbl", "numabind run -- lsblk --outp"});
  EXPECT_STREQ(out,
               "numabind run lsbl -> numabind run lsblk \n"
               "numabind run -- lsbl -> numabind run -- lsblk \n"
               "numabind bind --policy node -- lsbl -> numabind bind --policy node -- lsblk \n"
               "numabind run -- lsblk --outp -> numabind run -- lsblk --output\n");
}
