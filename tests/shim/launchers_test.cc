// Real launchers start 2 ranks with the shim preloaded (in the launcher's environment only, never in this
// test binary's); every rank reports where it landed (helpers/report.c, or scripts/pyreport.py for Python
// workers that never exec) and the shim's NUMABIND_LOG=info log must hold one "bound" line per rank.
// The plan swaps the first two CPUs this test may use (rank 0 on the second, rank 1 on the first), so neither
// an unbound rank (all CPUs) nor a launcher's own binding (Open MPI binds rank r to core r) can pass.
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <limits.h>
#include <stdlib.h>

#include <set>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

using namespace numabind::shim::test;

namespace {

constexpr int kRanks = 2;
constexpr int kTorchTimeout = 120;  // torchrun imports torch: 2-15 s here, much more on a loaded machine
constexpr int kTimeout = 40;

std::string g_dir;  // this test's scratch directory (each Criterion test runs in its own process)

void Setup() {
  g_dir = MakeTempDir("numabind-launchers");
  cr_assert(!g_dir.empty(), "cannot create a scratch directory");
}
void Teardown() { RemoveTree(g_dir); }  // failure messages carry the reports, the log and the output

std::string Abs(const std::string& path) { return numabind::shim::test::Absolute(path); }
std::string ReportBin() { return Abs(BuildDir() + "/helpers/report"); }
std::string Script(const std::string& name) { return Abs(RepoDir() + "/tests/shim/scripts/" + name); }
std::string Torchrun() { return Abs(RepoDir() + "/scripts/torchrun.py"); }
std::string Out() { return g_dir + "/ranks.jsonl"; }

// What a launch is expected to show: ranks unbound (no NUMABIND_POLICY), bound, or bound over the launcher's
// own binding between fork and exec, which the log must say it replaced.
enum class Mode { kUnbound, kBound, kBoundOverLauncher };

struct Plan {
  std::string policy;             // NUMABIND_POLICY value
  std::vector<std::string> cpus;  // rank -> expected CPU list when bound
  std::string all;                // expected CPU list when not bound
};

Plan TwoRankPlan() {
  numabind::shim::test::CpuPair p = numabind::shim::test::TwoAllowedCpus();
  return Plan{p.policy, {p.second, p.first}, p.all};
}

struct Outcome {
  RunResult run;
  std::vector<Report> reports;
  std::string log, output;
};

// Runs argv with the shim preloaded and NUMABIND_LOG=info; `bound` adds NUMABIND_POLICY.
Outcome Launch(const std::vector<std::string>& argv, const Plan& plan, bool bound, int timeout_s,
               std::vector<std::string> env = {}) {
  std::string log = g_dir + "/numabind.log", output = g_dir + "/output.txt";
  env.push_back("LD_PRELOAD=" + Abs(BuildDir() + "/libnumabind.so"));
  env.push_back("NUMABIND_LOG=info");
  env.push_back("NUMABIND_LOG_FILE=" + log);
  env.push_back("TMPDIR=" + g_dir);  // torchrun's log dirs, Open MPI's session dir: removed with the test's
  if (bound) env.push_back("NUMABIND_POLICY=" + plan.policy);
  Outcome o;
  o.run = Run(argv, env, output, timeout_s);
  o.reports = ReadReports(Out());
  o.log = ReadFile(log);
  o.output = ReadFile(output);
  return o;
}

// "rank 1 via execve" for each of the shim's bound lines, for the test log.
std::string EntryPoints(const std::vector<std::string>& bound_lines) {
  auto word_after = [](const std::string& line, const std::string& key) {
    size_t at = line.find(key);
    if (at == std::string::npos) return std::string("?");
    at += key.size();
    return line.substr(at, line.find(' ', at) - at);
  };
  std::string s;
  for (const std::string& line : bound_lines)
    s += (s.empty() ? "rank " : ", rank ") + word_after(line, " rank ") + " via " + word_after(line, " via ");
  return s;
}

void Check(const char* what, const Outcome& o, const Plan& plan, Mode mode) {
  bool bound = mode != Mode::kUnbound;
  std::vector<std::string> bound_lines = LinesWith(o.log, "numabind: bound");
  cr_log_info("%s: %.1f s, exit %d, %zu bound: %s", what, o.run.seconds, o.run.exit_code, bound_lines.size(),
              EntryPoints(bound_lines).c_str());
  cr_assert(o.run.started, "%s did not start: %s", what, o.run.error.c_str());
  std::vector<std::string> problems;  // all of them at once, with the evidence below them once
  auto problem = [&](const std::string& p) { problems.push_back(p); };
  if (o.run.timed_out)
    problem("timed out after " + std::to_string(static_cast<int>(o.run.seconds)) + " s");
  else if (o.run.exit_code != 0)
    problem("exited " + std::to_string(o.run.exit_code));
  if (o.reports.size() != static_cast<size_t>(kRanks))
    problem(std::to_string(o.reports.size()) + " rank reports, expected " + std::to_string(kRanks));
  std::set<int> seen;
  for (const Report& r : o.reports) {
    std::string rank = r.Get("rank");
    int k = rank.empty() ? -1 : atoi(rank.c_str());
    if (k < 0 || k >= kRanks || !seen.insert(k).second) {
      problem("bad or repeated rank \"" + rank + "\"");
      continue;
    }
    std::string want = bound ? plan.cpus[k] : plan.all;
    if (r.Get("cpus") != want)
      problem("rank " + rank + " runs on CPUs \"" + r.Get("cpus") + "\", expected \"" + want + "\"");
    if (r.Get("cpus_status") != r.Get("cpus"))
      problem("rank " + rank + ": Cpus_allowed_list \"" + r.Get("cpus_status") +
              "\" differs from its affinity");
  }
  if (!bound && !bound_lines.empty()) problem("the shim bound ranks without NUMABIND_POLICY");
  if (bound && bound_lines.size() != static_cast<size_t>(kRanks))
    problem(std::to_string(bound_lines.size()) + " \"bound\" log lines, expected one per rank");
  for (int k = 0; bound && k < kRanks; k++) {
    size_t n = 0;
    for (const std::string& line : bound_lines)
      if (line.find(" rank " + std::to_string(k) + " ") != std::string::npos) n++;
    if (n != 1)
      problem(std::to_string(n) + " \"bound\" log lines for rank " + std::to_string(k) + ", expected 1");
  }
  // A launcher that binds the child itself gets a "replaced" line per rank: on the "bound" line, or on a
  // "rebound" line when the shim bound the forked child at setenv before the launcher bound it (hydra).
  for (int k = 0; mode == Mode::kBoundOverLauncher && k < kRanks; k++) {
    bool said = false;
    for (const std::string& line : LinesWith(o.log, " rank " + std::to_string(k) + " "))
      said |= line.find("replaced") != std::string::npos;
    if (!said)
      problem("the log does not say the launcher's own binding of rank " + std::to_string(k) +
              " was replaced");
  }
  std::string list, reports;
  for (const std::string& p : problems) list += "  " + p + "\n";
  for (const Report& r : o.reports) reports += r.line + "\n";
  cr_assert(problems.empty(), "%s (%s):\n%s--- reports:\n%s--- numabind log:\n%s--- launcher output:\n%s",
            what, bound ? plan.policy.c_str() : "no policy", list.c_str(), reports.c_str(),
            Tail(o.log).c_str(), Tail(o.output, 1500).c_str());
}

void Expect(const char* what, const std::vector<std::string>& argv, Mode mode, int timeout_s = kTimeout,
            const std::vector<std::string>& env = {}) {
  Plan plan = TwoRankPlan();
  Check(what, Launch(argv, plan, mode != Mode::kUnbound, timeout_s, env), plan, mode);
}

std::vector<std::string> TorchrunArgs(std::vector<std::string> tail) {
  // --standalone's rendezvous without its fixed port: torch 1.13's --standalone hard-codes port 29400 and a
  // second torchrun that cannot bind it joins the first one's store, so concurrent tests would share a job.
  // A short monitor interval: the agent otherwise notices finished workers only every 5 s.
  std::vector<std::string> argv = {"/usr/bin/python3",   Torchrun(),
                                   "--nnodes",           "1",
                                   "--rdzv_backend",     "c10d",
                                   "--rdzv_endpoint",    "localhost:0",
                                   "--rdzv_id",          "numabind-test",
                                   "--nproc_per_node",   std::to_string(kRanks),
                                   "--monitor_interval", "0.2"};
  argv.insert(argv.end(), tail.begin(), tail.end());
  return argv;
}

std::vector<std::string> Mpirun(std::vector<std::string> binding) {
  std::vector<std::string> argv = {"mpirun.openmpi", "--oversubscribe", "-np", std::to_string(kRanks)};
  argv.insert(argv.end(), binding.begin(), binding.end());
  argv.insert(argv.end(), {ReportBin(), "--out", Out()});
  return argv;
}
const std::vector<std::string> kOmpiRoot = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};

std::vector<std::string> PyLaunch(const char* mode) {
  return {"/usr/bin/python3", Script("py_launch.py"), mode, ReportBin(), Out()};
}
std::vector<std::string> BashLoop() {
  return {"bash", Script("bash_loop.sh"), std::to_string(kRanks), ReportBin(), "--out", Out()};
}

}  // namespace

TestSuite(launchers, .init = Setup, .fini = Teardown);

// torchrun: the agent starts `python3 exec_report.py` per rank (subprocess, LOCAL_RANK in its env), which
// execs report: the rank's own child keeps the rank's binding.
Test(launchers, torchrun_script_entrypoint, .timeout = kTorchTimeout + 30) {
  Expect("torchrun script", TorchrunArgs({Script("exec_report.py"), ReportBin(), "--out", Out()}),
         Mode::kBound, kTorchTimeout);
}

// torchrun --run_path: multiprocessing spawn workers, no rank variable until they run: ranks by order.
Test(launchers, torchrun_run_path, .timeout = kTorchTimeout + 30) {
  Expect("torchrun --run_path", TorchrunArgs({"--run_path", Script("pyreport.py"), Out()}), Mode::kBound,
         kTorchTimeout);
}

// torchrun --start_method fork: forked workers that never exec.
Test(launchers, torchrun_fork, .timeout = kTorchTimeout + 30) {
  Expect("torchrun --start_method fork",
         TorchrunArgs({"--start_method", "fork", "--run_path", Script("pyreport.py"), Out()}), Mode::kBound,
         kTorchTimeout);
}

Test(launchers, mpirun_bind_to_none, .timeout = 60) {
  Expect("mpirun --bind-to none", Mpirun({"--bind-to", "none"}), Mode::kBound, kTimeout, kOmpiRoot);
}

// Open MPI binds rank r to core r between fork and exec by default: the plan must replace that.
Test(launchers, mpirun_default_binding, .timeout = 60) {
  Expect("mpirun (default binding)", Mpirun({}), Mode::kBoundOverLauncher, kTimeout, kOmpiRoot);
}

Test(launchers, mpiexec_hydra, .timeout = 60) {
  Expect("mpiexec.hydra", {"mpiexec.hydra", "-n", std::to_string(kRanks), ReportBin(), "--out", Out()},
         Mode::kBound);
}

// hydra's -bind-to core binds rank r to core r in the proxy's child: the plan must replace that.
Test(launchers, mpiexec_hydra_bind_to_core, .timeout = 60) {
  Expect("mpiexec.hydra -bind-to core",
         {"mpiexec.hydra", "-bind-to", "core", "-n", std::to_string(kRanks), ReportBin(), "--out", Out()},
         Mode::kBoundOverLauncher);
}

Test(launchers, bash_loop, .timeout = 60) { Expect("bash loop", BashLoop(), Mode::kBound); }

Test(launchers, python_subprocess_posix_spawn, .timeout = 60) {
  Expect("subprocess close_fds=False (posix_spawn)", PyLaunch("posix_spawn"), Mode::kBound);
}

Test(launchers, python_subprocess_vfork, .timeout = 60) {
  Expect("subprocess default (vfork)", PyLaunch("vfork"), Mode::kBound);
}

Test(launchers, python_os_system, .timeout = 60) { Expect("os.system", PyLaunch("system"), Mode::kBound); }

Test(launchers, python_os_popen, .timeout = 60) { Expect("os.popen", PyLaunch("popen"), Mode::kBound); }

Test(launchers, multiprocessing_spawn_pool, .timeout = 60) {
  Expect("multiprocessing spawn pool", PyLaunch("pool"), Mode::kBound);
}

// Controls: the same launches, shim preloaded without NUMABIND_POLICY, leave every rank on every CPU (so the
// checks above can fail). Cheap launchers only: torchrun costs seconds per run.
Test(launchers, unbound_without_policy_bash_loop, .timeout = 60) {
  Expect("bash loop, no policy", BashLoop(), Mode::kUnbound);
}

Test(launchers, unbound_without_policy_mpirun, .timeout = 60) {
  Expect("mpirun --bind-to none, no policy", Mpirun({"--bind-to", "none"}), Mode::kUnbound, kTimeout,
         kOmpiRoot);
}

// A launcher that restarts its workers: ranks found by order count the launcher's live matching children,
// so the second pool's workers get ranks 0 and 1 again, on the same CPUs as the first pool's.
Test(launchers, multiprocessing_spawn_pool_restarted, .timeout = 90) {
  Plan plan = TwoRankPlan();
  Outcome o = Launch(PyLaunch("pool-restart"), plan, true, 80);
  std::vector<Report> first = ReadReports(Out() + ".first");
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  cr_assert_eq(first.size(), 2u, "first pool: %zu reports\nlog:\n%s", first.size(), o.log.c_str());
  cr_assert_eq(o.reports.size(), 2u, "restarted pool: %zu reports\nlog:\n%s", o.reports.size(),
               o.log.c_str());
  for (const std::vector<Report>* pool : {&first, &o.reports}) {
    for (const Report& r : *pool) {
      int k = atoi(r.Get("rank").c_str());
      cr_expect_eq(r.Get("cpus"), plan.cpus[k], "%s pool, worker %d on %s, planned %s\nlog:\n%s",
                   pool == &first ? "first" : "restarted", k, r.Get("cpus").c_str(), plan.cpus[k].c_str(),
                   o.log.c_str());
    }
  }
  cr_expect_eq(LinesWith(o.log, "bound rank 0 ").size(), 2u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank 1 ").size(), 2u, "log:\n%s", o.log.c_str());
}

Test(launchers, unbound_without_policy_spawn_pool, .timeout = 60) {
  Expect("multiprocessing spawn pool, no policy", PyLaunch("pool"), Mode::kUnbound);
}
