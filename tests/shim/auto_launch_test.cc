// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_POLICY=auto through real launchers (a bash loop, Open MPI's mpirun) with the shim preloaded in
// the launcher only: on the synthetic machine "pack:1 l3:2 core:1 pu:1" (CPUs 0 and 1, one L3 each) two
// ranks get one L3 each, rank 0 CPU 0 and rank 1 CPU 1, and each rank's log line says auto's share. An
// unbound rank (both CPUs) cannot pass.
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

using namespace numabind::shim::test;

namespace {

constexpr char kTopology[] = "synthetic:pack:1 l3:2 core:1 pu:1";
std::string g_dir;

void Setup() {
  g_dir = MakeTempDir("numabind-auto");
  cr_assert(!g_dir.empty(), "cannot create a scratch directory");
}
void Teardown() { RemoveTree(g_dir); }

void SkipUnlessCpus01() {
  std::vector<int> cpus = AllowedCpus();
  if (cpus.size() < 2 || cpus[0] != 0 || cpus[1] != 1) cr_skip_test("needs CPUs 0 and 1 allowed");
}

// Runs argv with the shim preloaded, auto on the synthetic machine, and checks two ranks.
void ExpectAuto(const char* what, const std::vector<std::string>& argv, std::vector<std::string> env) {
  std::string log = g_dir + "/numabind.log", output = g_dir + "/output.txt", out = g_dir + "/ranks.jsonl";
  env.push_back("LD_PRELOAD=" + Absolute(BuildDir() + "/libnumabind.so"));
  env.push_back("NUMABIND_LOG=info");
  env.push_back("NUMABIND_LOG_FILE=" + log);
  env.push_back("NUMABIND_POLICY=auto");
  env.push_back(std::string("NUMABIND_TOPOLOGY=") + kTopology);
  env.push_back("TMPDIR=" + g_dir);
  RunResult run = Run(argv, env, output, 40);
  std::vector<Report> reports = ReadReports(out);
  std::string text = ReadFile(log);
  cr_assert(run.started && run.exit_code == 0, "%s: exit %d\n%s\n%s", what, run.exit_code, Tail(text).c_str(),
            Tail(ReadFile(output)).c_str());
  cr_assert_eq(reports.size(), 2u, "%s: %zu reports\n%s", what, reports.size(), Tail(text).c_str());
  for (const Report& r : reports) {
    std::string rank = r.Get("rank");
    cr_assert(rank == "0" || rank == "1", "%s: rank \"%s\"", what, rank.c_str());
    cr_assert(r.Get("cpus") == rank, "%s: rank %s on CPUs %s, expected %s\n%s", what, rank.c_str(),
              r.Get("cpus").c_str(), rank.c_str(), Tail(text).c_str());
  }
  std::vector<std::string> bound = LinesWith(text, "numabind: bound rank");
  cr_assert_eq(bound.size(), 2u, "%s: %zu bound lines\n%s", what, bound.size(), text.c_str());
  for (const std::string& line : bound)
    cr_assert(line.find("(auto: 1 of 2 L3 of node 0)") != std::string::npos, "%s: %s", what, line.c_str());
}

}  // namespace

TestSuite(auto_launch, .init = Setup, .fini = Teardown);

Test(auto_launch, bash_loop, .timeout = 60) {
  SkipUnlessCpus01();
  std::string report = Absolute(BuildDir() + "/helpers/report");
  ExpectAuto("bash loop",
             {"bash", Absolute(RepoDir() + "/tests/shim/scripts/bash_loop.sh"), "2", report, "--out",
              g_dir + "/ranks.jsonl"},
             {});
}

// Open MPI binds rank r to core r by default: auto's plan replaces it.
Test(auto_launch, mpirun, .timeout = 60) {
  SkipUnlessCpus01();
  std::string report = Absolute(BuildDir() + "/helpers/report");
  ExpectAuto("mpirun",
             {"mpirun.openmpi", "--oversubscribe", "-np", "2", report, "--out", g_dir + "/ranks.jsonl"},
             {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"});
}
