// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank's environment in a mapping of its own (shim/child/rank_exports.h), never on the spawning thread's
// stack. Starting a rank from the smallest thread stack (issue 18): helpers/entry_launcher's "small:" entries
// start one rank from a thread with a 16 KiB stack, through fork + execve, vfork + execve and posix_spawn,
// with the shim preloaded into the launcher. The rank gets 1,024 CPUs of the synthetic machine below (this
// machine's CPUs are among them, so the binding succeeds) and NUMABIND_EXPORT=omp-cpus, whose OMP_PLACES
// alone is about 6 KB; or no export and an environment of 4,000 variables (32 KB of pointers). Both used to
// be built on the spawning thread's stack and crashed the launcher or its child with SIGSEGV before the
// exec. helpers/report says the rank ran, with what it got. Self-binding is checked under a 32 KiB
// RLIMIT_STACK.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/fault_count_util.h"
#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

using Outcome = PreloadedRun;

constexpr char kTopology[] = "NUMABIND_TOPOLOGY=synthetic:pack:4 numa:4 core:32 pu:2";  // 1,024 PUs
constexpr char kAllCpus[] = "NUMABIND_POLICY=cpus:0-1023";
constexpr int kManyVars = 4000;

/// Runs argv under the shim (launch_util.h's RunPreloaded) with the 1,024-CPU plan and `env`.
Outcome Start(std::vector<std::string> argv, const std::vector<std::string>& env) {
  std::vector<std::string> all = {kTopology, kAllCpus};
  all.insert(all.end(), env.begin(), env.end());
  return RunPreloaded(std::move(argv), all, "numabind-small-stack");
}

/// Starts one rank of helpers/report through entry_launcher `entry` ("small:execve"...).
Outcome Launch(const std::string& entry, const std::vector<std::string>& env) {
  return Start({BuildDir() + "/helpers/entry_launcher", entry, "1", "@REPORT", "--out", "@OUT", "--env",
                "OMP_NUM_THREADS", "--env", "OMP_PLACES", "--env", "NUMABIND_BOUND", "--env", "PAD_3999"},
               env);
}

/// "{0},{1},...,{1023}", quoted as in a report.
std::string AllPlaces() {
  std::string s = "\"";
  for (int c = 0; c < 1024; ++c) s += (c == 0 ? "{" : ",{") + std::to_string(c) + "}";
  return s + "\"";
}

/// The one rank ran, bound (its log line) and marked.
void ExpectRan(const Outcome& o, const std::string& what) {
  cr_assert_eq(o.run.exit_code, 0, "%s: launcher exited %d\n%s\nlog:\n%s", what.c_str(), o.run.exit_code,
               Tail(o.output).c_str(), Tail(o.log).c_str());
  cr_assert_eq(o.reports.size(), 1u, "%s: %zu reports\n%s\nlog:\n%s", what.c_str(), o.reports.size(),
               Tail(o.output).c_str(), Tail(o.log).c_str());
  const Report& r = o.reports[0];
  cr_expect_eq(r.Get("rank"), "0", "%s: %s", what.c_str(), r.line.c_str());
  cr_expect_eq(r.Get("cpus"), FormatCpuList(AllowedCpus()), "%s: %s", what.c_str(), r.line.c_str());
  // "VAR=value cpus=LIST by=PID": the CPUs numabind gave the rank and who bound it
  // (shim/child/bound_marker.h).
  std::string marker = EnvOf(r, "NUMABIND_BOUND");
  std::string want = "\"LOCAL_RANK=0 cpus=" + FormatCpuList(AllowedCpus()) + " by=";
  cr_expect_eq(marker.compare(0, want.size(), want), 0, "%s: %s", what.c_str(), r.line.c_str());
  cr_expect_eq(LinesWith(o.log, "numabind: bound rank 0 of 1 (LOCAL_RANK)").size(), 1u, "%s: %s",
               what.c_str(), o.log.c_str());
}

/// omp-cpus for 1,024 CPUs: OMP_PLACES of 5,9xx bytes.
void ExpectOmpCpus(const std::string& entry) {
  Outcome o = Launch(entry, {"NUMABIND_EXPORT=omp-cpus"});
  ExpectRan(o, entry);
  const Report& r = o.reports[0];
  cr_expect_eq(EnvOf(r, "OMP_NUM_THREADS"), "\"1024\"", "%s: %s", entry.c_str(), r.line.c_str());
  cr_expect(EnvOf(r, "OMP_PLACES") == AllPlaces(), "%s: OMP_PLACES %.80s...", entry.c_str(),
            EnvOf(r, "OMP_PLACES").c_str());
}

/// No export, 4,000 variables: every one reaches the rank, NUMABIND_BOUND besides.
void ExpectManyVariables(const std::string& entry) {
  std::vector<std::string> env;
  for (int i = 0; i < kManyVars; ++i) env.push_back("PAD_" + std::to_string(i) + "=" + std::to_string(i));
  Outcome o = Launch(entry, env);
  ExpectRan(o, entry);
  const Report& r = o.reports[0];
  cr_expect_eq(EnvOf(r, "PAD_3999"), "\"3999\"", "%s: %s", entry.c_str(), r.line.c_str());
  cr_expect_eq(EnvOf(r, "OMP_PLACES"), "null", "%s: %s", entry.c_str(), r.line.c_str());
  cr_expect_gt(std::stoi(r.Get("env_count")), kManyVars, "%s: %s", entry.c_str(), r.line.c_str());
}

}  // namespace

Test(rank_exports, fork_execve_omp_cpus, .timeout = 60) { ExpectOmpCpus("small:execve"); }
Test(rank_exports, vfork_execve_omp_cpus, .timeout = 60) { ExpectOmpCpus("small:vfork-execve"); }
Test(rank_exports, posix_spawn_omp_cpus, .timeout = 60) { ExpectOmpCpus("small:posix_spawn"); }
Test(rank_exports, system_omp_cpus, .timeout = 60) { ExpectOmpCpus("small:system"); }
Test(rank_exports, fork_execve_4000_variables, .timeout = 60) { ExpectManyVariables("small:execve"); }
Test(rank_exports, vfork_execve_4000_variables, .timeout = 60) { ExpectManyVariables("small:vfork-execve"); }
Test(rank_exports, posix_spawn_4000_variables, .timeout = 60) { ExpectManyVariables("small:posix_spawn"); }

// The block a vfork child maps for its exec is its parent's memory: the parent unmaps it when vfork returns,
// so three ranks leave the launcher with as many mappings as one did (the first spawn also prepares).
Test(rank_exports, vfork_leaves_nothing_mapped_in_the_launcher, .timeout = 60) {
  std::string dir = MakeTempDir("numabind-small-stack");
  std::string build = BuildDir();
  RunResult run = Run({build + "/helpers/entry_launcher", "small:vfork-execve", "3",
                       build + "/helpers/report", "--out", dir + "/reports"},
                      {"LD_PRELOAD=" + build + "/libnumabind.so", kTopology, kAllCpus,
                       "NUMABIND_EXPORT=omp-cpus", "NB_TEST_MAPS=1"},
                      dir + "/output", 60);
  std::string output = ReadFile(dir + "/output");
  size_t reports = ReadReports(dir + "/reports").size();
  RemoveTree(dir);
  cr_assert_eq(run.exit_code, 0, "%s", output.c_str());
  cr_assert_eq(reports, 3u, "%s", output.c_str());
  std::vector<std::string> counts = LinesWith(output, "maps after rank ");
  cr_assert_eq(counts.size(), 3u, "%s", output.c_str());
  std::string first = counts[0].substr(counts[0].find(':'));
  cr_expect_eq(counts[1].substr(counts[1].find(':')), first, "%s", output.c_str());
  cr_expect_eq(counts[2].substr(counts[2].find(':')), first, "%s", output.c_str());
}

// A launcher that spawns ranks (posix_spawn, the parent side) builds each rank's environment in the block
// the previous one used: no mmap, munmap and fresh page per rank. Before, that page was one more fault in
// the launcher for every rank it started (1.0 per spawn; now under 0.1).
Test(rank_exports, posix_spawn_launcher_reuses_its_rank_block, .timeout = 60) {
  std::string dir = MakeTempDir("numabind-kept-block");
  std::string lib = "LD_PRELOAD=" + BuildDir() + "/libnumabind.so";
  FaultCounts f = CountFaults(
      {}, {"100", "spawn", lib, "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1", "NUMABIND_CONFIG_FILE=none"},
      {lib, kTopology, kAllCpus, "NUMABIND_CONFIG_FILE=none"}, dir);
  RemoveTree(dir);
  cr_expect_lt(f.parent, 0.5, "the launcher's faults per rank spawned: %.2f", f.parent);
}

// A launcher that starts ranks with system or popen points `environ` at each rank's environment, a block it
// never reuses or unmaps (another thread may hold pointers into it): the blocks are carved one after another
// from pinned chunks, a sixth of a page each here, rather than a page each (1.04 faults per rank; the
// launcher's own side of the call was 0.04 before).
Test(rank_exports, system_launcher_pins_a_fraction_of_a_page_per_rank, .timeout = 60) {
  std::string dir = MakeTempDir("numabind-pinned-block");
  std::string lib = "LD_PRELOAD=" + BuildDir() + "/libnumabind.so";
  for (const char* entry : {"system", "popen"}) {
    FaultCounts f = CountFaults(
        {}, {"100", entry, lib, "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1", "NUMABIND_CONFIG_FILE=none"},
        {lib, kTopology, kAllCpus, "NUMABIND_CONFIG_FILE=none"}, dir);
    cr_expect_lt(f.parent, 0.5, "%s: the launcher's faults per rank started: %.2f", entry, f.parent);
  }
  RemoveTree(dir);
}

// Self-binding in the constructor, on a main thread whose stack may not grow past 32 KiB (the environment
// and arguments take part of it): the rank binds itself and exports its 1,024 places.
Test(rank_exports, self_binding_with_32k_stack_limit, .timeout = 60) {
  Outcome o = Start({"bash", "-c", "ulimit -s 32 && exec \"$@\"", "bash", "@REPORT", "--out", "@OUT", "--env",
                     "OMP_NUM_THREADS", "--env", "OMP_PLACES", "--env", "NUMABIND_BOUND"},
                    {"NUMABIND_EXPORT=omp-cpus", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1"});
  ExpectRan(o, "self-binding");
  cr_expect(EnvOf(o.reports[0], "OMP_PLACES") == AllPlaces(), "OMP_PLACES %.80s...",
            EnvOf(o.reports[0], "OMP_PLACES").c_str());
}

}  // namespace numabind::shim::test
