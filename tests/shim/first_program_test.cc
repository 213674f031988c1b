// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A configured launch whose programs are no ranks says so once at info (shim/child/first_program.h):
// naming the first program, what it lacked and the options that make such programs ranks; nothing when
// the first was a rank, nothing below info. Through fork+exec (a shell) and posix_spawn.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

constexpr char kNote[] = ", the first program this launcher started, is no rank: ";

PreloadedRun Shell(const std::string& script, const std::vector<std::string>& env) {
  std::vector<std::string> all = {"NUMABIND_POLICY=node", "NUMABIND_DEVICES=none"};
  all.insert(all.end(), env.begin(), env.end());
  return RunPreloaded({"/bin/sh", "-c", script}, all, "numabind-first");
}

}  // namespace

Test(first_program, a_launch_of_no_ranks_says_so_once) {
  PreloadedRun o = Shell("/bin/true; /bin/true x; exit 0", {});
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  std::vector<std::string> lines = LinesWith(o.log, kNote);
  cr_assert_eq(lines.size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect_neq(lines[0].find("numabind: /bin/true, the first"), std::string::npos, "%s", lines[0].c_str());
  cr_expect_neq(lines[0].find("no rank variable (LOCAL_RANK, "), std::string::npos, "%s", lines[0].c_str());
  cr_expect_neq(lines[0].find("numabind run --match GLOB, --forks (Python fork pools) or --by-device"),
                std::string::npos, "%s", lines[0].c_str());
}

Test(first_program, nothing_when_the_first_is_a_rank) {
  PreloadedRun o = Shell("LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 /bin/true; /bin/true x; exit 0", {});
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank 0 of 1").size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect(LinesWith(o.log, kNote).empty(), "log:\n%s", o.log.c_str());
}

// A shell inside the launch (its parent configured too) is no launch of its own; nor is a bad configuration.
Test(first_program, only_the_launchs_root_and_a_good_configuration) {
  PreloadedRun o = Shell("/bin/sh -c '/bin/true; exit 0'; exit 0", {});
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  std::vector<std::string> lines = LinesWith(o.log, kNote);
  cr_assert_eq(lines.size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect_neq(lines[0].find("numabind: /bin/sh, the first"), std::string::npos, "%s", lines[0].c_str());
  PreloadedRun bad = Shell("/bin/true; exit 0", {"NUMABIND_MEMORY=fast"});
  cr_expect(LinesWith(bad.log, kNote).empty(), "log:\n%s", bad.log.c_str());
}

Test(first_program, nothing_below_info) {
  PreloadedRun o = Shell("/bin/true; exit 0", {"NUMABIND_LOG=warn"});
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  cr_expect(LinesWith(o.log, kNote).empty(), "log:\n%s", o.log.c_str());
}

// posix_spawn, with a rank variable the programs lack: the line names it.
Test(first_program, a_spawn_names_the_rank_variable_it_lacked) {
  PreloadedRun o = RunPreloaded(
      {BuildDir() + "/helpers/entry_launcher", "posix_spawn", "2", "/bin/true"},
      {"NUMABIND_POLICY=node", "NUMABIND_DEVICES=none", "NUMABIND_RANK_VAR=NB_NONE"}, "numabind-first");
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  std::vector<std::string> lines = LinesWith(o.log, kNote);
  cr_assert_eq(lines.size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect_neq(lines[0].find("its environment has no NB_NONE (NUMABIND_RANK_VAR)"), std::string::npos, "%s",
                lines[0].c_str());
}

}  // namespace numabind::shim::test
