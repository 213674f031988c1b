// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank line carries the rank's whole CPU list on the largest machines: the worst case of a 4,096-CPU
// machine, every other CPU (9,684 bytes of list), does not fit the line's 2 KiB on the stack, which then
// grows into a mapping of its own (shim/log/line.h). The machine is a synthetic topology of 4,096 PUs
// (NUMABIND_TOPOLOGY) and the plan the map cpus:EVENS|ODDS; the kernel keeps the CPUs this machine has.
// Checked on the child side of a fork, of a vfork (whose mapping would be its parent's: the launcher's
// mappings after each rank must not grow), and of posix_spawn; in JSON and text.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

std::string EveryOther(int first) {
  std::string out;
  for (int c = first; c < 4096; c += 2) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

struct Logged {
  std::string log, output;
  RunResult run;
};

Logged Launch(const std::string& entry, bool json) {
  std::string dir = MakeTempDir("numabind-lists"), build = BuildDir();
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so",
                                  "NUMABIND_LOG_FILE=" + dir + "/log",
                                  "NUMABIND_LOG=info",
                                  "NUMABIND_TOPOLOGY=synthetic:pack:2 core:2048 pu:1",
                                  "NUMABIND_POLICY=cpus:" + EveryOther(0) + "|" + EveryOther(1),
                                  "NB_TEST_MAPS=1"};
  if (json) env.push_back("NUMABIND_LOG_FORMAT=json");
  Logged l;
  l.run = Run({build + "/helpers/entry_launcher", entry, "2", "/bin/true"}, env, dir + "/output", 60);
  l.log = ReadFile(dir + "/log");
  l.output = ReadFile(dir + "/output");
  RemoveTree(dir);
  return l;
}

}  // namespace

Test(whole_lists, every_other_cpu_of_4096_is_on_the_line_whole) {
  cr_assert_eq(EveryOther(0).size(), 9684u);
  for (const char* entry : {"execve", "vfork-execve", "posix_spawn"}) {
    for (bool json : {true, false}) {
      Logged l = Launch(entry, json);
      cr_assert_eq(l.run.exit_code, 0, "%s: %s", entry, Tail(l.output).c_str());
      std::vector<std::string> lines = LinesWith(l.log, json ? "\"event\":\"bound\"" : "bound rank");
      cr_assert_eq(lines.size(), 2u, "%s: %s", entry, Tail(l.log).c_str());
      for (int rank = 0; rank < 2; ++rank) {
        std::string cpus = EveryOther(rank == 0 ? 0 : 1);
        std::string want = json ? "\"cpus\":\"" + cpus + "\"" : ": cpus " + cpus + " nodes ";
        cr_expect_eq(LinesWith(l.log, want).size(), 1u, "%s json=%d rank %d: %s", entry, json, rank,
                     Tail(l.log, 400).c_str());
      }
      cr_expect(l.log.find("truncated") == std::string::npos, "%s: %s", entry, Tail(l.log, 400).c_str());
      // Nothing a rank's spawn mapped is left in the launcher.
      std::vector<std::string> maps = LinesWith(l.output, "maps after rank ");
      cr_assert_eq(maps.size(), 2u, "%s: %s", entry, l.output.c_str());
      cr_expect_eq(maps[0].substr(maps[0].find(':')), maps[1].substr(maps[1].find(':')), "%s: %s", entry,
                   l.output.c_str());
    }
  }
}

}  // namespace numabind::shim::test
