// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The bash completion (`numabind completion bash`, cli/completion.cc) run in bash: what it offers after
// `run --` and for an option's value after a comma, with the words as bash splits the line. Its knowing every
// command, option and policy is commands_test.cc's.

#include "tests/cli/cli_util.h"

using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;

TestSuite(completion, .fini = numabind::test::RemoveTempDirs);

namespace {

/// Runs the generated script in bash, in a directory that holds the files python-notes.txt and fig.txt,
/// with `cases`: lines of `t LINE WORD...` (the line typed, completed at its end, and its words as bash
/// splits it). Prints one line per case: the number of replies, a colon, the replies.
std::string Complete(const std::string& cases) {
  std::string dir = numabind::test::TempDir();
  Result r = Run({"completion", "bash"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  numabind::test::WriteAll(dir + "/numabind.bash", r.out);
  numabind::test::WriteAll(dir + "/python-notes.txt", "");
  numabind::test::WriteAll(dir + "/fig.txt", "");
  std::string script = "cd " + dir +
                       " && . ./numabind.bash\n"
                       "t() { COMP_LINE=$1 COMP_POINT=${#1}; shift; COMP_WORDS=(\"$@\"); "
                       "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _numabind; "
                       "echo \"${#COMPREPLY[@]}:${COMPREPLY[*]}\"; }\n" +
                       cases;
  Result b = RunProgram({"bash", "--norc", "-c", script});
  cr_assert_eq(b.status, 0, "%s", b.err.c_str());
  return b.out;
}

}  // namespace

// After `--` comes the command to run: commands, not files. Its own arguments are files, even when one looks
// like numabind's option (python3 --policy is python3's).
Test(completion, commands_after_dashdash) {
  std::string out = Complete(
      "t 'numabind run -- pyth' numabind run -- pyth\n"
      "t 'numabind run --policy node -- pyth' numabind run --policy node -- pyth\n"
      "t 'numabind run -- python3 f' numabind run -- python3 f\n"
      "t 'numabind run -- python3 --policy p' numabind run -- python3 --policy p\n"
      "t 'numabind run --po' numabind run --po\n");
  std::istringstream lines(out);
  std::string line;
  for (int i = 0; i < 2; ++i) {
    std::getline(lines, line);
    cr_expect(line.find(" python3") != std::string::npos || line.find(":python3") != std::string::npos,
              "case %d: %s", i, out.c_str());
    cr_expect(line.find("python-notes.txt") == std::string::npos, "case %d, a file: %s", i, out.c_str());
  }
  std::getline(lines, line);
  EXPECT_STREQ(line, "1:fig.txt");
  std::getline(lines, line);
  EXPECT_STREQ(line, "1:python-notes.txt");
  std::getline(lines, line);
  EXPECT_STREQ(line, "1:--policy");
}

// A value goes on after a comma only where the value is a comma list of words, with those not given yet:
// --export omp,gpu; never in a list that is typed (cpus:0,1, bus ids). Each line twice where it has a ':': as
// bash splits it by default, and as one word (a COMP_WORDBREAKS without ':'). A typed ':' is no reply.
Test(completion, only_valid_continuations_of_a_value) {
  std::string out = Complete(
      "t 'numabind run --policy cpus:0,' numabind run --policy cpus:0,\n"
      "t 'numabind run --policy cpus:0,' numabind run --policy cpus : 0,\n"
      "t 'numabind plan --policy=nodes:0,' numabind plan --policy = nodes : 0,\n"
      "t 'numabind run --devices 0000:34:00.0,' numabind run --devices 0000 : 34 : 00.0,\n"
      "t 'numabind run --export omp,' numabind run --export omp,\n"
      "t 'numabind run --export omp,gpu,o' numabind run --export omp,gpu,o\n"
      "t 'numabind run --export none,' numabind run --export none,\n"
      "t 'numabind run --policy cpus:' numabind run --policy cpus :\n"
      "t 'numabind run --policy co' numabind run --policy co\n");
  EXPECT_STREQ(out,
               "0:\n0:\n0:\n0:\n"
               "3:omp,omp-cpus omp,gpu omp,nic\n"
               "1:omp,gpu,omp-cpus\n"
               "0:\n"
               "1:\n"
               "1:core-complex\n");
}
