// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every rank line names its launch (shim/launcher/launch_id.h): the launcher's pid and start time (field 22
// of /proc/PID/stat), after the scheduler's step when there is one. A launcher (helpers/entry_launcher)
// names itself, on lines written between fork and exec and after posix_spawn alike; two launches one after
// the other have two names; a rank binding itself at start-up names its parent (here the test runner, whose
// start time this test reads); Slurm's step goes first. Ranks are helpers/report, run with LD_PRELOAD.

#include <criterion/criterion.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

/// Field 22 of /proc/PID/stat (clock ticks since boot), or "" when it cannot be read.
std::string StartTicks(pid_t pid) {
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  size_t at = stat.rfind(')');
  if (at == std::string::npos) return "";
  at += 1;
  for (int field = 2; field < 22; ++field) {
    at = stat.find(' ', at);
    if (at == std::string::npos) return "";
    ++at;
  }
  return stat.substr(at, stat.find(' ', at) - at);
}

/// The JSON log lines of rank events ("bound", "unbound", ...) a run wrote to DIR/log.
struct Logged {
  std::vector<Report> lines;
  std::vector<Report> ends;  ///< the "end" lines of bound ranks that exited
  std::vector<Report> reports;
  std::string log;
  RunResult run;
  std::string output;  ///< the run's standard output and error
};

Logged RunLogged(const std::vector<std::string>& argv, const std::vector<std::string>& vars,
                 bool json = true) {
  std::string dir = MakeTempDir("numabind-launch");
  std::string build = BuildDir();
  CpuPair cpus = TwoAllowedCpus();
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so",
                                  "NUMABIND_LOG_FILE=" + dir + "/log", "NUMABIND_POLICY=" + cpus.policy,
                                  "NUMABIND_LOG=info"};
  if (json) env.push_back("NUMABIND_LOG_FORMAT=json");
  env.insert(env.end(), vars.begin(), vars.end());
  std::vector<std::string> args;
  for (const std::string& a : argv)
    args.push_back(a == "@REPORT" ? build + "/helpers/report" : a == "@OUT" ? dir + "/reports" : a);
  Logged out;
  out.run = Run(args, env, dir + "/output", 60);
  out.log = ReadFile(dir + "/log");
  out.output = ReadFile(dir + "/output");
  for (const Report& r : ReadReports(dir + "/log")) {
    if (r.Get("event") == "end")  // a bound rank's exit: the launch its line named
      out.ends.push_back(r);
    else if (!r.Get("event").empty())
      out.lines.push_back(r);
  }
  out.reports = ReadReports(dir + "/reports");
  RemoveTree(dir);
  return out;
}

Logged Launcher(const std::string& entry, const std::vector<std::string>& vars = {}) {
  return RunLogged({BuildDir() + "/helpers/entry_launcher", entry, "2", "@REPORT", "--out", "@OUT"}, vars);
}

}  // namespace

Test(launch_id, a_launcher_names_itself_on_each_rank_line) {
  for (const char* entry : {"execve", "vfork-execve", "posix_spawn"}) {
    Logged l = Launcher(entry);
    cr_assert_eq(l.run.exit_code, 0, "%s: %s", entry, Tail(l.output).c_str());
    cr_assert_eq(l.lines.size(), 2u, "%s: %s", entry, l.log.c_str());
    cr_assert_eq(l.reports.size(), 2u, "%s: %s", entry, l.log.c_str());
    std::string launch = l.lines[0].Get("launch");
    std::smatch m;
    cr_assert(std::regex_match(launch, m, std::regex("([0-9]+)@([0-9]+)")), "%s: %s", entry, l.log.c_str());
    cr_expect_eq(l.lines[1].Get("launch"), launch, "%s: %s", entry, l.log.c_str());
    // Each rank says when it exits, naming the same launch: one bound between fork and exec (its proof
    // names itself) and one a posix_spawn launcher bound from outside (its proof names its parent).
    cr_expect_eq(l.ends.size(), 2u, "%s: %s", entry, l.log.c_str());
    for (const Report& e : l.ends) cr_expect_eq(e.Get("launch"), launch, "%s: %s", entry, l.log.c_str());
    // The launcher is the ranks' parent; it started after this test did, and before now.
    cr_expect_eq(m[1].str(), l.reports[0].Get("ppid"), "%s: %s", entry, l.log.c_str());
    unsigned long long start = std::stoull(m[2].str());
    unsigned long long self = std::stoull(StartTicks(getpid()));
    double uptime = std::stod(ReadFile("/proc/uptime"));
    cr_expect(start >= self && start <= static_cast<unsigned long long>(uptime * sysconf(_SC_CLK_TCK)) + 1,
              "%s: start %llu, test %llu, uptime %f", entry, start, self, uptime);
  }
}

Test(launch_id, two_launches_one_after_the_other_have_two_names) {
  Logged a = Launcher("posix_spawn"), b = Launcher("posix_spawn");
  cr_assert_eq(a.lines.size(), 2u, "%s", a.log.c_str());
  cr_assert_eq(b.lines.size(), 2u, "%s", b.log.c_str());
  cr_expect_neq(a.lines[0].Get("launch"), b.lines[0].Get("launch"), "%s%s", a.log.c_str(), b.log.c_str());
}

Test(launch_id, a_rank_binding_itself_names_its_parent) {
  // Started by this test runner as LOCAL_RANK=0 (as slurmstepd or torchrun starts one): the runner is the
  // launcher, and its start time is exact.
  std::string self = std::to_string(getpid()) + "@" + StartTicks(getpid());
  Logged l = RunLogged({"@REPORT", "--out", "@OUT"}, {"LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1"});
  cr_assert_eq(l.lines.size(), 1u, "%s %s", l.log.c_str(), l.output.c_str());
  cr_expect_eq(l.lines[0].Get("event"), "bound", "%s", l.log.c_str());
  cr_expect_eq(l.lines[0].Get("launch"), self, "%s", l.log.c_str());
  // A Slurm step's task: the step first, so that a step is one launch across hosts.
  l = RunLogged({"@REPORT", "--out", "@OUT"}, {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3", "SLURM_LOCALID=0",
                                               "SLURM_NTASKS_PER_NODE=1", "NUMABIND_RANK_VAR=SLURM_LOCALID"});
  cr_assert_eq(l.lines.size(), 1u, "%s %s", l.log.c_str(), l.output.c_str());
  cr_expect_eq(l.lines[0].Get("launch"), "slurm:77.3/" + self, "%s", l.log.c_str());
}

Test(launch_id, unbound_ranks_and_text_lines_name_their_launch_too) {
  Logged l = Launcher("posix_spawn", {"NUMABIND_MEMORY=fast"});
  cr_assert_eq(l.lines.size(), 2u, "%s", l.log.c_str());
  cr_expect_eq(l.lines[0].Get("event"), "unbound", "%s", l.log.c_str());
  cr_expect(std::regex_match(l.lines[0].Get("launch"), std::regex("[0-9]+@[0-9]+")), "%s", l.log.c_str());
  l = RunLogged({BuildDir() + "/helpers/entry_launcher", "execve", "2", "@REPORT", "--out", "@OUT"},
                {"FLUX_JOB_ID=f2Xh"}, false);
  cr_expect_eq(LinesWith(l.log, "bound rank").size(), 2u, "%s", l.log.c_str());
  cr_expect_eq(LinesWith(l.log, " launch=flux:f2Xh/").size(), 2u, "%s", l.log.c_str());
}

}  // namespace numabind::shim::test
