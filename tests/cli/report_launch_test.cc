// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report` judges each launch of a job on its own (the launch=PID@START or STEP/PID@START on every
// rank line, shim/launcher/launch_id.h). Real logs: two launches of Open MPI's mpirun and of
// helpers/entry_launcher one after the other into one file (exit 0, two launches shown), two bash
// launchers whose ranks start interleaved on the same CPUs (flagged as running at the same time); then
// two launches one after the other, and one started while the other's ranks ran, told apart by the ranks'
// end lines; hand-written lines: --launch and --last, lines of a library without launches (one launch
// "unknown"), and a line the library cut short (its rank unknown, exit 1).

#include <sched.h>
#include <sys/stat.h>

#include "tests/cli/cli_util.h"

using numabind::test::BuildDir;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;
using numabind::test::TempDir;
using numabind::test::TwoCpuPolicy;
using numabind::test::WriteAll;

TestSuite(report_launch, .fini = numabind::test::RemoveTempDirs);

namespace {

/// The environment of a launcher preloaded with the library, logging every rank in JSON to `log`.
std::vector<std::string> Preloaded(const std::string& log) {
  std::string dir = log.substr(0, log.rfind('/'));
  mkdir((dir + "/shared").c_str(), 0755);
  return {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
          "NUMABIND_POLICY=" + TwoCpuPolicy(),
          "NUMABIND_LOG_FORMAT=json",
          "NUMABIND_LOG_FILE=" + log,
          "NUMABIND_SHARED=" + dir + "/shared",
          "OMPI_ALLOW_RUN_AS_ROOT=1",
          "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
          "SLURM_JOB_ID",
          "SLURM_STEP_ID",
          "FLUX_JOB_ID",
          "PBS_JOBID"};
}

/// How many times `what` occurs in `text`.
int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// A rank line of launch `launch` ("" for none) at `time` (seconds past 10:00:00).
std::string Line(const std::string& host, int rank, const std::string& cpus, const std::string& launch,
                 int time, const std::string& event = "bound") {
  std::string t = std::to_string(10 + time % 50);
  std::string line = "{\"time\":\"2026-12-03T10:00:" + t + ".000Z\",\"host\":\"" + host +
                     "\",\"pid\":" + std::to_string(100 + rank + time * 10) +
                     ",\"level\":\"info\",\"event\":\"" + event + "\",\"rank\":" + std::to_string(rank) +
                     ",\"nranks\":2,\"rank_var\":\"SLURM_LOCALID\",\"command\":\"./app\"";
  if (!launch.empty()) line += ",\"launch\":\"" + launch + "\"";
  if (event == "bound")
    line +=
        ",\"cpus\":\"" + cpus +
        "\",\"nodes\":\"0\",\"memory\":\"local\",\"device\":null,\"entry\":\"start-up\",\"replaced\":false,"
        "\"policy\":\"exclusive\"";
  else
    line += ",\"message\":\"rank " + std::to_string(rank) + " (SLURM_LOCALID) ./app runs unbound: EINVAL\"";
  return line + "}\n";
}

/// The end line the rank Line(host, rank, ..., launch, time) writes when it exits at `end` (seconds past
/// 10:00:00).
std::string End(const std::string& host, int rank, const std::string& launch, int time, int end) {
  return "{\"time\":\"2026-12-03T10:00:" + std::to_string(10 + end % 50) + ".000Z\",\"host\":\"" + host +
         "\",\"pid\":" + std::to_string(100 + rank + time * 10) +
         ",\"level\":\"info\",\"event\":\"end\",\"launch\":\"" + launch + "\"}\n";
}

}  // namespace

Test(report_launch, two_mpirun_launches_one_after_the_other_exit_0, .timeout = 120) {
  std::string dir = TempDir(), log = dir + "/job.log";
  for (int i = 0; i < 2; ++i) {
    Result r = RunProgram({"mpirun", "-np", "2", "--oversubscribe", "/bin/true"}, Preloaded(log));
    cr_assert_eq(r.status, 0, "mpirun: %s%s", r.out.c_str(), r.err.c_str());
  }
  Result r = Run({"report", log});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find(": 4 ranks in 2 launches") != std::string::npos, "%s", r.out.c_str());
  cr_expect_eq(Count(r.out, ": 2 ranks, lines "), 2, "%s", r.out.c_str());
  // Sequential launches on the same CPUs: not flagged; the ranks' end lines show that the first had ended.
  cr_expect(r.out.find("taken as one after the other") == std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("every rank bound as planned: 1 host, 4 ranks") != std::string::npos, "%s",
            r.out.c_str());
}

Test(report_launch, two_launcher_runs_into_one_log_exit_0_and_last_picks_one, .timeout = 60) {
  std::string dir = TempDir(), log = dir + "/job.log";
  for (int i = 0; i < 2; ++i) {
    Result r =
        RunProgram({BuildDir() + "/helpers/entry_launcher", "posix_spawn", "2", "/bin/true"}, Preloaded(log));
    cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  }
  Result r = Run({"report", "--json", log});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(Count(r.out, "\"launch\":"), 2 + 4, "two launches, four ranks: %s", r.out.c_str());
  r = Run({"report", "--last", log});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find(": 2 ranks in 1 launch\n") != std::string::npos, "%s", r.out.c_str());
}

Test(report_launch, launches_at_the_same_time_on_the_same_cpus_are_flagged, .timeout = 60) {
  // Two bash launchers: A starts rank 0, then rank 1 half a second later; B starts both ranks in between.
  // Their rank lines interleave: they ran at the same time, and each rank 0 has the other's CPU.
  std::string dir = TempDir(), log = dir + "/job.log";
  std::string a =
      "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 /bin/sleep 1 & sleep 0.6; LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 /bin/true & "
      "wait";
  std::string b =
      "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 /bin/true & LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 /bin/true & wait";
  Result r =
      RunProgram({"/bin/sh", "-c", "bash -c \"$0\" & sleep 0.3; bash -c \"$1\"; wait", a, b}, Preloaded(log));
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  r = Run({"report", log});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find(": 4 ranks in 2 launches") != std::string::npos, "%s", r.out.c_str());
  cr_expect_eq(Count(r.out, ", at the same time) on cpus "), 4, "both rank 0 and both rank 1: %s",
               r.out.c_str());
}

Test(report_launch, a_launch_started_while_an_earlier_ranks_run_is_flagged_by_their_end_lines,
     .timeout = 60) {
  // A's two ranks start at once and run for a second; B's start half a second later, after all of A's had
  // started: only A's end lines (written at exit) tell that B ran while A's ranks were still running.
  std::string dir = TempDir(), log = dir + "/job.log";
  std::string a =
      "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 /bin/sleep 1 & LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 /bin/sleep 1 & "
      "wait";
  std::string b =
      "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 /bin/true & LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 /bin/true & wait";
  Result r =
      RunProgram({"/bin/sh", "-c", "bash -c \"$0\" & sleep 0.5; bash -c \"$1\"; wait", a, b}, Preloaded(log));
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::string lines = numabind::test::ReadAll(log);
  cr_expect_eq(Count(lines, "\"event\":\"end\""), 4, "each rank's end: %s", lines.c_str());
  r = Run({"report", log});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find(": 4 ranks in 2 launches") != std::string::npos, "%s", r.out.c_str());
  cr_expect_eq(Count(r.out, ", at the same time) on cpus "), 4, "%s", r.out.c_str());
}

Test(report_launch, launches_one_after_the_other_by_their_end_lines_pass_without_a_note, .timeout = 60) {
  std::string dir = TempDir(), log = dir + "/job.log";
  for (int i = 0; i < 2; ++i) {
    Result r =
        RunProgram({BuildDir() + "/helpers/entry_launcher", "execve", "2", "/bin/true"}, Preloaded(log));
    cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  }
  Result r = Run({"report", log});
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("taken as one after the other") == std::string::npos, "ended before: %s",
            r.out.c_str());
}

Test(report_launch, launch_and_last_select_one_launch) {
  // Two Slurm steps on two hosts; the second step's rank 1 ran unbound on n2.
  std::string s1 = "slurm:77.1/", s2 = "slurm:77.2/", dir = TempDir();
  WriteAll(dir + "/n1.log", Line("n1", 0, "0-3", s1 + "10@100", 1) + Line("n1", 1, "4-7", s1 + "10@100", 1) +
                                Line("n1", 0, "0-3", s2 + "12@300", 5) +
                                Line("n1", 1, "4-7", s2 + "12@300", 5));
  WriteAll(dir + "/n2.log", Line("n2", 0, "0-3", s1 + "20@200", 1) + Line("n2", 1, "4-7", s1 + "20@200", 1) +
                                Line("n2", 0, "0-3", s2 + "21@400", 5) +
                                Line("n2", 1, "", s2 + "21@400", 5, "unbound"));
  Result r = Run({"report", dir});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  r = Run({"report", "--launch", "slurm:77.1", "--nodes", "2", dir});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(Count(r.out, "in 1 launch\n  launch slurm:77.1/"), 2, "%s", r.out.c_str());
  cr_expect(r.out.find("77.2") == std::string::npos, "%s", r.out.c_str());
  r = Run({"report", "--launch", "slurm:77.2", dir});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("launch slurm:77.2/21@400: 2 ranks") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("ran unbound: rank 1 (SLURM_LOCALID)") != std::string::npos, "%s", r.out.c_str());
  r = Run({"report", "--last", dir});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("77.1") == std::string::npos, "%s", r.out.c_str());
  // One host's launch by its launcher alone.
  r = Run({"report", "--launch", "10@100", dir});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("every rank bound as planned: 1 host, 2 ranks") != std::string::npos, "%s",
            r.out.c_str());
  r = Run({"report", "--launch", "slurm:77.9", dir});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("no rank line of launch slurm:77.9") != std::string::npos, "%s", r.out.c_str());
  cr_expect_eq(Run({"report", "--launch", "slurm:77.1", "--last", dir}).status, 2);
}

Test(report_launch, lines_without_a_launch_are_one_launch_unknown) {
  std::string dir = TempDir();
  WriteAll(dir + "/n1.log", Line("n1", 0, "0-3", "", 1) + Line("n1", 1, "0-3", "", 2));
  Result r = Run({"report", dir});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("in 1 launch\n  launch unknown: 2 ranks") != std::string::npos, "%s", r.out.c_str());
  cr_expect_eq(Count(r.out, "overlaps rank "), 2, "%s", r.out.c_str());
}

Test(report_launch, a_line_cut_short_is_an_unknown_rank_and_exits_1) {
  // The library leaves out a list that does not fit whole and says "truncated":true: on its own the line
  // reads as a rank on no CPUs, which overlaps nothing.
  std::string cut = Line("n1", 1, "0-3", "7@70", 1);
  cut.replace(cut.find(",\"cpus\":\"0-3\""), 13, "");
  cut.replace(cut.rfind('}'), 1, ",\"truncated\":true}");
  std::string dir = TempDir();
  WriteAll(dir + "/n1.log", Line("n1", 0, "0-3", "7@70", 1) + cut);
  Result r = Run({"report", dir});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("unknown: its log line was cut short") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("  unknown  ") != std::string::npos, "applied: unknown: %s", r.out.c_str());
  r = Run({"report", "--json", dir});
  cr_expect_eq(Count(r.out, "\"cut\":true"), 1, "%s", r.out.c_str());
}

Test(report_launch, draw_marks_cpus_shared_at_the_same_time_only) {
  // Launch B on launch A's CPUs: after A (no '!'), then while A was still starting ranks ('!').
  std::string after = TempDir(), during = TempDir();
  WriteAll(after + "/n1.log", Line("n1", 0, "0-3", "1@10", 1) + Line("n1", 1, "4-7", "1@10", 1) +
                                  End("n1", 0, "1@10", 1, 3) + End("n1", 1, "1@10", 1, 3) +
                                  Line("n1", 0, "0-3", "2@20", 5) + Line("n1", 1, "4-7", "2@20", 5));
  WriteAll(during + "/n1.log", Line("n1", 0, "0-3", "1@10", 1) + Line("n1", 0, "0-3", "2@20", 5) +
                                   Line("n1", 1, "4-7", "2@20", 5) + Line("n1", 1, "4-7", "1@10", 6));
  Result r = Run({"report", "--draw", after});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(Count(r.out, "  rank 0    ####....\n"), 2, "%s", r.out.c_str());
  cr_expect_eq(Count(r.out, "  rank 1    ....####\n"), 2, "%s", r.out.c_str());
  r = Run({"report", "--draw", during});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(Count(r.out, "  rank 0    !!!!....  <- overlaps rank 0"), 2, "%s", r.out.c_str());
  cr_expect_eq(Count(r.out, "  launch "), 2, "%s", r.out.c_str());
}

// A rank's end is known only from its end line. When a launch's rank wrote none (a signal ended it, or a
// library that wrote no end at _exit), a later launch on its CPUs may have run beside it: exit 1, "cannot
// rule out an overlap", naming the rank. Before, such launches were taken as one after the other: exit 0
// with a warning.
Test(report_launch, a_later_launch_on_the_cpus_of_a_rank_whose_end_is_unknown_exits_1) {
  std::string dir = TempDir();
  std::string a = Line("n1", 0, "0-3", "1@10", 1) + Line("n1", 1, "4-7", "1@10", 1);
  std::string b = Line("n1", 0, "0-3", "2@20", 5) + Line("n1", 1, "4-7", "2@20", 5);
  // Rank 0 of A wrote its end before B started, rank 1 none.
  WriteAll(dir + "/n1.log", a + End("n1", 0, "1@10", 1, 3) + b);
  Result r = Run({"report", dir});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(Count(r.out, "cannot rule out an overlap with rank "), 1, "%s", r.out.c_str());
  cr_expect(
      r.out.find("cannot rule out an overlap with rank 1 (pid 111, launch 1@10) on cpus 4-7: its end is "
                 "unknown") != std::string::npos,
      "%s", r.out.c_str());
  cr_expect(r.out.find("NOT as planned: 1 host, 4 ranks") != std::string::npos, "%s", r.out.c_str());
  r = Run({"report", "--json", dir});
  cr_expect_eq(r.status, 1, "%s", r.out.c_str());
  cr_expect(r.out.rfind("{\"ok\":false,", 0) == 0, "%s", r.out.c_str());
  // Both ends known, before B: one after the other, exit 0.
  WriteAll(dir + "/n1.log", a + End("n1", 0, "1@10", 1, 3) + End("n1", 1, "1@10", 1, 4) + b);
  r = Run({"report", dir});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  // Rank 0's end known and after B's start, rank 1's unknown: A ran until rank 0 ended, so B ran beside A.
  WriteAll(dir + "/n1.log", a + b + End("n1", 0, "1@10", 1, 6));
  r = Run({"report", dir});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(Count(r.out, ", at the same time) on cpus "), 4, "%s", r.out.c_str());
  // A launch between, on other CPUs, changes nothing: C on A's CPUs is judged against A's unknown end.
  std::string mid = Line("n1", 0, "8-11", "3@30", 3) + End("n1", 0, "3@30", 3, 4);
  std::string c = Line("n1", 0, "0-3", "4@40", 5) + Line("n1", 1, "12-15", "4@40", 5);
  WriteAll(dir + "/n1.log", a + End("n1", 1, "1@10", 1, 2) + mid + c);
  r = Run({"report", dir});
  cr_expect_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("cannot rule out an overlap with rank 0 (pid 110, launch 1@10) on cpus 0-3") !=
                std::string::npos,
            "%s", r.out.c_str());
  cr_expect_eq(Count(r.out, "cannot rule out"), 1, "%s", r.out.c_str());
  // Ranks of one domain under node share it by plan, in a later launch too.
  std::string node = TempDir();
  std::string n0 = Line("n1", 0, "0-7", "1@10", 1) + Line("n1", 1, "0-7", "1@10", 1);
  std::string n1 = Line("n1", 0, "0-7", "2@20", 5) + Line("n1", 1, "0-7", "2@20", 5);
  for (std::string* l : {&n0, &n1})
    for (size_t at; (at = l->find("\"exclusive\"")) != std::string::npos;) l->replace(at, 11, "\"node\"");
  WriteAll(node + "/n1.log", n0 + n1);
  r = Run({"report", node});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
}

// Three launches that ran together are one group: A's lines span B's and C's, though B ended before C
// started. C's rank on A's CPUs overlaps it; judging the group by its last launch alone (B) would take C as
// a launch after it, and pass.
Test(report_launch, three_launches_that_ran_together_are_judged_together) {
  std::string dir = TempDir();
  WriteAll(dir + "/n1.log", Line("n1", 0, "0-3", "1@10", 1) + Line("n1", 0, "8-11", "2@20", 2) +
                                Line("n1", 1, "12-15", "2@20", 3) + End("n1", 0, "2@20", 2, 3) +
                                End("n1", 1, "2@20", 3, 3) + Line("n1", 0, "0-3", "3@30", 5) +
                                End("n1", 0, "3@30", 5, 6) + Line("n1", 1, "4-7", "1@10", 9) +
                                End("n1", 0, "1@10", 1, 9) + End("n1", 1, "1@10", 9, 9));
  Result r = Run({"report", dir});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find(": 5 ranks in 3 launches") != std::string::npos, "%s", r.out.c_str());
  cr_expect(r.out.find("overlaps rank 0 (pid 150, launch 3@30, at the same time) on cpus 0-3") !=
                std::string::npos,
            "%s", r.out.c_str());
  cr_expect(r.out.find("overlaps rank 0 (pid 110, launch 1@10, at the same time) on cpus 0-3") !=
                std::string::npos,
            "%s", r.out.c_str());
  r = Run({"report", "--json", dir});
  cr_expect_eq(Count(r.out, "\"group\":0}"), 3, "one group: %s", r.out.c_str());
}

// A rank a posix_spawn launcher starts may exit, and write its end, before its launcher writes the line that
// bound it: the end still counts (the reader kept it until the rank's line came; a race that made a launch
// after it "cannot rule out an overlap" in about one run in ten under load).
Test(report_launch, an_end_line_before_its_ranks_line_still_ends_it) {
  std::string dir = TempDir();
  std::string a = End("n1", 0, "1@10", 1, 2) + Line("n1", 0, "0-3", "1@10", 1) +
                  Line("n1", 1, "4-7", "1@10", 1) + End("n1", 1, "1@10", 1, 2);
  std::string b = Line("n1", 0, "0-3", "2@20", 5) + Line("n1", 1, "4-7", "2@20", 5);
  WriteAll(dir + "/n1.log", a + b);
  Result r = Run({"report", dir});
  cr_expect_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect_eq(Count(r.out, "cannot rule out"), 0, "%s", r.out.c_str());
}
