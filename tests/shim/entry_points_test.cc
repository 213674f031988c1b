// The shim binds ranks started through every entry point it wraps. A C launcher (helpers/entry_launcher)
// starts two copies of helpers/report through one entry point each, with LOCAL_RANK in the environment it
// passes; each rank reports its own affinity. The plan is the map cpus:B|A over the first two CPUs this
// process may use (rank 0 on B, rank 1 on A), the reverse of anything a default would give.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

struct Outcome {
  std::vector<Report> reports;
  std::string log;
  std::string output;
  RunResult run;
};

/// Runs entry_launcher ENTRY NRANKS report --out FILE with the shim preloaded and the given variables.
Outcome Launch(const std::string& entry, int nranks, const std::vector<std::string>& vars) {
  std::string dir = MakeTempDir("numabind-entry");
  std::string build = BuildDir();
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_LOG=info",
                                  "NUMABIND_LOG_FILE=" + dir + "/log"};
  env.insert(env.end(), vars.begin(), vars.end());
  Outcome o;
  o.run = Run({build + "/helpers/entry_launcher", entry, std::to_string(nranks), build + "/helpers/report",
               "--out", dir + "/reports"},
              env, dir + "/output", 60);
  o.reports = ReadReports(dir + "/reports");
  o.log = ReadFile(dir + "/log");
  o.output = ReadFile(dir + "/output");
  RemoveTree(dir);
  return o;
}

/// Every rank landed on its planned CPU and was logged once.
void ExpectBound(const std::string& entry, int nranks = 2) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch(entry, nranks, {"NUMABIND_POLICY=" + p.policy});
  cr_assert_eq(o.run.exit_code, 0, "%s: launcher exited %d\n%s\nlog:\n%s", entry.c_str(), o.run.exit_code,
               Tail(o.output).c_str(), o.log.c_str());
  cr_assert_eq(o.reports.size(), static_cast<size_t>(nranks), "%s: %zu reports\n%s", entry.c_str(),
               o.reports.size(), Tail(o.output).c_str());
  for (const Report& r : o.reports) {
    std::string want = p.ForRank(std::stoi(r.Get("rank")));
    cr_expect_eq(r.Get("cpus"), want, "%s: rank %s on cpus %s, planned %s\nlog:\n%s", entry.c_str(),
                 r.Get("rank").c_str(), r.Get("cpus").c_str(), want.c_str(), o.log.c_str());
  }
  // Launchers that make the child another way still exec it with execve.
  bool execve = entry == "vfork-execve" || entry == "_Fork-execve" || entry == "direct-execve";
  std::string via = "via " + (execve ? std::string("execve") : entry);
  cr_expect_eq(LinesWith(o.log, "bound rank").size(), static_cast<size_t>(nranks), "%s: log:\n%s",
               entry.c_str(), o.log.c_str());
  cr_expect_eq(LinesWith(o.log, via).size(), static_cast<size_t>(nranks), "%s: no '%s' in log:\n%s",
               entry.c_str(), via.c_str(), o.log.c_str());
}

}  // namespace
}  // namespace numabind::shim::test

using numabind::shim::test::CpuPair;
using numabind::shim::test::ExpectBound;
using numabind::shim::test::Launch;
using numabind::shim::test::LinesWith;
using numabind::shim::test::Outcome;
using numabind::shim::test::Report;
using numabind::shim::test::Tail;
using numabind::shim::test::TwoAllowedCpus;

Test(entry_points, execve) { ExpectBound("execve"); }
Test(entry_points, execv) { ExpectBound("execv"); }
Test(entry_points, execvp) { ExpectBound("execvp"); }
Test(entry_points, execvpe) { ExpectBound("execvpe"); }
Test(entry_points, execl) { ExpectBound("execl"); }
Test(entry_points, execle) { ExpectBound("execle"); }
Test(entry_points, execlp) { ExpectBound("execlp"); }
Test(entry_points, fexecve) { ExpectBound("fexecve"); }
Test(entry_points, execveat) { ExpectBound("execveat"); }
Test(entry_points, vfork_then_execve) { ExpectBound("vfork-execve"); }
Test(entry_points, underscore_fork_then_execve) { ExpectBound("_Fork-execve"); }
Test(entry_points, posix_spawn) { ExpectBound("posix_spawn"); }
Test(entry_points, posix_spawnp) { ExpectBound("posix_spawnp"); }
Test(entry_points, system) { ExpectBound("system"); }
Test(entry_points, popen) { ExpectBound("popen"); }
Test(entry_points, direct_execve) { ExpectBound("direct-execve", 1); }

Test(entry_points, threads_vfork_concurrently) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("threads-vfork", 8, {"NUMABIND_POLICY=" + p.policy, "NUMABIND_NRANKS=8"});
  cr_assert_eq(o.run.exit_code, 0, "launcher exited %d\n%s", o.run.exit_code, Tail(o.output).c_str());
  cr_assert_eq(o.reports.size(), 8u, "%zu reports\n%s", o.reports.size(), Tail(o.output).c_str());
  for (const Report& r : o.reports) {
    std::string want = p.ForRank(std::stoi(r.Get("rank")));
    cr_expect_eq(r.Get("cpus"), want, "rank %s on %s", r.Get("rank").c_str(), r.Get("cpus").c_str());
  }
  cr_expect_eq(LinesWith(o.log, "bound rank").size(), 8u, "log:\n%s", o.log.c_str());
}

Test(entry_points, failed_exec_restores_the_caller) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("failed-execve", 1, {"NUMABIND_POLICY=" + p.policy});
  cr_assert_eq(o.run.exit_code, 0, "launcher exited %d\n%s", o.run.exit_code, Tail(o.output).c_str());
  std::vector<std::string> after = LinesWith(o.output, "after-failed-exec");
  cr_assert_eq(after.size(), 1u, "output:\n%s", o.output.c_str());
  cr_expect(after[0].find("ret=-1 errno=2 ") != std::string::npos, "exec's result changed: %s",
            after[0].c_str());
  std::string restored = "cpus=" + p.commas;  // the line's last field
  cr_expect(after[0].size() >= restored.size() &&
                after[0].compare(after[0].size() - restored.size(), restored.size(), restored) == 0,
            "binding not restored (want %s): %s", restored.c_str(), after[0].c_str());
  cr_assert_eq(o.reports.size(), 1u);
  cr_expect_eq(o.reports[0].Get("cpus"), p.all, "the later exec (no new rank variable) must run unbound");
}
