// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`: a job's verdict from JSON log lines. Hand-written logs (two hosts, one file each) for
// each flag: everything bound (exit 0), a rank that ran unbound, ranks overlapping (and the planned sharing
// of a node policy, which is not flagged), a rank away from its device's node, a host without a log (exit
// 1, naming what); then real logs, written by the library preloaded into helpers/entry_launcher with
// NUMABIND_LOG_FILE=DIR/%j/%h.log, which report finds from the same value.

#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/cli/cli_util.h"

using numabind::test::BuildDir;
using numabind::test::Numabind;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;
using numabind::test::TempDir;
using numabind::test::TwoCpuPolicy;
using numabind::test::WriteAll;

TestSuite(report, .fini = numabind::test::RemoveTempDirs);

// The sanitized build (make test's ASan run of this binary) reserves terabytes of shadow memory, which a
// `ulimit -v` refuses, and runs several times slower: its bounds are looser.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

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

/// How many lines of `text` contain `what`.
int CountLinesWith(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    n += text.substr(at, end - at).find(what) != std::string::npos;
    at = end + 1;
  }
  return n;
}

/// Two hosts, two ranks each, on separate CPUs; `n2` replaces the second host's lines when given.
std::string Job(const std::string& n2 = "") {
  std::string dir = TempDir();
  WriteAll(dir + "/n1.log", Bound("n1", 0, 2, "0-3", "0") + Bound("n1", 1, 2, "4-7", "1"));
  WriteAll(dir + "/n2.log", n2.empty() ? Bound("n2", 0, 2, "0-3", "0") + Bound("n2", 1, 2, "4-7", "1") : n2);
  return dir;
}

/// Two ranks started by helpers/entry_launcher with the library preloaded, logging in JSON to
/// DIR/%j/%h.log with SLURM_JOB_ID=77 (DIR/77 made first); returns DIR.
std::string RealJob(const std::vector<std::string>& vars,
                    const std::vector<std::string>& program = {"/bin/true"}) {
  std::string dir = TempDir(), build = BuildDir();
  mkdir((dir + "/77").c_str(), 0755);
  mkdir((dir + "/shared").c_str(),
        0755);  // RunProgram's is relative to a relative BUILD: the library refuses it
  std::vector<std::string> env = {
      "LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_LOG=info", "NUMABIND_LOG_FORMAT=json",
      "NUMABIND_LOG_FILE=" + dir + "/%j/%h.log", "SLURM_JOB_ID=77",   "NUMABIND_SHARED=" + dir + "/shared"};
  env.insert(env.end(), vars.begin(), vars.end());
  std::vector<std::string> argv = {build + "/helpers/entry_launcher", "execve", "2"};
  argv.insert(argv.end(), program.begin(), program.end());
  Result r = RunProgram(argv, env);
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

// Each policy that gives every rank a whole domain: its ranks of one domain share its CPUs by design (two
// ranks of one socket under `socket`), and are no overlap; the same CPUs under a policy that gives each
// rank its own (exclusive, cpus:) are one. The verdict and the exit status, and no overlap line.
Test(report, ranks_of_one_domain_share_it_by_plan_under_each_sharing_policy) {
  for (const char* policy : {"node", "socket", "nodes:0|1"}) {
    Result r = Run({"report", "--json",
                    Job(Bound("n2", 0, 2, "0-7", "0", policy) + Bound("n2", 1, 2, "0-7", "0", policy))});
    cr_expect_eq(r.status, 0, "%s: %s%s", policy, r.out.c_str(), r.err.c_str());
    cr_expect(r.out.rfind("{\"ok\":true,", 0) == 0, "%s: %s", policy, r.out.c_str());
    cr_expect(r.out.find("overlaps") == std::string::npos, "%s: %s", policy, r.out.c_str());
    // Another domain's CPUs under the same policy are its own: a rank whose CPUs reach into them overlaps.
    r = Run({"report", Job(Bound("n2", 0, 2, "0-7", "0", policy) + Bound("n2", 1, 2, "4-11", "1", policy))});
    cr_expect_eq(r.status, 1, "%s: %s%s", policy, r.out.c_str(), r.err.c_str());
    cr_expect(r.out.find("overlaps rank 0 (pid 100) on cpus 4-7") != std::string::npos, "%s: %s", policy,
              r.out.c_str());
  }
  // Two real ranks under socket on this machine's one socket: the library's lines as report reads them.
  Result real = Run({"report", RealJob({"NUMABIND_POLICY=socket"}) + "/77"});
  cr_expect_eq(real.status, 0, "%s%s", real.out.c_str(), real.err.c_str());
  cr_expect_eq(CountLinesWith(real.out, " socket: "), 2, "%s", real.out.c_str());
  for (const char* policy : {"exclusive", "cpus:0-7|0-7", "core-complex"}) {
    Result r =
        Run({"report", Job(Bound("n2", 0, 2, "0-7", "0", policy) + Bound("n2", 1, 2, "0-7", "0", policy))});
    cr_expect_eq(r.status, 1, "%s: %s%s", policy, r.out.c_str(), r.err.c_str());
    cr_expect(r.out.find("overlaps rank 1 (pid 101) on cpus 0-7") != std::string::npos, "%s: %s", policy,
              r.out.c_str());
  }
}

/// A warning line the library writes on host n2: with `site` ("file" or "line"), about the site file.
std::string Warning(const std::string& message, const std::string& site = "", int pid = 300) {
  return "{\"time\":\"2026-12-03T10:00:00.000Z\",\"host\":\"n2\",\"pid\":" + std::to_string(pid) +
         ",\"level\":\"warn\"" +
         (site.empty() ? "" : ",\"event\":\"site_file\",\"ignored\":\"" + site + "\"") + ",\"message\":\"" +
         message + "\"}\n";
}

// A site file the library ignored (every process that read it says so) is a flag: the job ran, bound, but
// not as the site configured it. Exit 1, one flag line with the count, never eight; a line of it ignored
// (an unknown name) too. Other warnings said alike by many processes are one line with the count, exit 0.
Test(report, a_site_file_ignored_is_one_flag_and_exit_1) {
  std::string bad =
      "/etc/numabind.conf:2: NUMABIND_MEMORY=fast: expected local, preferred, bind or "
      "interleave (the file is ignored)";
  std::string ranks = Bound("n2", 0, 2, "0-3", "0") + Bound("n2", 1, 2, "4-7", "1");
  std::string lines;
  for (int i = 0; i < 8; ++i) lines += Warning(bad, "file", 300 + i);
  Result r = Run({"report", Job(lines + ranks)});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(CountLinesWith(r.out, "NUMABIND_MEMORY=fast"), 1, "%s", r.out.c_str());
  cr_expect(r.out.find("  flag: site file ignored: " + bad + " (said 8 times)\n") != std::string::npos, "%s",
            r.out.c_str());
  cr_expect(r.out.find("NOT as planned: 2 hosts, 4 ranks") != std::string::npos, "%s", r.out.c_str());
  r = Run({"report", "--json", Job(lines + ranks)});
  cr_expect(r.out.rfind("{\"ok\":false,", 0) == 0, "%s", r.out.c_str());
  cr_expect(r.out.find("\"flags\":[\"site file ignored: ") != std::string::npos, "%s", r.out.c_str());
  std::string unknown =
      "/etc/numabind.conf:4: NUMABIND_MEMROY is not a numabind variable (did you mean NUMABIND_MEMORY?); "
      "ignored";
  r = Run({"report", Job(Warning(unknown, "line") + ranks)});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("  flag: site file line ignored: " + unknown + "\n") != std::string::npos, "%s",
            r.out.c_str());
  // The same warning from eight processes, not about the site file: one line with the count, exit 0.
  std::string note = "NUMABIND_LOG_FILE cannot be written: logging to standard error";
  lines.clear();
  for (int i = 0; i < 8; ++i) lines += Warning(note, "", 300 + i);
  r = Run({"report", Job(lines + Warning("another", "", 400) + ranks)});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(CountLinesWith(r.out, note), 1, "%s", r.out.c_str());
  cr_expect(r.out.find("  warning: " + note + " (said 8 times)\n  warning: another\n") != std::string::npos,
            "%s", r.out.c_str());
}

// A fork child that took rank 0 at fork (NUMABIND_FORKS) and then exec'd gave it back ("released"): its
// bound line no longer holds, so it neither overlaps rank 0 nor counts as a rank.
Test(report, a_rank_given_back_at_exec_is_no_rank) {
  std::string child = Bound("n2", 0, 2, "0-3", "0");
  const std::string pid100 = "\"pid\":100";
  child.replace(child.find(pid100), pid100.size(), "\"pid\":300");
  std::string released =
      "{\"time\":\"2026-12-03T10:00:00.000Z\",\"host\":\"n2\",\"pid\":300,\"level\":\"info\",\"event\":"
      "\"released\",\"rank\":0,\"nranks\":2,\"rank_var\":\"NUMABIND_MATCH\",\"command\":\"/bin/sleep\","
      "\"entry\":\"fork\",\"message\":\"numabind: gave back rank 0 of 2 (order, NUMABIND_FORKS)\"}\n";
  Result r =
      Run({"report", Job(child + released + Bound("n2", 0, 2, "0-3", "0") + Bound("n2", 1, 2, "4-7", "1"))});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("host n2: 2 ranks") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("pid 300") == std::string::npos, "%s", r.out.c_str());
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
  cr_expect(help.out.find("numabind report [OPTIONS] [FILE|DIR|PATTERN...]") != std::string::npos, "%s",
            help.out.c_str());
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

// Python ranks are named by their script (base/command_name.h), as the library logged them.
Test(report, python_ranks_named_by_their_script) {
  std::string script = TempDir() + "/train.py";
  WriteAll(script, "pass\n");
  std::string dir =
      RealJob({"NUMABIND_POLICY=" + TwoCpuPolicy()}, {"/usr/bin/python3", "-u", script, "--lr", "3"});
  Result r = Run({"report", "--json", dir + "/77"});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(CountLinesWith(r.out, "\"command\":\"python3 " + script + "\""), 2, "%s", r.out.c_str());
}

Test(report, control_characters_are_escaped_in_text_and_draw) {
  // An escape sequence (OSC set-title, then CSI clear) in the host and command fields, and a C1 CSI.
  std::string line = Bound("n\\u001b]0;owned\\u0007", 0, 1, "0-3", "0");
  line.replace(line.find("./app"), 5, "./a\\u001b[2J\\u009bpp");
  std::string dir = TempDir();
  WriteAll(dir + "/n.log", line);
  for (const char* mode : std::vector<const char*>{"--draw", "--json", nullptr}) {
    Result r = mode != nullptr ? Run({"report", mode, dir}) : Run({"report", dir});
    cr_expect(r.out.find('\x1b') == std::string::npos && r.out.find('\x07') == std::string::npos &&
                  r.out.find("\xc2\x9b") == std::string::npos,
              "%s: %s", mode != nullptr ? mode : "text", r.out.c_str());
    if (mode == nullptr || std::string(mode) != "--json")
      cr_expect(r.out.find("host n\\x1b]0;owned\\x07") != std::string::npos, "%s", r.out.c_str());
  }
}

Test(report, json_is_valid_for_any_accepted_line_and_numbers_are_checked) {
  std::string dir = TempDir();
  // Numbers the parser accepts but the library never writes: out of its limits, or not integers.
  std::string huge = Bound("n1", 0, 2, "0-3", "0");
  huge.replace(huge.find("\"nranks\":2"), 10, "\"nranks\":4000000000");
  std::string odd = Bound("n1", 1, 2, "4-7", "0");
  odd.replace(odd.find("\"rank\":1"), 8, "\"rank\":1e5-");
  odd.replace(odd.find("\"pid\":101"), 9, "\"pid\":-.");
  WriteAll(dir + "/n1.log", huge + odd + "{\"host\":\"n2\\ud800\xff\",\"event\":\"bound\",\"pid\":7}\n");
  // Within 1 GB of address space: a count used as it stands once took 11 GB before std::bad_alloc.
  Result r =
      RunProgram({"/bin/sh", "-c",
                  std::string(kSanitized ? "" : "ulimit -v 1000000 && ") + "exec \"$0\" report --json \"$1\"",
                  Numabind(), dir});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  WriteAll(dir + "/../out.json", r.out);
  Result py = RunProgram({"/usr/bin/python3", "-c",
                          "import json, sys\n"
                          "j = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8'))\n"
                          "r = j['hosts'][0]['ranks']\n"
                          "print([(x['rank'], x['nranks'], x['pid']) for x in r], j['hosts'][1]['host'])\n",
                          dir + "/../out.json"});
  cr_expect_eq(py.out, "[(None, 2, None), (0, None, 100)] n2\ufffd\ufffd\n", "%s%s%s", py.out.c_str(),
               py.err.c_str(), r.out.c_str());
  r = Run({"report", dir});
  cr_expect(r.out.find("its line's nranks is not a number up to 1048576") != std::string::npos, "%s",
            r.out.c_str());
}

Test(report, a_cut_list_is_unknown_and_exits_1) {
  Result r = Run({"report", Job(Bound("n2", 0, 2, "0-3,8-", "0") + Bound("n2", 1, 2, "4-7", "99999"))});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(CountLinesWith(r.out, "its CPU or node list is unknown"), 2, "%s", r.out.c_str());
}

Test(report, missing_ranks_are_ranges_whatever_the_count_claims, .timeout = 60) {
  Result r = Run({"report", Job(Bound("n2", 0, 1048576, "0-3", "0") + Bound("n2", 5, 1048576, "4-7", "1"))});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("flag: ranks 1-4 of 1048576 (SLURM_LOCALID) have no line") != std::string::npos, "%s",
            r.out.c_str());
  cr_expect(r.out.find("flag: ranks 6-1048575 of 1048576") != std::string::npos, "%s", r.out.c_str());
}

// 20,000 rank lines on one host (the bar is 100,000 in 2 s and 200 MB; make bench times that): a
// quadratic reading took 4.6 s for 8,000.
Test(report, twenty_thousand_lines_in_linear_time, .timeout = 60) {
  std::string dir = TempDir(), text;
  constexpr int kRanks = 20000;
  for (int k = 0; k < kRanks; ++k) text += Bound("n1", k, kRanks, std::to_string(k % 4096), "0");
  WriteAll(dir + "/n1.log", text);
  timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  Result r = Run({"report", dir});
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = static_cast<double>(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  cr_expect_eq(r.status, 1, "ranks 4096 apart share a CPU: %s", r.err.c_str());
  cr_expect(r.out.find("overlaps rank 4096 (pid 4196) and others on cpus 0") != std::string::npos, "%.300s",
            r.out.c_str());
  cr_expect(seconds < (kSanitized ? 20.0 : 2.0), "%d lines took %.2f s", kRanks, seconds);
  cr_expect(ru.ru_maxrss < (kSanitized ? 1024 : 200) * 1024, "%d lines took %ld KB", kRanks, ru.ru_maxrss);
}

Test(report, fifos_and_directories_among_matches_are_skipped, .timeout = 30) {
  std::string dir = Job();
  cr_assert_eq(mkfifo((dir + "/n3.log").c_str(), 0600), 0);
  cr_assert_eq(mkdir((dir + "/n4.log").c_str(), 0700), 0);
  Result r = Run({"report", dir + "/%h.log"});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.err.find("n3.log: a FIFO, skipped") != std::string::npos, "%s", r.err.c_str());
  cr_expect(r.err.find("n4.log: a directory, skipped") != std::string::npos, "%s", r.err.c_str());
  r = Run({"report", dir});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(CountLinesWith(r.err, "skipped"), 2, "%s", r.err.c_str());
}

Test(report, no_argument_takes_the_log_file_from_the_site_file) {
  std::string dir = Job(), site = TempDir() + "/numabind.conf";
  WriteAll(site, "NUMABIND_LOG_FILE=" + dir + "/%h.log\n");
  Result r = Run({"report"}, {"NUMABIND_CONFIG_FILE=" + site});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find(": 2 hosts, 4 ranks") != std::string::npos, "%s", r.out.c_str());
  // The environment's value comes first, as for the library.
  r = Run({"report"}, {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_LOG_FILE=/nonexistent/nb/%h.log"});
  cr_expect_eq(r.status, 2, "%s%s", r.out.c_str(), r.err.c_str());
}

Test(report, no_line_names_the_variables_that_write_them) {
  std::string dir = TempDir();
  WriteAll(dir + "/n1.log", "");
  Result r = Run({"report", dir});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("NUMABIND_LOG=info NUMABIND_LOG_FORMAT=json") != std::string::npos, "%s",
            r.out.c_str());
}

// The packaged site file, uncommented, is a valid file whose log is one file per job and host.
Test(report, packaged_example_logs_per_job_and_host) {
  std::string text = numabind::test::ReadAll("packaging/numabind.conf"), site = TempDir() + "/numabind.conf";
  cr_assert(!text.empty(), "packaging/numabind.conf not found (tests run from the repository's root)");
  for (size_t at = 0; (at = text.find("\n#NUMABIND_", at)) != std::string::npos;) text.erase(at + 1, 1);
  WriteAll(site, text);
  Result r = Run({"vars"}, {"NUMABIND_CONFIG_FILE=" + site});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_str_empty(r.err.c_str());
  cr_expect(r.out.find("/shared/numabind/%j/%h.log (" + site) != std::string::npos, "%s", r.out.c_str());
}
