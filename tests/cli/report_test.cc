// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`: a job's verdict from JSON log lines. Hand-written logs (two hosts, one file each) for
// each flag: everything bound (exit 0), a rank that ran unbound, ranks overlapping (and the planned sharing
// of a node policy, which is not flagged), a rank away from its device's node, a host without a log (exit
// 1, naming what); then real logs, written by the library preloaded into helpers/entry_launcher with
// NUMABIND_LOG_FILE=DIR/%j/%h.log, which report finds from the same value.

#include <sched.h>

#include "tests/cli/cli_util.h"

using numabind::test::BuildDir;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;
using numabind::test::TempDir;
using numabind::test::WriteAll;

TestSuite(report, .fini = numabind::test::RemoveTempDirs);

namespace {

/// A bound rank's line as the library writes it.
std::string Bound(const std::string& host, int rank, int nranks, const std::string& cpus,
                  const std::string& nodes, const std::string& policy = "exclusive",
                  const std::string& extra = "") {
  return "{\"time\":\"2026-12-03T10:00:00.000Z\",\"host\":\"" + host +
         "\",\"pid\":" + std::to_string(100 + rank) +
         ",\"level\":\"info\",\"event\":\"bound\",\"rank\":" + std::to_string(rank) +
         ",\"nranks\":" + std::to_string(nranks) +
         ",\"rank_var\":\"SLURM_LOCALID\",\"command\":\"./app\",\"cpus\":\"" + cpus + "\",\"nodes\":\"" +
         nodes +
         "\",\"memory\":\"local\",\"device\":null,\"entry\":\"start-up\",\"replaced\":false,\"policy\":\"" +
         policy + "\"" + extra + "}\n";
}

/// Two hosts, two ranks each, on separate CPUs; `n2` replaces the second host's lines when given.
std::string Job(const std::string& n2 = "") {
  std::string dir = TempDir();
  WriteAll(dir + "/n1.log", Bound("n1", 0, 2, "0-3", "0") + Bound("n1", 1, 2, "4-7", "1"));
  WriteAll(dir + "/n2.log", n2.empty() ? Bound("n2", 0, 2, "0-3", "0") + Bound("n2", 1, 2, "4-7", "1") : n2);
  return dir;
}

/// The first two CPUs this process may use, as "cpus:SECOND|FIRST" (the reverse of any default).
std::string TwoCpuPolicy() {
  cpu_set_t set;
  cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  cr_assert_eq(cpus.size(), 2u, "the test needs 2 allowed CPUs");
  return "cpus:" + std::to_string(cpus[1]) + "|" + std::to_string(cpus[0]);
}

/// Two ranks started by helpers/entry_launcher with the library preloaded, logging in JSON to
/// DIR/%j/%h.log with SLURM_JOB_ID=77 (DIR/77 made first); returns DIR.
std::string RealJob(const std::vector<std::string>& vars) {
  std::string dir = TempDir(), build = BuildDir();
  mkdir((dir + "/77").c_str(), 0755);
  mkdir((dir + "/shared").c_str(),
        0755);  // RunProgram's is relative to a relative BUILD: the library refuses it
  std::vector<std::string> env = {
      "LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_LOG=info", "NUMABIND_LOG_FORMAT=json",
      "NUMABIND_LOG_FILE=" + dir + "/%j/%h.log", "SLURM_JOB_ID=77",   "NUMABIND_SHARED=" + dir + "/shared"};
  env.insert(env.end(), vars.begin(), vars.end());
  Result r = RunProgram({build + "/helpers/entry_launcher", "execve", "2", "/bin/true"}, env);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  return dir;
}

}  // namespace

Test(report, bound_everything_exits_0_naming_each_host) {
  Result r = Run({"report", "--nodes", "2", Job()});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("host n1: 2 ranks") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("host n2: 2 ranks") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("exclusive: 4-7 / 1 / local / -") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("every rank bound as planned: 2 hosts, 4 ranks") != std::string::npos, "%s",
            r.out.c_str());
}

Test(report, unbound_rank_exits_1_with_why) {
  std::string unbound =
      "{\"time\":\"2026-12-03T10:00:00.000Z\",\"host\":\"n2\",\"pid\":201,\"level\":\"warn\",\"event\":"
      "\"unbound\",\"rank\":1,\"nranks\":2,\"rank_var\":\"SLURM_LOCALID\",\"command\":\"./app\",\"message\":"
      "\"rank 1 (SLURM_LOCALID) ./app runs unbound: sched_setaffinity: Invalid argument (EINVAL)\"}\n";
  Result r = Run({"report", Job(Bound("n2", 0, 2, "0-3", "0") + unbound)});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("ran unbound: rank 1 (SLURM_LOCALID) ./app runs unbound: sched_setaffinity") !=
                std::string::npos,
            "%s", r.out.c_str());
  cr_expect(r.out.find("NOT as planned") != std::string::npos, "%s", r.out.c_str());
}

Test(report, overlapping_ranks_exit_1) {
  Result r = Run({"report", Job(Bound("n2", 0, 2, "0-3", "0") + Bound("n2", 1, 2, "2-5", "0"))});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("overlaps rank 1 (pid 101) on cpus 2-3") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("overlaps rank 0 (pid 100) on cpus 2-3") != std::string::npos, "%s", r.out.c_str());
  // Ranks of one node under `node` share its CPUs by plan.
  r = Run({"report", Job(Bound("n2", 0, 2, "0-7", "0", "node") + Bound("n2", 1, 2, "0-7", "0", "node"))});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
}

Test(report, rank_away_from_its_device_exits_1) {
  std::string extra = ",\"device_nodes\":\"1\"";
  Result r =
      Run({"report", Job(Bound("n2", 0, 2, "0-3", "0", "exclusive", extra) + Bound("n2", 1, 2, "4-7", "1"))});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("nodes 0 miss its device's node 1") != std::string::npos, "%s", r.out.c_str());
}

Test(report, missing_host_and_missing_rank_exit_1) {
  std::string dir = Job();
  Result r = Run({"report", "--nodes", "3", dir});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("flag: 1 of 3 hosts have no log") != std::string::npos, "%s", r.out.c_str());
  r = Run({"report", Job(Bound("n2", 0, 2, "0-3", "0"))});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("flag: rank 1 of 2 (SLURM_LOCALID) has no line") != std::string::npos, "%s",
            r.out.c_str());
}

Test(report, json_and_draw) {
  Result r = Run({"report", "--json", Job(Bound("n2", 0, 2, "0-3", "0") + Bound("n2", 1, 2, "2-5", "0"))});
  cr_assert_eq(r.status, 1, "%s", r.err.c_str());
  std::string dir = TempDir();
  WriteAll(dir + "/out.json", r.out);
  Result py =
      RunProgram({"/usr/bin/python3", "-c",
                  "import json, sys\n"
                  "j = json.load(open(sys.argv[1]))\n"
                  "print(j['ok'], [h['host'] for h in j['hosts']], j['hosts'][1]['ranks'][1]['flags'][0])\n",
                  dir + "/out.json"});
  cr_expect_eq(py.out, "False ['n1', 'n2'] overlaps rank 0 (pid 100) on cpus 2-3\n", "%s%s", py.out.c_str(),
               py.err.c_str());
  r = Run({"report", "--draw", Job(Bound("n2", 0, 2, "0-3", "0") + Bound("n2", 1, 2, "2-5", "0"))});
  cr_expect(r.out.find("host n2: cpus 0-5, 1 per cell") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("  rank 0    ##!!..  <- overlaps") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("  rank 1    ..!!##  <- overlaps") != std::string::npos, "%s", r.out.c_str());
}

Test(report, bad_usage_exits_2) {
  cr_expect_eq(Run({"report", "--nodes", "x", Job()}).status, 2);
  cr_expect_eq(Run({"report", "--json", "--draw", Job()}).status, 2);
  cr_expect_eq(Run({"report", "/nonexistent/numabind-report"}).status, 2);
  cr_expect_eq(Run({"report"}).status, 2, "no log and no NUMABIND_LOG_FILE");
  Result help = Run({"--help"});
  cr_expect(help.out.find("numabind report [--json|--draw]") != std::string::npos, "%s", help.out.c_str());
  cr_expect_eq(Run({"report", "--help"}).status, 0);
}

Test(report, real_logs_found_by_the_log_file_value) {
  std::string policy = TwoCpuPolicy();
  std::string dir = RealJob({"NUMABIND_POLICY=" + policy});
  // Inside the job: the value it logged with and its job id find its files.
  Result r = Run({"report", "--nodes", "1"}, {"NUMABIND_LOG_FILE=" + dir + "/%j/%h.log", "SLURM_JOB_ID=77"});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find(": 2 ranks") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("launcher (execve)") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find(policy + ": ") != std::string::npos, "%s", r.out.c_str());
}

Test(report, real_unbound_ranks_exit_1_naming_the_rank) {
  std::string dir = RealJob({"NUMABIND_POLICY=" + TwoCpuPolicy(), "NUMABIND_MEMORY=fast"});
  Result r = Run({"report", dir + "/77"});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("ran unbound: rank 0 (LOCAL_RANK)") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("ran unbound: rank 1 (LOCAL_RANK)") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("NUMABIND_MEMORY=fast") != std::string::npos, "%s", r.out.c_str());
}
