// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report` on where each rank's memory and threads were at its end (cli/report_locality.cc): end
// lines written by hand for each flag and its threshold, then real ranks (a thread a rank widens itself
// after it was bound, and the same rank without it).

#include <string>
#include <vector>

#include "tests/cli/cli_util.h"

using numabind::test::BuildDir;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;
using numabind::test::TempDir;
using numabind::test::TwoCpus;
using numabind::test::WriteAll;

TestSuite(report_locality, .fini = numabind::test::RemoveTempDirs);

namespace {

/// Rank r of 2 on host n1, bound to node r's CPUs (4r..4r+3), and its end line with `where` (the locality
/// members; "" for an end line without them).
std::string Rank(int r, const std::string& where) {
  std::string pid = std::to_string(100 + r), cpus = r == 0 ? "0-3" : "4-7", node = std::to_string(r);
  return "{\"time\":\"2026-12-03T10:00:00.000Z\",\"host\":\"n1\",\"pid\":" + pid +
         ",\"level\":\"info\",\"event\":\"bound\",\"rank\":" + std::to_string(r) +
         ",\"nranks\":2,\"rank_var\":\"LOCAL_RANK\",\"command\":\"./app\",\"launch\":\"9@1\",\"cpus\":\"" +
         cpus + "\",\"nodes\":\"" + node +
         "\",\"memory\":\"local\",\"device\":null,\"entry\":\"start-up\",\"replaced\":false,\"policy\":"
         "\"node\"}\n"
         "{\"time\":\"2026-12-03T10:00:09.000Z\",\"host\":\"n1\",\"pid\":" +
         pid + ",\"level\":\"info\",\"event\":\"end\",\"launch\":\"9@1\"" + where + "}\n";
}

/// The locality members of an end line: anon KiB, of which local KiB, on planned node `node`.
std::string Where(uint64_t anon, uint64_t local, int node, int outside = 0, const std::string& named = "") {
  std::string remote = anon > local ? std::to_string(1 - node) : "null";
  return ",\"anon_kb\":" + std::to_string(anon) + ",\"local_kb\":" + std::to_string(local) +
         ",\"remote_node\":" + remote + ",\"by_node\":\"\",\"file_kb\":0,\"planned_nodes\":\"" +
         std::to_string(node) + "\",\"threads\":3,\"outside\":" + std::to_string(outside) +
         (named.empty() ? "" : ",\"outside_threads\":\"" + named + "\"");
}

std::string Log(const std::string& text) {
  std::string dir = TempDir();
  WriteAll(dir + "/n1.log", text);
  return dir + "/n1.log";
}

}  // namespace

// 62% of 96 MiB on its node: flagged with the node holding the rest, exit 1; --min-local 50 passes it.
Test(report_locality, memory_away_from_its_nodes_is_flagged_under_min_local) {
  std::string log = Log(Rank(0, Where(98304, 98304, 0)) + Rank(1, Where(98304, 60948, 1)));
  Result r = Run({"report", log});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("memory: 62% of its 96 MiB on its nodes 1 at its end (--min-local 90%), 36 MiB "
                       "elsewhere, most on node 0") != std::string::npos,
            "%s", r.out.c_str());
  cr_expect(r.out.find("100% of 96M") != std::string::npos, "rank 0's share: %s", r.out.c_str());
  Result relaxed = Run({"report", "--min-local", "50", log});
  cr_expect_eq(relaxed.status, 0, "%s", relaxed.out.c_str());
  Result bad = Run({"report", "--min-local", "ninety", log});
  cr_expect_eq(bad.status, 1, "the default applies: %s", bad.out.c_str());
  cr_expect(bad.err.find("--min-local ninety: expected a percentage from 0 to 100, such as 90; using 90") !=
                std::string::npos,
            "%s", bad.err.c_str());
}

// Under 16 MiB a rank is shown, not judged; an end line without locality (NUMABIND_LOCALITY=0, an older
// library) and a rank without an end line are unknown, not ok by locality, and flag nothing.
Test(report_locality, small_and_unknown_ranks_are_shown_not_flagged) {
  std::string log = Log(Rank(0, Where(8192, 2048, 0)) + Rank(1, ""));
  Result r = Run({"report", log});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("25% of 8M") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("unknown") != std::string::npos, "%s", r.out.c_str());
}

// A thread outside the rank's CPUs at its end: flagged by name; --json carries the locality object.
Test(report_locality, a_thread_outside_is_flagged_and_json_has_locality) {
  std::string log = Log(Rank(0, Where(98304, 98304, 0, 1, "4121 pt_nccl 0-63")) + Rank(1, Where(0, 0, 1)));
  Result r = Run({"report", log});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("1 thread outside its CPUs at its end (TID NAME CPUS: 4121 pt_nccl 0-63)") !=
                std::string::npos,
            "%s", r.out.c_str());
  Result j = Run({"report", "--json", log});
  cr_expect(j.out.find("\"locality\":{\"anon_kb\":98304,\"local_kb\":98304,\"local_percent\":100,"
                       "\"planned_nodes\":\"0\",\"by_node\":\"\",\"threads\":3,\"outside\":1,"
                       "\"outside_threads\":\"4121 pt_nccl 0-63\",\"partial\":false}") != std::string::npos,
            "%s", j.out.c_str());
}

// Real ranks: helpers/widen, bound to one CPU, widens itself and its second thread to both after binding:
// report exits 1 naming the threads; helpers/report, bound alike, ends with every thread on its CPU: exit 0.
Test(report_locality, a_rank_whose_thread_widened_itself_fails_and_one_without_passes) {
  std::vector<int> cpus = TwoCpus();
  std::string build = BuildDir(), both = std::to_string(cpus[0]) + "," + std::to_string(cpus[1]);
  for (bool widen : {true, false}) {
    std::string dir = TempDir();
    std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so",
                                    "NUMABIND_POLICY=cpus:" + std::to_string(cpus[0]),
                                    "NUMABIND_LOG=info",
                                    "NUMABIND_LOG_FORMAT=json",
                                    "NUMABIND_LOG_FILE=" + dir + "/n.log",
                                    "LOCAL_RANK=0",
                                    "LOCAL_WORLD_SIZE=1"};
    std::vector<std::string> argv = widen ? std::vector<std::string>{build + "/helpers/widen", "--cpus", both}
                                          : std::vector<std::string>{build + "/helpers/report"};
    Result run = RunProgram(argv, env);
    cr_assert_eq(run.status, 0, "%s%s", run.out.c_str(), run.err.c_str());
    Result r = Run({"report", dir + "/n.log"});
    cr_expect_eq(r.status, widen ? 1 : 0, "widen %d: %s", widen, r.out.c_str());
    cr_expect_eq(r.out.find("threads outside its CPUs at its end (TID NAME CPUS: ") != std::string::npos,
                 widen, "%s", r.out.c_str());
  }
}
