// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A bound rank's end line (shim/entry/exit_wrappers.cc), and `numabind report`'s verdict from real logs:
// a rank writes one whichever way it exits by itself (main's return, exit, _exit, _Exit, from another
// thread), with the exit status it asked for; SIGKILL writes none. Only the rank writes it: not a vfork
// child, nor the commands a rank runs (a rank that bound itself, one bound between fork and exec, one a
// posix_spawn launcher bound). #!/bin/sh ranks (dash leaves by _exit) of two launches that overlap on the
// same CPUs are flagged; one after the other they pass; after a rank killed by SIGKILL, a launch on its CPUs
// cannot be ruled out. Launchers are bash and helpers/entry_launcher, preloaded, logging JSON to a file.

#include <criterion/criterion.h>
#include <sys/stat.h>

#include <map>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

/// What a run left: the launcher's status and output, the rank lines and end lines of its JSON log, the
/// reports of helpers/report, and `numabind report`'s status and output on the log.
struct Ended {
  RunResult run;
  std::string output, log;
  std::vector<Report> bound;  ///< "bound" lines, in the log's order
  std::vector<Report> ends;   ///< "end" lines
  std::vector<Report> reports;
  RunResult verdict;
  std::string judged;  ///< numabind report's output
};

/// Runs argv with the library preloaded under the two-CPU policy, logging JSON to DIR/log, then `numabind
/// report` on the log. In argv: "@REPORT" helpers/report, "@OUT" its reports file, "@EXIT_BY"
/// helpers/exit_by, "@DIR" the run's directory; `script`, when not empty, is written to DIR/rank.sh with the
/// same words placed.
Ended RunEnded(std::vector<std::string> argv, const std::vector<std::string>& vars,
               const std::string& script = "") {
  std::string dir = MakeTempDir("numabind-end"), build = BuildDir();
  auto place = [&](std::string s) {
    for (auto [key, value] : std::map<std::string, std::string>{{"@REPORT", build + "/helpers/report"},
                                                                {"@OUT", dir + "/reports"},
                                                                {"@EXIT_BY", build + "/helpers/exit_by"},
                                                                {"@DIR", dir}}) {
      for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), value);
    }
    return s;
  };
  if (!script.empty()) {
    FILE* f = fopen((dir + "/rank.sh").c_str(), "w");
    cr_assert(f != nullptr);
    fputs(place(script).c_str(), f);
    fclose(f);
    chmod((dir + "/rank.sh").c_str(), 0755);
  }
  for (std::string& a : argv) a = place(a);
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so",
                                  "NUMABIND_POLICY=" + TwoAllowedCpus().policy, "NUMABIND_LOG_FORMAT=json",
                                  "NUMABIND_LOG_FILE=" + dir + "/log"};
  for (const std::string& v : vars) env.push_back(place(v));
  Ended e;
  e.run = Run(argv, env, dir + "/output", 60);
  e.output = ReadFile(dir + "/output");
  e.log = ReadFile(dir + "/log");
  for (const Report& r : ReadReports(dir + "/log")) {
    if (r.Get("event") == "bound") e.bound.push_back(r);
    if (r.Get("event") == "end") e.ends.push_back(r);
  }
  e.reports = ReadReports(dir + "/reports");
  e.verdict = Run({build + "/numabind", "report", dir + "/log"}, {}, dir + "/verdict", 30);
  e.judged = ReadFile(dir + "/verdict");
  RemoveTree(dir);
  return e;
}

/// How many times `what` occurs in `text`.
size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// Each bound rank wrote exactly one end line, naming its launch, and no other process wrote one.
void ExpectOneEndPerRank(const Ended& e, const char* what) {
  std::map<std::string, std::string> launch_of;  // pid -> its bound line's launch
  for (const Report& b : e.bound) launch_of[b.Get("pid")] = b.Get("launch");
  cr_expect_eq(e.ends.size(), e.bound.size(), "%s: %zu end lines for %zu ranks:\n%s", what, e.ends.size(),
               e.bound.size(), e.log.c_str());
  std::map<std::string, int> seen;
  for (const Report& end : e.ends) {
    auto it = launch_of.find(end.Get("pid"));
    cr_expect(it != launch_of.end(), "%s: an end line of pid %s, no rank:\n%s", what, end.Get("pid").c_str(),
              e.log.c_str());
    if (it != launch_of.end())
      cr_expect_eq(end.Get("launch"), it->second, "%s: the end names another launch:\n%s", what,
                   e.log.c_str());
    cr_expect_eq(++seen[end.Get("pid")], 1, "%s: two end lines of pid %s:\n%s", what, end.Get("pid").c_str(),
                 e.log.c_str());
  }
}

/// Two launches, each a bash that starts ranks 0 and 1 of DIR/rank.sh (A's with arguments a0 and a1, B's
/// with b), the second after the shell command `between`. Each bash is a process of its own: a launch.
std::vector<std::string> TwoLaunches(const std::string& a0, const std::string& a1, const std::string& between,
                                     const std::string& b) {
  auto launch = [](const std::string& r0, const std::string& r1) {
    return "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 @DIR/rank.sh " + r0 + " & LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 " +
           "@DIR/rank.sh " + r1 + " & wait";
  };
  return {"/bin/bash", "-c", "bash -c \"$0\" & " + between + "; bash -c \"$1\"; wait", launch(a0, a1),
          launch(b, b)};
}

/// A #!/bin/sh rank (dash, which leaves by _exit): reports its CPUs, then with "wait" stays until a rank
/// started with "go" has (DIR/go; at most 10 s), with "kill" kills itself with SIGKILL.
const char kShRank[] =
    "#!/bin/sh\n"
    "@REPORT --out @OUT\n"
    "case $1 in\n"
    "  wait) i=0; while [ ! -e @DIR/go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done ;;\n"
    "  go) : > @DIR/go ;;\n"
    "  kill) kill -KILL $$ ;;\n"
    "esac\n";

}  // namespace
}  // namespace numabind::shim::test

using namespace numabind::shim::test;  // NOLINT: test file

// Each way a rank ends by itself writes its end line, once, with the status the rank asked for; SIGKILL
// writes none. Ranks of a bash launcher one after the other (fork and exec), then one binding itself and one
// a posix_spawn launcher bound.
Test(exit_wrappers, a_rank_writes_its_end_whichever_way_it_exits_by_itself, .timeout = 60) {
  const std::vector<std::string> ways = {"return",      "exit",         "_exit", "_Exit",
                                         "vfork-_exit", "thread-_exit", "kill"};
  std::string script;
  for (const std::string& how : ways)
    script += "LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 @EXIT_BY " + how + " 7; echo \"" + how + " $?\"; ";
  Ended e = RunEnded({"/bin/bash", "-c", script}, {});
  cr_assert_eq(e.bound.size(), ways.size(), "%s\n%s", e.log.c_str(), e.output.c_str());
  for (size_t i = 0; i < ways.size(); ++i) {
    bool killed = ways[i] == "kill";
    cr_expect(e.output.find(ways[i] + (killed ? " 137\n" : " 7\n")) != std::string::npos, "%s: %s",
              ways[i].c_str(), e.output.c_str());
    size_t ends = 0;
    for (const Report& end : e.ends) ends += end.Get("pid") == e.bound[i].Get("pid");
    cr_expect_eq(ends, killed ? 0u : 1u, "%s: %zu end lines:\n%s", ways[i].c_str(), ends, e.log.c_str());
  }
  cr_expect_eq(e.ends.size(), ways.size() - 1, "no other end line:\n%s", e.log.c_str());
  for (const char* how : {"_exit", "_Exit"}) {
    e = RunEnded({"@EXIT_BY", how, "5"}, {"LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1"});
    cr_expect_eq(e.run.exit_code, 5, "%s binding itself: %s", how, e.output.c_str());
    cr_expect_eq(e.bound.size(), 1u, "%s: %s", how, e.log.c_str());
    ExpectOneEndPerRank(e, how);
    e = RunEnded({BuildDir() + "/helpers/entry_launcher", "posix_spawn", "2", "@EXIT_BY", how, "0"}, {});
    cr_expect_eq(e.run.exit_code, 0, "%s by posix_spawn: %s", how, e.output.c_str());
    cr_expect_eq(e.bound.size(), 2u, "%s: %s", how, e.log.c_str());
    ExpectOneEndPerRank(e, how);
  }
}

// Only the rank writes its end: the commands it runs inherit its binding (each report shows the rank's
// CPU), not its end. A rank that binds itself (as srun's tasks), ranks bound between fork and exec and
// ranks a posix_spawn launcher bound, each running commands; report passes (exit 0).
Test(exit_wrappers, only_the_rank_writes_its_end_not_its_commands, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  std::string commands = "@REPORT --out @OUT; /bin/sh -c '@REPORT --out @OUT'; /bin/true; @EXIT_BY _exit 0";
  Ended e = RunEnded({"/bin/bash", "-c", commands + "; exit 0"}, {"LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1"});
  cr_assert_eq(e.run.exit_code, 0, "%s", e.output.c_str());
  cr_assert_eq(e.bound.size(), 1u, "%s", e.log.c_str());
  cr_expect_eq(e.bound[0].Get("entry"), "start-up", "%s", e.log.c_str());
  ExpectOneEndPerRank(e, "bound itself");
  cr_expect_eq(e.reports.size(), 2u, "%s", e.output.c_str());
  for (const Report& r : e.reports) cr_expect_eq(r.Get("cpus"), p.ForRank(0), "%s", r.line.c_str());
  cr_expect_eq(e.verdict.exit_code, 0, "%s", e.judged.c_str());
  for (const char* entry : {"execve", "posix_spawn"}) {
    e = RunEnded({BuildDir() + "/helpers/entry_launcher", entry, "2", "/bin/bash", "-c", commands}, {});
    cr_assert_eq(e.run.exit_code, 0, "%s: %s", entry, e.output.c_str());
    cr_assert_eq(e.bound.size(), 2u, "%s: %s", entry, e.log.c_str());
    ExpectOneEndPerRank(e, entry);
    cr_expect_eq(e.reports.size(), 4u, "%s: %s", entry, e.output.c_str());
    for (const Report& r : e.reports)
      cr_expect_eq(r.Get("cpus"), p.ForRank(std::stoi(r.Get("rank"))), "%s: %s", entry, r.line.c_str());
    cr_expect_eq(e.verdict.exit_code, 0, "%s: %s", entry, e.judged.c_str());
  }
}

// Two launches of #!/bin/sh ranks on the same CPUs, the first's ranks still running when the second's start
// (they wait for it): report flags each rank's overlap with the other launch's and exits 1. Before, dash's
// _exit wrote no end line and report took the launches as one after the other: exit 0.
Test(exit_wrappers, overlapping_sh_ranks_of_two_launches_are_flagged, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  Ended e = RunEnded(TwoLaunches("wait", "wait", "sleep 0.2", "go"), {}, kShRank);
  cr_assert_eq(e.run.exit_code, 0, "%s", e.output.c_str());
  cr_assert_eq(e.bound.size(), 4u, "%s", e.log.c_str());
  ExpectOneEndPerRank(e, "sh ranks");
  cr_expect_eq(e.reports.size(), 4u, "%s", e.output.c_str());
  for (const Report& r : e.reports)
    cr_expect_eq(r.Get("cpus"), p.ForRank(std::stoi(r.Get("rank"))), "%s", r.line.c_str());
  cr_expect_eq(e.verdict.exit_code, 1, "%s\nlog:\n%s", e.judged.c_str(), e.log.c_str());
  cr_expect_eq(Count(e.judged, ", at the same time) on cpus "), 4u, "%s", e.judged.c_str());
  cr_expect(e.judged.find("NOT as planned: 1 host, 4 ranks") != std::string::npos, "%s", e.judged.c_str());
}

// The same two launches one after the other: every rank's end is known, exit 0, no flag.
Test(exit_wrappers, sh_ranks_of_two_launches_one_after_the_other_pass, .timeout = 60) {
  Ended e = RunEnded(TwoLaunches("go", "go", "wait", "go"), {}, kShRank);
  cr_assert_eq(e.run.exit_code, 0, "%s", e.output.c_str());
  cr_assert_eq(e.bound.size(), 4u, "%s", e.log.c_str());
  ExpectOneEndPerRank(e, "sh ranks");
  cr_expect_eq(e.verdict.exit_code, 0, "%s\nlog:\n%s", e.judged.c_str(), e.log.c_str());
  cr_expect(e.judged.find("every rank bound as planned: 1 host, 4 ranks") != std::string::npos, "%s",
            e.judged.c_str());
}

// A rank killed by SIGKILL writes no end: a later launch on its CPU may have run beside it. report cannot
// rule that out, names the rank and exits 1; the other rank's end is known, and its CPU passes. Before,
// exit 0 with a warning.
Test(exit_wrappers, a_launch_after_a_rank_killed_by_sigkill_cannot_be_ruled_out, .timeout = 60) {
  Ended e = RunEnded(TwoLaunches("kill", "go", "wait", "go"), {}, kShRank);
  cr_assert_eq(e.run.exit_code, 0, "%s", e.output.c_str());
  cr_assert_eq(e.bound.size(), 4u, "%s", e.log.c_str());
  cr_expect_eq(e.ends.size(), 3u, "%s", e.log.c_str());
  cr_expect_eq(e.verdict.exit_code, 1, "%s\nlog:\n%s", e.judged.c_str(), e.log.c_str());
  std::string killed = e.bound[0].Get("rank") == "0" ? e.bound[0].Get("pid") : e.bound[1].Get("pid");
  cr_expect_eq(Count(e.judged, "cannot rule out an overlap with rank 0 (pid " + killed + ", launch "), 1u,
               "%s", e.judged.c_str());
  cr_expect_eq(Count(e.judged, "cannot rule out"), 1u, "%s", e.judged.c_str());
}
