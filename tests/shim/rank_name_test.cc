// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank's name in the log (base/command_name.h): a Python rank is named by its script, "python3 train.py",
// whether a launcher binds it at its exec or spawn or it binds itself at start-up; any other program as
// before, by its path. Real runs: helpers/entry_launcher and Debian's /usr/bin/python3 under the shim.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

/// A script that does nothing, in the repository (its path is what the log names).
std::string Script() { return RepoDir() + "/tests/shim/scripts/pyreport.py"; }

/// Runs argv under the shim with a policy every machine accepts; the text log.
PreloadedRun Start(std::vector<std::string> argv, std::vector<std::string> env = {}) {
  env.push_back("NUMABIND_POLICY=node");
  return RunPreloaded(std::move(argv), env, "numabind-rank-name");
}

void ExpectLine(const PreloadedRun& o, const std::string& words, const char* what) {
  cr_expect_eq(o.run.exit_code, 0, "%s: exit %d\n%s", what, o.run.exit_code, Tail(o.output).c_str());
  cr_expect_eq(LinesWith(o.log, words).size(), 1u, "%s: no line with \"%s\"; log:\n%s", what, words.c_str(),
               o.log.c_str());
}

}  // namespace
}  // namespace numabind::shim::test

using namespace numabind::shim::test;  // NOLINT: test file

// A launcher's exec and spawn: the interpreter's options are skipped, the script named as it was given.
Test(rank_name, python_rank_named_by_its_script_by_a_launcher, .timeout = 60) {
  std::string launcher = BuildDir() + "/helpers/entry_launcher";
  for (const char* entry : {"execve", "posix_spawn", "vfork-execve"}) {
    PreloadedRun o = Start({launcher, entry, "1", kPython, "-u", "-X", "dev", Script(), "@OUT"});
    ExpectLine(o, "bound rank 0 of 1 (LOCAL_RANK) python3 " + Script() + ": cpus", entry);
  }
  PreloadedRun m = Start({launcher, "execve", "1", kPython, "-m", "this"});
  ExpectLine(m, "(LOCAL_RANK) python3 -m this: cpus", "-m");
  // Other programs keep the name they had: the path the launcher started.
  PreloadedRun t = Start({launcher, "execve", "1", "/bin/true", "x.py"});
  ExpectLine(t, "(LOCAL_RANK) /bin/true: cpus", "/bin/true");
}

// A rank that binds itself at start-up (srun's task, a launcher not preloaded): its own arguments.
Test(rank_name, python_rank_named_by_its_script_at_start_up, .timeout = 60) {
  PreloadedRun o = Start({kPython, "-B", Script(), "@OUT"}, {"LOCAL_RANK=0"});
  ExpectLine(o, "bound rank 0 (LOCAL_RANK) python3 " + Script() + ": cpus", "start-up");
  PreloadedRun c = Start({kPython, "-c", "pass"}, {"LOCAL_RANK=0"});
  ExpectLine(c, "bound rank 0 (LOCAL_RANK) python3 -c: cpus", "-c");
}
