// NUMABIND_EXPORT in real launches: an OpenMP program (helpers/omp_report, built with -fopenmp) started as
// two ranks by a bash loop or by one entry point of helpers/entry_launcher, with the shim preloaded into the
// launcher, reports the OpenMP variables it got, its team size and where each of its threads may run. The
// plans are maps over the first two CPUs this process may use: "cpus:B|A" (one CPU per rank, the reverse of
// any default) and "cpus:A,B|A,B" (two CPUs each, so a team of two must be spread one thread per CPU).

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

using Outcome = PreloadedRun;

/// Runs `launcher` (argv before the program) starting omp_report with the shim preloaded and `vars`
/// (launch_util.h's RunPreloaded).
Outcome Launch(std::vector<std::string> launcher, const std::vector<std::string>& vars) {
  launcher.insert(launcher.end(), {BuildDir() + "/helpers/omp_report", "--out", "@OUT"});
  Outcome o = RunPreloaded(std::move(launcher), vars, "numabind-exports");
  cr_assert_eq(o.run.exit_code, 0, "launcher exited %d\n%s\nlog:\n%s", o.run.exit_code,
               Tail(o.output).c_str(), o.log.c_str());
  cr_assert_eq(o.reports.size(), 2u, "%zu reports\n%s\nlog:\n%s", o.reports.size(), Tail(o.output).c_str(),
               o.log.c_str());
  return o;
}

std::vector<std::string> BashLoop() { return {"bash", RepoDir() + "/tests/shim/scripts/bash_loop.sh", "2"}; }

std::vector<std::string> Entry(const std::string& entry) {
  return {BuildDir() + "/helpers/entry_launcher", entry, "2"};
}

/// One CPU per rank: OMP_NUM_THREADS=1, OMP_PLACES={cpu}, a team of one on that CPU.
void ExpectOneCpuEach(const std::vector<std::string>& launcher, const std::string& what) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch(launcher, {"NUMABIND_POLICY=" + p.policy, "NUMABIND_EXPORT=omp"});
  for (const Report& r : o.reports) {
    std::string cpu = p.ForRank(std::stoi(r.Get("rank")));
    cr_expect_eq(EnvOf(r, "OMP_NUM_THREADS"), "\"1\"", "%s: %s", what.c_str(), r.line.c_str());
    cr_expect_eq(EnvOf(r, "OMP_PLACES"), "\"{" + cpu + "}\"", "%s: %s", what.c_str(), r.line.c_str());
    cr_expect_eq(EnvOf(r, "OMP_PROC_BIND"), "\"close\"", "%s: %s", what.c_str(), r.line.c_str());
    cr_expect_eq(r.Get("threads"), "1", "%s: %s", what.c_str(), r.line.c_str());
    cr_expect_eq(r.Get("thread_cpus"), cpu, "%s: %s", what.c_str(), r.line.c_str());
    // Then the proof (shim/child/bound_marker.h): its CPUs, and the rank (exec) or its launcher (a spawn) by
    // pid.
    std::string mark = "\"LOCAL_RANK=" + r.Get("rank") + " cpus=" + cpu + " by=";
    cr_expect_eq(EnvOf(r, "NUMABIND_BOUND").rfind(mark, 0), 0u, "%s", r.line.c_str());
  }
}

}  // namespace

Test(exports, omp_bash_loop, .timeout = 60) { ExpectOneCpuEach(BashLoop(), "bash loop"); }
Test(exports, omp_fork_execve, .timeout = 60) { ExpectOneCpuEach(Entry("execve"), "execve"); }
Test(exports, omp_vfork_execve, .timeout = 60) { ExpectOneCpuEach(Entry("vfork-execve"), "vfork"); }
Test(exports, omp_posix_spawn, .timeout = 60) { ExpectOneCpuEach(Entry("posix_spawn"), "posix_spawn"); }
Test(exports, omp_system, .timeout = 60) { ExpectOneCpuEach(Entry("system"), "system"); }
Test(exports, omp_threads_vfork, .timeout = 60) { ExpectOneCpuEach(Entry("threads-vfork"), "threads"); }

// Two CPUs per rank: a team of two, thread i bound to place i (one CPU each: this machine's cores have one
// thread; a core's siblings share a place, tests/planner/rank_env_test.cc).
Test(exports, omp_team_spread_one_thread_per_place, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  std::string both = "cpus:" + p.first + "," + p.second + "|" + p.first + "," + p.second;
  Outcome o = Launch(BashLoop(), {"NUMABIND_POLICY=" + both, "NUMABIND_EXPORT=omp"});
  std::string lo = std::stoi(p.first) < std::stoi(p.second) ? p.first : p.second;
  std::string hi = lo == p.first ? p.second : p.first;
  for (const Report& r : o.reports) {
    cr_expect_eq(EnvOf(r, "OMP_PLACES"), "\"{" + lo + "},{" + hi + "}\"", "%s", r.line.c_str());
    cr_expect_eq(r.Get("threads"), "2", "%s", r.line.c_str());
    cr_expect_eq(r.Get("thread_cpus"), lo + "|" + hi, "%s", r.line.c_str());
    cr_expect_eq(r.Get("ran_on"), lo + "," + hi, "%s", r.line.c_str());
  }
}

// Off: the ranks are bound, but OpenMP gets nothing: a team of one thread per CPU of the rank, every
// thread free on all of them.
Test(exports, off_leaves_the_environment_alone, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  std::string both = "cpus:" + p.first + "," + p.second + "|" + p.first + "," + p.second;
  Outcome o = Launch(BashLoop(), {"NUMABIND_POLICY=" + both});
  int a = std::stoi(p.first), b = std::stoi(p.second);
  std::string set = FormatCpuList({a < b ? a : b, a < b ? b : a});
  for (const Report& r : o.reports) {
    for (const char* v :
         {"OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND", "CUDA_VISIBLE_DEVICES", "NCCL_IB_HCA"})
      cr_expect_eq(EnvOf(r, v), "null", "%s: %s", v, r.line.c_str());
    cr_expect_eq(r.Get("threads"), "2", "%s", r.line.c_str());
    cr_expect_eq(r.Get("thread_cpus"), set + "|" + set, "%s", r.line.c_str());
  }
  cr_expect_eq(LinesWith(o.log, "NUMABIND_EXPORT").size(), 0u, "%s", o.log.c_str());
}

// What the user set in the launcher's environment stays; the rest is added.
Test(exports, user_values_are_kept, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  std::string both = "cpus:" + p.first + "," + p.second + "|" + p.first + "," + p.second;
  Outcome o = Launch(BashLoop(), {"NUMABIND_POLICY=" + both, "NUMABIND_EXPORT=omp", "OMP_NUM_THREADS=1",
                                  "OMP_PROC_BIND=spread"});
  for (const Report& r : o.reports) {
    cr_expect_eq(EnvOf(r, "OMP_NUM_THREADS"), "\"1\"", "%s", r.line.c_str());
    cr_expect_eq(EnvOf(r, "OMP_PROC_BIND"), "\"spread\"", "%s", r.line.c_str());
    cr_expect_neq(EnvOf(r, "OMP_PLACES"), "null", "%s", r.line.c_str());
    cr_expect_eq(r.Get("threads"), "1", "%s", r.line.c_str());
  }
}

// gpu and nic on a machine without either: one warn line per rank, and the rank is bound all the same.
Test(exports, nothing_to_export_is_one_line_and_still_bound, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  Outcome o =
      Launch(BashLoop(), {"NUMABIND_POLICY=" + p.policy, "NUMABIND_EXPORT=gpu,nic", "NUMABIND_DEVICES=none"});
  cr_expect_eq(LinesWith(o.log,
                         "NUMABIND_EXPORT: gpu: the rank has no device; nic: no network device near the "
                         "rank (the rank is bound as planned)")
                   .size(),
               2u, "%s", o.log.c_str());
  for (const Report& r : o.reports) {
    cr_expect_eq(r.Get("cpus"), p.ForRank(std::stoi(r.Get("rank"))), "%s", r.line.c_str());
    cr_expect_eq(EnvOf(r, "CUDA_VISIBLE_DEVICES"), "null", "%s", r.line.c_str());
  }
}

// A rank that binds itself at start-up (no launcher preloaded) exports into its own environment: what its
// children and later-loaded runtimes read. libgomp, linked into the program, has read OMP_* in its own
// constructor before numabind's ran: the team keeps libgomp's default size (see docs/exports.md).
Test(exports, self_binding_rank_exports_to_its_own_environment, .timeout = 60) {
  CpuPair p = TwoAllowedCpus();
  std::string dir = MakeTempDir("numabind-exports");
  std::string build = BuildDir();
  RunResult run = Run({build + "/helpers/omp_report", "--out", dir + "/reports"},
                      {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=" + p.policy,
                       "NUMABIND_EXPORT=omp", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2"},
                      dir + "/output", 60);
  std::vector<Report> reports = ReadReports(dir + "/reports");
  std::string output = ReadFile(dir + "/output");
  RemoveTree(dir);
  cr_assert_eq(run.exit_code, 0, "%s", output.c_str());
  cr_assert_eq(reports.size(), 1u, "%s", output.c_str());
  cr_expect_eq(EnvOf(reports[0], "OMP_PLACES"), "\"{" + p.ForRank(0) + "}\"", "%s", reports[0].line.c_str());
  cr_expect_eq(reports[0].Get("cpus"), p.ForRank(0), "%s", reports[0].line.c_str());
}

}  // namespace numabind::shim::test
