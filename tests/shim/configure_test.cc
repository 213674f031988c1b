// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one configure step and the one pass over each environment (shim/entry/configure.h): how many times
// the library reads an environment to its end, counted by helpers/env_walks (hardware watchpoints on the
// environment's pointer array as the kernel laid it out) under the library and under libempty.so, whose
// count is the loader's own. Before the one pass, a self-binding rank read its environment to the end 7
// times (13 with Slurm's ids, NUMABIND_EXPORT and a %j log file), a device's 12, a launcher exec'ing a rank
// by order 15.

#include <criterion/criterion.h>

#include <stdio.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

struct Walks {
  long begun = -1;  ///< reads of the environment's first entry
  long ended = -1;  ///< reads of its NULL: passes to its end
};

/// helpers/env_walks running `program` preloaded with `lib` and exactly `env` (with a site file that does not
/// exist and the test's shared directory); skips the test when the machine has no watchpoints to give.
Walks CountWalks(const std::string& dir, const std::string& lib, std::vector<std::string> env,
                 const std::vector<std::string>& program) {
  std::string build = BuildDir();
  std::vector<std::string> argv = {build + "/helpers/env_walks",
                                   "LD_PRELOAD=" + lib,
                                   "NUMABIND_CONFIG_FILE=" + dir + "/no-such-site-file",
                                   "NUMABIND_SHARED=" + build + "/test-shared",
                                   "PATH=/usr/bin:/bin",
                                   "HOME=" + dir,
                                   "LANG=C.UTF-8",
                                   "USER=nobody",
                                   "TERM=dumb"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  RunResult r = Run(argv, {}, dir + "/walks", 30);
  std::string out = ReadFile(dir + "/walks");
  if (r.exit_code == 2) cr_skip_test("no hardware watchpoints here: %s", Tail(out).c_str());
  Walks w;
  for (const std::string& line : LinesWith(out, "begun ")) {
    if (sscanf(line.c_str(), "begun %ld ended %ld", &w.begun, &w.ended) == 2) break;
  }
  cr_assert(r.exit_code == 0 && w.ended >= 0, "env_walks exited %d:\n%s", r.exit_code, Tail(out).c_str());
  return w;
}

/// The passes to the end the library adds to the loader's, in a run of `program` with `env`: the second of
/// two runs (the first prepares the shared basis, as the first rank of a machine does).
long LibraryPasses(const std::string& dir, const std::vector<std::string>& env,
                   const std::vector<std::string>& program) {
  std::string build = BuildDir();
  Walks floor = CountWalks(dir, build + "/libempty.so", env, program);
  CountWalks(dir, build + "/libnumabind.so", env, program);
  Walks ours = CountWalks(dir, build + "/libnumabind.so", env, program);
  return ours.ended - floor.ended;
}

}  // namespace

// Its start-up's scan, and the copy of its environment with NUMABIND_BOUND first; nothing else reads it to
// the end: not the launch id, the log file's %j, the planner's variables or NUMABIND_EXPORT's.
Test(configure, a_self_binding_rank_reads_its_environment_once) {
  std::string dir = MakeTempDir("numabind-walks");
  std::string log = dir + "/rank-%j.log";
  std::vector<std::string> env = {"NUMABIND_POLICY=node", "LOCAL_RANK=0",
                                  "LOCAL_WORLD_SIZE=1",   "SLURM_JOB_ID=7",
                                  "SLURM_STEP_ID=0",      "NUMABIND_EXPORT=omp,nic",
                                  "NUMABIND_LOG=info",    "NUMABIND_LOG_FILE=" + log};
  long passes = LibraryPasses(dir, env, {"/bin/true"});
  std::string written = ReadFile(dir + "/rank-7.log");
  RemoveTree(dir);
  cr_expect_eq(LinesWith(written, "bound rank 0 of 1 (LOCAL_RANK)").size(), 2u, "%s", written.c_str());
  cr_expect_eq(passes, 2, "%ld passes over the environment beyond the loader's", passes);
}

// A process that sees one device reads its visibility lists from the start-up's one pass.
Test(configure, a_device_rank_reads_its_environment_once) {
  std::string dir = MakeTempDir("numabind-walks");
  long passes = LibraryPasses(dir, {"NUMABIND_POLICY=node", "NUMABIND_BY_DEVICE=1", "CUDA_VISIBLE_DEVICES=0"},
                              {"/bin/true"});
  RemoveTree(dir);
  cr_expect_leq(passes, 1, "%ld passes over the environment beyond the loader's", passes);
}

// A launcher that execs a rank (by order, with NUMABIND_EXPORT=omp): its start-up's scan, its environment
// at its first start of a program (the site file's NUMABIND_*, then what the planner reads), the rank's
// environment once, and its copy with NUMABIND_BOUND and the exports first.
Test(configure, a_launcher_reads_a_rank_environment_once) {
  std::string dir = MakeTempDir("numabind-walks");
  long passes = LibraryPasses(dir,
                              {"NUMABIND_POLICY=node", "NUMABIND_MATCH=/bin/true", "NUMABIND_EXPORT=omp",
                               "NUMABIND_LOG=info", "NUMABIND_LOG_FILE=" + dir + "/log"},
                              {"/usr/bin/env", "/bin/true"});
  std::string written = ReadFile(dir + "/log");
  RemoveTree(dir);
  cr_expect_eq(LinesWith(written, "bound rank 0 (order, NUMABIND_MATCH) /bin/true").size(), 2u, "%s",
               written.c_str());
  cr_expect_leq(passes, 5, "%ld passes over the environment beyond the loader's", passes);
}

}  // namespace numabind::shim::test
