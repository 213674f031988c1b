// The shim must be harmless where it does not act and honest where it cannot: inert without
// NUMABIND_POLICY, off with NUMABIND_DISABLE=1, one clear line for bad configuration (the rank still runs),
// strict mode refusing instead, and a rank's descriptors and environment exactly as without the shim.

#include <criterion/criterion.h>

#include <stdlib.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

using numabind::shim::test::BuildDir;
using numabind::shim::test::CpuPair;
using numabind::shim::test::LinesWith;
using numabind::shim::test::MakeTempDir;
using numabind::shim::test::ReadFile;
using numabind::shim::test::ReadReports;
using numabind::shim::test::RemoveTree;
using numabind::shim::test::Report;
using numabind::shim::test::Run;
using numabind::shim::test::RunResult;
using numabind::shim::test::Tail;
using numabind::shim::test::TwoAllowedCpus;

namespace {

struct Outcome {
  RunResult run;
  std::vector<Report> reports;
  std::string log;     // NUMABIND_LOG_FILE when set, else the combined output
  std::string output;  // stdout + stderr of the launcher
};

/// entry_launcher ENTRY NRANKS report --out FILE [report args], with `env` (no shim unless env has one).
Outcome Launch(const std::string& entry, int nranks, std::vector<std::string> env,
               const std::vector<std::string>& report_args = {}) {
  std::string dir = MakeTempDir("numabind-safety");
  std::string build = BuildDir();
  bool log_file = false;
  for (std::string& e : env) {
    if (e == "NUMABIND_LOG_FILE=@") {
      e = "NUMABIND_LOG_FILE=" + dir + "/log";
      log_file = true;
    }
  }
  std::vector<std::string> argv = {build + "/helpers/entry_launcher", entry,   std::to_string(nranks),
                                   build + "/helpers/report",         "--out", dir + "/reports"};
  argv.insert(argv.end(), report_args.begin(), report_args.end());
  Outcome o;
  o.run = Run(argv, env, dir + "/output", 60);
  o.reports = ReadReports(dir + "/reports");
  o.output = ReadFile(dir + "/output");
  o.log = log_file ? ReadFile(dir + "/log") : o.output;
  RemoveTree(dir);
  return o;
}

std::string Shim() { return "LD_PRELOAD=" + BuildDir() + "/libnumabind.so"; }

std::string Policy(const CpuPair& p) { return "NUMABIND_POLICY=" + p.policy; }

/// A CPU number this machine does not have: one past the highest possible CPU.
int MissingCpu() {
  std::string possible = ReadFile("/sys/devices/system/cpu/possible");
  size_t at = possible.find_last_of("-,");
  return atoi(possible.c_str() + (at == std::string::npos ? 0 : at + 1)) + 1;
}

}  // namespace

Test(safety, inert_without_policy) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("execve", 2, {Shim(), "NUMABIND_LOG=debug", "NUMABIND_LOG_FILE=@"});
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  cr_assert_eq(o.reports.size(), 2u);
  for (const Report& r : o.reports)
    cr_expect_eq(r.Get("cpus"), p.all, "inert shim bound rank %s", r.Get("rank").c_str());
  cr_expect_eq(o.log, "", "inert shim wrote: %s", o.log.c_str());
}

Test(safety, disable_turns_it_off) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("execve", 2,
                     {Shim(), Policy(p), "NUMABIND_DISABLE=1", "NUMABIND_LOG=info", "NUMABIND_LOG_FILE=@"});
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  cr_assert_eq(o.reports.size(), 2u, "%s", Tail(o.output).c_str());
  for (const Report& r : o.reports) cr_expect_eq(r.Get("cpus"), p.all);
  cr_expect_eq(o.log, "", "disabled shim wrote: %s", o.log.c_str());
}

Test(safety, bad_config_one_line_and_runs_unbound) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("execve", 2, {Shim(), Policy(p), "NUMABIND_MEMORY=fast"});
  cr_assert_eq(o.run.exit_code, 0, "bad config must not stop the ranks: %s", Tail(o.output).c_str());
  cr_assert_eq(o.reports.size(), 2u);
  for (const Report& r : o.reports) cr_expect_eq(r.Get("cpus"), p.all);
  std::vector<std::string> lines = LinesWith(o.output, "NUMABIND_MEMORY=fast");
  // A mistake both ranks share: one line for the launch (issue 26), naming the variable.
  cr_expect_eq(lines.size(), 1u, "one line naming the variable; output:\n%s", o.output.c_str());
  cr_expect_eq(LinesWith(o.output, "numabind:").size(), 1u, "output:\n%s", o.output.c_str());
}

Test(safety, strict_refuses_the_spawn) {
  Outcome o =
      Launch("execve", 2, {Shim(), Policy(TwoAllowedCpus()), "NUMABIND_MEMORY=fast", "NUMABIND_STRICT=1"});
  cr_expect_neq(o.run.exit_code, 0, "strict mode ran an unbindable rank");
  cr_expect_eq(o.reports.size(), 0u, "a refused rank ran: %zu reports", o.reports.size());
  cr_expect_eq(LinesWith(o.output, "not started").size(), 1u, "said once for both; output:\n%s",
               o.output.c_str());
}

Test(safety, strict_refuses_posix_spawn_with_errno) {
  Outcome o = Launch("posix_spawn", 1,
                     {Shim(), Policy(TwoAllowedCpus()), "NUMABIND_MEMORY=fast", "NUMABIND_STRICT=1"});
  cr_expect_neq(o.run.exit_code, 0);
  cr_expect_eq(o.reports.size(), 0u);
  cr_expect_eq(LinesWith(o.output, "posix_spawn: Invalid argument").size(), 1u, "output:\n%s",
               o.output.c_str());
}

Test(safety, plan_error_names_rank_and_policy) {
  // Rank 1 of the map "cpus:B|M" asks for a CPU M this machine does not have.
  CpuPair p = TwoAllowedCpus();
  std::string policy = "cpus:" + p.second + "|" + std::to_string(MissingCpu());
  Outcome o = Launch("execve", 2, {Shim(), "NUMABIND_POLICY=" + policy});
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  std::vector<std::string> lines = LinesWith(o.output, "rank 1");
  cr_expect_eq(lines.size(), 1u, "output:\n%s", o.output.c_str());
  cr_expect(o.output.find(policy) != std::string::npos, "policy not named:\n%s", o.output.c_str());
  cr_assert_eq(o.reports.size(), 2u, "output:\n%s", o.output.c_str());
  for (const Report& r : o.reports) {
    cr_expect_eq(r.Get("cpus"), r.Get("rank") == "0" ? p.second : p.all, "rank %s on %s",
                 r.Get("rank").c_str(), r.Get("cpus").c_str());
  }
}

Test(safety, descriptors_and_environment_unchanged) {
  // Only NUMABIND_BOUND is added: the variable the rank was bound by, and its proof (its CPUs, who bound it,
  // and whether that was its launcher, which spawned it bound).
  std::vector<std::string> args = {"--env-skip", "LD_PRELOAD",     "--env-skip", "NUMABIND_POLICY",
                                   "--env-skip", "NUMABIND_LOG",   "--env-skip", "NUMABIND_LOG_FILE",
                                   "--env-skip", "NUMABIND_BOUND", "--env",      "NUMABIND_BOUND"};
  for (const char* entry : {"execve", "posix_spawn", "vfork-execve"}) {
    Outcome with = Launch(
        entry, 2, {Shim(), Policy(TwoAllowedCpus()), "NUMABIND_LOG=info", "NUMABIND_LOG_FILE=@"}, args);
    Outcome without = Launch(entry, 2, {}, args);
    cr_assert_eq(with.reports.size(), 2u, "%s: %s", entry, Tail(with.output).c_str());
    cr_assert_eq(without.reports.size(), 2u, "%s: %s", entry, Tail(without.output).c_str());
    for (size_t i = 0; i < 2; ++i) {
      cr_expect_eq(with.reports[i].Get("fd_list"), without.reports[i].Get("fd_list"),
                   "%s: descriptors differ", entry);
      cr_expect_eq(with.reports[i].Get("env_hash"), without.reports[i].Get("env_hash"),
                   "%s: environment differs", entry);
      cr_expect_eq(with.reports[i].Get("env_count"), without.reports[i].Get("env_count"), "%s", entry);
      const Report& r = with.reports[i];
      std::string cpu = TwoAllowedCpus().ForRank(std::stoi(r.Get("rank")));
      std::string mark = "\"NUMABIND_BOUND\":\"LOCAL_RANK=" + r.Get("rank") + " cpus=" + cpu + " by=";
      // By the rank itself between fork and exec; by its launcher, its parent, which spawned it bound.
      std::string by = std::string(entry) == "posix_spawn" ? r.Get("ppid") + " spawned" : r.Get("pid");
      cr_expect(r.Get("env").find(mark + by + "\"") != std::string::npos, "%s: %s", entry, r.line.c_str());
    }
    cr_expect_eq(LinesWith(with.log, "bound rank").size(), 2u, "%s: the shim did not act:\n%s", entry,
                 with.log.c_str());
  }
}

Test(safety, debug_log_has_the_spawning_stack) {
  Outcome o =
      Launch("execve", 1, {Shim(), Policy(TwoAllowedCpus()), "NUMABIND_LOG=debug", "NUMABIND_LOG_FILE=@"});
  cr_assert_eq(o.run.exit_code, 0);
  cr_expect_eq(LinesWith(o.log, "bound rank").size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect(o.log.find("  #0 ") != std::string::npos, "no call stack in the debug log:\n%s", o.log.c_str());
  cr_expect(o.log.find("main (") != std::string::npos || o.log.find("entry_launcher") != std::string::npos,
            "the stack does not reach the launcher:\n%s", o.log.c_str());
}
