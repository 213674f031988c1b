// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A launcher's threads change the environment while others start ranks with it (shim/entry/
// caller_environment.h): system and popen, for which `environ` points at the rank's environment during the
// call, and posix_spawn given `environ` itself. helpers/environ_race runs such a launcher under the shim,
// then starts one more rank with posix_spawn, whose environment the library builds where it keeps a spawn's
// (shim/child/rank_exports.h), and says whether its own environment changed meanwhile or lost a variable.
// Before, the rank environment of a system or popen call went back to that keep: a setenv of a new name
// during the call (glibc copies `environ`'s pointers into an array of its own) left the launcher's
// NUMABIND_BOUND pointing into it, rewritten by the next spawn or unmapped (SIGSEGV), and two threads'
// overlapping calls left `environ` itself on the first one's, which the second one's end unmapped (SIGSEGV
// at once). The launcher's environment was also read while another thread's setenv could free it, and
// changed while glibc's setenv was between counting and copying it.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

struct RaceRun {
  RunResult run;
  std::string output;
  std::string log;
};

/// environ_race MODE ROUNDS under the shim: LOCAL_RANK=0 of 1 (set with setenv: the launcher is no rank)
/// bound to every CPU of a synthetic machine, this one's among them.
RaceRun Race(const std::string& mode, int rounds) {
  std::string dir = MakeTempDir("numabind-environ-race");
  std::string build = BuildDir();
  RaceRun r;
  r.run = Run({build + "/helpers/environ_race", mode, std::to_string(rounds)},
              {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_TOPOLOGY=synthetic:pack:2 core:2 pu:2",
               "NUMABIND_POLICY=cpus:0-7", "NUMABIND_CONFIG_FILE=none", "NUMABIND_LOG=info",
               "NUMABIND_LOG_FILE=" + dir + "/log"},
              dir + "/out", 60);
  r.output = ReadFile(dir + "/out");
  r.log = ReadFile(dir + "/log");
  RemoveTree(dir);
  return r;
}

/// The launcher ran to its end, its environment untouched by the last spawn and none of its variables lost,
/// every rank bound by it and marked so (none bound itself again at start-up).
void ExpectIntact(const RaceRun& r, int calls) {
  cr_assert_eq(r.run.exit_code, 0, "exit %d\n%s\nlog:\n%s", r.run.exit_code, Tail(r.output).c_str(),
               Tail(r.log).c_str());
  cr_expect_eq(LinesWith(r.output, "environment unchanged").size(), 1u, "%s", r.output.c_str());
  cr_expect_eq(LinesWith(r.output, "variables kept").size(), 1u, "%s", r.output.c_str());
  // The calls' ranks, then the one posix_spawn started.
  size_t bound = LinesWith(r.log, "numabind: bound rank 0 of 1 (LOCAL_RANK)").size();
  cr_expect_eq(bound, static_cast<size_t>(calls), "%zu bound\n%s", bound, Tail(r.log).c_str());
  cr_expect_eq(LinesWith(r.log, "numabind: bound rank 1 of 2 (LOCAL_RANK) /bin/true").size(), 1u, "%s",
               Tail(r.log).c_str());
  cr_expect_eq(LinesWith(r.log, " at start-up ").size(), 0u, "%s", Tail(r.log).c_str());
}

}  // namespace

// Each shell says it runs and waits while another thread adds four variables and changes one: every call
// has a setenv of a new name in it. The launcher's environment keeps the rank's NUMABIND_BOUND then
// (docs/limits.md), in memory that nothing reuses.
Test(caller_environment, setenv_during_system_leaves_the_launcher_intact, .timeout = 60) {
  RaceRun r = Race("setenv", 150);
  ExpectIntact(r, 150);
  cr_expect_eq(LinesWith(r.output, "calls 150 failed 0").size(), 1u, "%s", r.output.c_str());
}

// A's shell starts, B's starts, A's call returns, then B's: `environ` is the launcher's own again after
// both, neither rank's (no NUMABIND_BOUND), whichever ends first.
Test(caller_environment, overlapping_system_calls_give_the_environment_back, .timeout = 60) {
  RaceRun r = Race("nested", 20);
  ExpectIntact(r, 40);
  cr_expect_eq(LinesWith(r.output, "calls 40 failed 0").size(), 1u, "%s", r.output.c_str());
  cr_expect_eq(LinesWith(r.output, "launcher NUMABIND_BOUND absent").size(), 1u, "%s", r.output.c_str());
}

// glibc's setenv of a new name counts `environ` under a lock of its own, then copies it: environ_race holds
// one setenv in between (its realloc waits for `environ` to change) while a system call makes `environ` the
// rank's, and one while a call puts the launcher's back. The setenv and the change exclude each other now;
// before, the first copy was cut short (the launcher lost LOCAL_WORLD_SIZE, its ranks their count) and the
// second setenv's variable went past the array's end, never seen.
Test(caller_environment, setenv_counting_environ_never_sees_it_change, .timeout = 60) {
  RaceRun r = Race("window", 1);
  ExpectIntact(r, 3);
  cr_expect_eq(LinesWith(r.output, "calls 3 failed 0").size(), 1u, "%s", r.output.c_str());
}

// popen returns once its shell runs: a thread that sets and unsets a variable as fast as it can lands in
// some calls. Its setenv's realloc moves glibc's array every time and fills the old one with 0xff: the call
// reads the launcher's environment from a copy made under the lock, never from an array a setenv may free.
// Some calls fail as they do without the library (glibc's setenv may free the array a child is exec'ing
// with): not counted.
Test(caller_environment, popen_while_another_thread_sets_variables, .timeout = 60) {
  RaceRun r = Race("popen", 150);
  ExpectIntact(r, 151);
}

// posix_spawn given `environ` itself while another thread adds variables to it: glibc's array lengthens in
// place (it has room) after the library counted it. The rank's environment holds what was counted; before,
// the copy ran past its array onto the NUMABIND_BOUND marker after it, and such ranks bound themselves again.
Test(caller_environment, spawn_of_environ_while_it_lengthens, .timeout = 60) {
  RaceRun r = Race("spawn", 300);
  ExpectIntact(r, 301);
  cr_expect_eq(LinesWith(r.output, "calls 301 failed 0").size(), 1u, "%s", r.output.c_str());
}

}  // namespace numabind::shim::test
