// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The members of the library's JSON log lines are spelled once, in config/log_keys.def: the library writes
// each by its id (shim/log/json_log.cc) and `numabind report` reads each by its id (cli/report.h's
// LogFields, filled through the same table). Real lines, written by the library preloaded into real
// processes in each shape a line has: ranks bound by a launcher at debug (with their stack) on a machine
// with a GPU near each node (the topology file's two nodes of one CPU: CPUs 0 and 1), a rank bound at
// start-up after another binding under auto and a rank inside its CPUs, a rank whose name is cut, a rank not
// bound beside a site file line ignored, and a log file that cannot be written. Read back with report's own
// parser, every line's keys are keys of the table, and every key of the table is written by some line;
// report's verdict then says what the lines say.

#include <limits.h>
#include <stdlib.h>

#include <set>
#include <string>
#include <vector>

#include "cli/report.h"
#include "config/log_keys.h"
#include "tests/cli/cli_util.h"

using numabind::cli::LogFields;
using numabind::cli::ParseLogLine;
using numabind::config::kLogKeyCount;
using numabind::config::LogKey;
using numabind::config::LogKeyName;
using numabind::test::BuildDir;
using numabind::test::ReadAll;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;
using numabind::test::TempDir;
using numabind::test::TwoCpus;

TestSuite(log_keys, .fini = numabind::test::RemoveTempDirs);

namespace {

/// Starts PROGRAM with argv[0] NAME on CPU (or "-": as it is) with the library preloaded; python3 itself is
/// not: only what it execs.
const char kStart[] =
    "import os, sys\n"
    "lib, cpu, program, name = sys.argv[1:5]\n"
    "if cpu != '-': os.sched_setaffinity(0, {int(cpu)})\n"
    "os.execve(program, [name] + sys.argv[5:], dict(os.environ, LD_PRELOAD=lib))\n";

Result Start(const std::string& cpu, const std::vector<std::string>& argv,
             const std::vector<std::string>& env) {
  std::vector<std::string> all = {"/usr/bin/python3", "-c", kStart, BuildDir() + "/libnumabind.so", cpu};
  all.insert(all.end(), argv.begin(), argv.end());
  Result r = RunProgram(all, env);
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  return r;
}

/// The lines of `text`, each parsed by report's parser (asserting each is one); their keys into *seen.
void ReadLines(const std::string& text, std::set<std::string>* seen) {
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string line = text.substr(start, nl - start);
    LogFields f;
    cr_assert(ParseLogLine(line, &f), "not a log line: %s", line.c_str());
    std::string unknown;
    for (const std::string& key : f.unknown) unknown += " " + key;
    cr_expect(unknown.empty(), "keys not in config/log_keys.def:%s\n%s", unknown.c_str(), line.c_str());
    for (size_t k = 0; k < kLogKeyCount; ++k)
      if (f.values[k].present) seen->insert(LogKeyName(static_cast<LogKey>(k)));
  }
}

}  // namespace

Test(log_keys, every_key_the_library_writes_is_one_report_reads, .timeout = 60) {
  std::vector<int> cpus = TwoCpus();
  if (cpus[0] != 0 || cpus[1] != 1) cr_skip_test("the topology file names CPUs 0 and 1");
  std::string dir = TempDir(), log = dir + "/n.log", build = BuildDir();
  char topology[PATH_MAX];
  cr_assert_not_null(realpath("tests/data/topologies/2synth-2n1c1t-2gpu.xml", topology));
  std::vector<std::string> json = {"NUMABIND_LOG_FORMAT=json", "NUMABIND_LOG_FILE=" + log};
  auto with = [&json](std::vector<std::string> more) {
    more.insert(more.end(), json.begin(), json.end());
    return more;
  };
  // A launcher's ranks, at debug, each near its GPU.
  Result r = RunProgram({build + "/helpers/entry_launcher", "execve", "2", "/bin/true"},
                        with({"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_LOG=debug",
                              "NUMABIND_POLICY=node", std::string("NUMABIND_TOPOLOGY=") + topology}));
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  // Rank 1 of auto, started on CPU 0, binds itself to CPU 1 (replaced); the rank it starts plans inside it.
  Start("0", {"/bin/bash", "bash", "-c", "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 /bin/true; true"},
        with({"NUMABIND_LOG=info", "NUMABIND_POLICY=auto", "NUMABIND_DEVICES=none",
              "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2"}));
  // A name of 3,000 bytes, cut on the line.
  std::string euros;
  for (int i = 0; i < 1000; ++i) euros += "\xe2\x82\xac";
  Start("-", {"/bin/true", euros}, with({"NUMABIND_POLICY=node", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2"}));
  // A rank not bound, with a site file one of whose lines is ignored.
  numabind::test::WriteAll(dir + "/numabind.conf", "NUMABIND_FUTURE_KNOB=1\n");
  Start("-", {"/bin/true", "true"},
        with({"NUMABIND_POLICY=node", "NUMABIND_MEMORY=fast", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2",
              "NUMABIND_CONFIG_FILE=" + dir + "/numabind.conf"}));
  // Rank 0 on CPU 0 whose second thread widens itself to both CPUs: its end names it (outside_threads).
  Start("-", {build + "/helpers/widen", "widen", "--cpus", "0-1"},
        with({"NUMABIND_POLICY=cpus:0", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1"}));
  // 60,000 mappings: its end reads numa_maps in part (partial).
  Start("-", {build + "/helpers/many_maps", "many_maps", "60000", "4"},
        with({"NUMABIND_POLICY=cpus:0", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1"}));
  // A log file that cannot be written: the lines go to standard error, after one that says why.
  Result fallback = Start("-", {"/bin/true", "true"},
                          {"NUMABIND_POLICY=node", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2",
                           "NUMABIND_LOG_FORMAT=json", "NUMABIND_LOG_FILE=/"});

  std::set<std::string> seen;
  std::string text = ReadAll(log);
  ReadLines(text, &seen);
  ReadLines(fallback.err, &seen);
  std::string missing;
  for (size_t k = 0; k < kLogKeyCount; ++k)
    if (seen.count(LogKeyName(static_cast<LogKey>(k))) == 0)
      missing += std::string(" ") + LogKeyName(static_cast<LogKey>(k));
  cr_expect(missing.empty(), "keys of config/log_keys.def no line wrote:%s\nlog:\n%s%s", missing.c_str(),
            text.c_str(), fallback.err.c_str());

  // What report makes of them: the keys it reads say who bound each rank, where, near which device.
  Result rep = Run({"report", "--json", log});
  for (const char* want :
       {"\"by\":\"launcher\"", "\"device_nodes\":\"0\"", "\"device_nodes\":\"1\"", "\"by\":\"self\"",
        "\"by\":\"inherited\"", "\"cut\":true", "\"event\":\"unbound\"", "site file line ignored: "})
    cr_expect(rep.out.find(want) != std::string::npos, "no %s in report --json:\n%s", want, rep.out.c_str());
}
