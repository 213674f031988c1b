// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Ranks that no numabind launcher started bind themselves in the library's constructor: srun's tasks (fake
// Slurm environments here; the real slurmstepd runs in the cluster suite), ranks of launchers that are not
// preloaded. And the rule of who does not: launcher-bound ranks, a rank's children, a taskset inside a rank,
// a batch script, an salloc shell, a step's only task on a node. The map puts rank 0 on the second allowed
// CPU and rank 1 on the first, the reverse of anything a default gives, so an unbound rank cannot pass.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

using Outcome = PreloadedRun;

struct Cpus {
  std::string first, second, all, map;  // map: "cpus:<second>|<first>"
};

Cpus MachineCpus() {
  std::vector<int> allowed = AllowedCpus();
  if (allowed.size() < 2) cr_assert_fail("these tests need 2 CPUs; this machine offers %zu", allowed.size());
  Cpus c;
  c.first = std::to_string(allowed[0]);
  c.second = std::to_string(allowed[1]);
  c.all = FormatCpuList(allowed);
  c.map = "NUMABIND_POLICY=cpus:" + c.second + "|" + c.first;
  return c;
}

/// Runs argv under the shim (launch_util.h's RunPreloaded) with `env`.
Outcome Start(std::vector<std::string> argv, const std::vector<std::string>& env) {
  return RunPreloaded(std::move(argv), env, "numabind-self");
}

/// One report process under the shim.
Outcome Report1(std::vector<std::string> env, std::vector<std::string> args = {}) {
  std::vector<std::string> argv = {"@REPORT", "--out", "@OUT"};
  argv.insert(argv.end(), args.begin(), args.end());
  return Start(argv, env);
}

void ExpectOneReport(const Outcome& o, const std::string& cpus, const char* what) {
  cr_assert_eq(o.run.exit_code, 0, "%s: exit %d\n%s\nlog:\n%s", what, o.run.exit_code, Tail(o.output).c_str(),
               o.log.c_str());
  cr_assert_eq(o.reports.size(), 1u, "%s: %zu reports\n%s", what, o.reports.size(), Tail(o.output).c_str());
  cr_expect_eq(o.reports[0].Get("cpus"), cpus, "%s: on cpus %s, expected %s\nlog:\n%s", what,
               o.reports[0].Get("cpus").c_str(), cpus.c_str(), o.log.c_str());
}

const std::vector<std::string> kStep = {"SLURM_STEP_ID=0", "SLURM_STEP_TASKS_PER_NODE=2(x2)",
                                        "SLURM_NODEID=1", "SLURM_JOB_ID=7"};

std::vector<std::string> With(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace
}  // namespace numabind::shim::test

using namespace numabind::shim::test;  // NOLINT: test file

// The smallest case, as a user types it.
Test(self_bind, the_smallest_case) {
  Cpus c = MachineCpus();
  Outcome o = Start({"grep", "Cpus_allowed_list", "/proc/self/status"}, {c.map, "LOCAL_RANK=0"});
  cr_assert_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_eq(o.output, "Cpus_allowed_list:\t" + c.second + "\n", "log:\n%s", o.log.c_str());
  std::vector<std::string> lines = LinesWith(o.log, "bound rank 0 (LOCAL_RANK) grep: cpus " + c.second);
  cr_expect_eq(lines.size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, " at start-up").size(), 1u, "log:\n%s", o.log.c_str());
}

Test(self_bind, unknown_variable_is_ignored_with_one_warning) {
  Cpus c = MachineCpus();
  Outcome o =
      Start({"grep", "Cpus_allowed_list", "/proc/self/status"}, {c.map, "LOCAL_RANK=0", "NUMABIND_FOO=1"});
  cr_assert_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_eq(o.output, "Cpus_allowed_list:\t" + c.second + "\n", "log:\n%s", o.log.c_str());
  cr_expect_eq(
      LinesWith(o.log,
                "numabind: NUMABIND_FOO is not a numabind variable (numabind vars lists them); ignored")
          .size(),
      1u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank 0 (LOCAL_RANK) grep: cpus " + c.second).size(), 1u, "log:\n%s",
               o.log.c_str());
}

// Issue 38: every NUMABIND_* variable is read, however many unknown ones come before it (the first 39 were,
// and NUMABIND_POLICY after 45 unknown names was lost: the rank ran unbound).
Test(self_bind, every_variable_is_read_after_many_unknown_names) {
  Cpus c = MachineCpus();
  std::vector<std::string> env;
  for (int i = 0; i < 45; ++i) env.push_back("NUMABIND_UNKNOWN_" + std::to_string(i) + "=1");
  env.insert(env.end(), {c.map, "LOCAL_RANK=0"});
  Outcome o = Start({"grep", "Cpus_allowed_list", "/proc/self/status"}, env);
  cr_assert_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_expect_eq(o.output, "Cpus_allowed_list:\t" + c.second + "\n", "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank 0 (LOCAL_RANK) grep: cpus " + c.second).size(), 1u, "log:\n%s",
               o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "NUMABIND_UNKNOWN_0 is not a numabind variable").size(), 1u, "log:\n%s",
               o.log.c_str());
}

Test(self_bind, rank_count_and_memory_policy) {
  Cpus c = MachineCpus();
  Outcome o = Report1({c.map, "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "NUMABIND_MEMORY=bind"});
  ExpectOneReport(o, c.first, "rank 1 of 2");
  cr_expect_eq(o.reports[0].Get("policy"), "bind", "%s", o.reports[0].line.c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank 1 of 2 (LOCAL_RANK)").size(), 1u, "log:\n%s", o.log.c_str());
}

// Issue 36: near is MPOL_PREFERRED_MANY (Linux 5.15) and weighted MPOL_WEIGHTED_INTERLEAVE (6.9) over the
// rank's nodes; this machine's one node has no memory-only node beside it, which is said at info.
Test(self_bind, near_and_weighted_memory) {
  Cpus c = MachineCpus();
  struct {
    const char* memory;
    const char* mode;
  } cases[] = {{"near", "preferred_many"}, {"weighted", "weighted_interleave"}};
  for (const auto& k : cases) {
    Outcome o =
        Report1({c.map, "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1", std::string("NUMABIND_MEMORY=") + k.memory});
    ExpectOneReport(o, c.second, k.memory);
    cr_expect_eq(o.reports[0].Get("policy"), k.mode, "%s", o.reports[0].line.c_str());
    cr_expect_eq(o.reports[0].Get("policy_nodes"), "0", "%s", o.reports[0].line.c_str());
    cr_expect_eq(LinesWith(o.log, std::string("memory ") + k.memory + " at start-up").size(), 1u, "log:\n%s",
                 o.log.c_str());
    cr_expect_eq(
        LinesWith(o.log, std::string("NUMABIND_MEMORY=") + k.memory +
                             ": no memory-only node (HBM, CXL) on this machine: ranks use their own nodes")
            .size(),
        1u, "log:\n%s", o.log.c_str());
  }
}

Test(self_bind, srun_task) {
  Cpus c = MachineCpus();
  Outcome o = Report1(With({c.map, "SLURM_LOCALID=1"}, kStep));
  ExpectOneReport(o, c.first, "srun task 1");
  cr_expect_eq(LinesWith(o.log, "bound rank 1 of 2 (SLURM_LOCALID)").size(), 1u, "log:\n%s", o.log.c_str());
}

// task/affinity or --cpu-bind bound the task first: numabind replaces it, inside the job's CPUs, and says so.
// taskset and env stand for slurmstepd (NUMABIND_DISABLE=1 keeps them inert); the task starts bound.
Test(self_bind, replaces_slurms_binding) {
  Cpus c = MachineCpus();
  Outcome o = Start({"taskset", "-c", c.second, "env", "-u", "NUMABIND_DISABLE", "@REPORT", "--out", "@OUT"},
                    With({c.map, "SLURM_LOCALID=1", "NUMABIND_DISABLE=1"}, kStep));
  ExpectOneReport(o, c.first, "task started on the second CPU");
  std::vector<std::string> lines = LinesWith(o.log, "(replaced Slurm's binding to cpus " + c.second + ")");
  cr_expect_eq(lines.size(), 1u, "log:\n%s", o.log.c_str());
  // Another launcher's binding (Open MPI's bind-to-core through a daemon that is not preloaded).
  o = Start({"taskset", "-c", c.second, "env", "-u", "NUMABIND_DISABLE", "@REPORT", "--out", "@OUT"},
            {c.map, "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "NUMABIND_DISABLE=1"});
  ExpectOneReport(o, c.first, "mpirun rank started on the second CPU");
  lines = LinesWith(o.log, "(replaced the binding it started with, cpus " + c.second + ")");
  cr_expect_eq(lines.size(), 1u, "log:\n%s", o.log.c_str());
}

// Ranks of mpirun, hydra or torchrun inside a step inherit the step's SLURM_LOCALID: their own launcher's
// variable wins.
Test(self_bind, own_launchers_variable_beats_stale_slurm) {
  Cpus c = MachineCpus();
  std::vector<std::string> stale = {"SLURM_LOCALID=0", "SLURM_STEP_ID=0", "SLURM_STEP_TASKS_PER_NODE=1(x2)"};
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "LOCAL_RANK"}) {
    Outcome o = Report1(With({c.map, std::string(var) + "=1"}, stale));
    ExpectOneReport(o, c.first, var);
    cr_expect_eq(LinesWith(o.log, std::string("bound rank 1 (") + var + ")").size(), 1u, "log:\n%s",
                 o.log.c_str());
  }
}

// The batch script of sbatch has SLURM_LOCALID=0 but no SLURM_STEP_ID; an salloc shell has neither: both are
// launchers, never narrowed, and say nothing.
Test(self_bind, batch_script_and_salloc_shell_are_not_narrowed) {
  Cpus c = MachineCpus();
  Outcome o =
      Report1({c.map, "SLURM_LOCALID=0", "SLURM_JOB_ID=7", "SLURM_TASKS_PER_NODE=2(x2)", "SLURM_NODEID=0"});
  ExpectOneReport(o, c.all, "batch script");
  cr_expect_eq(o.log, "", "batch script: %s", o.log.c_str());
  o = Report1({c.map, "SLURM_JOB_ID=7", "SLURM_TASKS_PER_NODE=2(x2)"});
  ExpectOneReport(o, c.all, "salloc shell");
  cr_expect_eq(o.log, "", "salloc shell: %s", o.log.c_str());
}

// torchrun, orted or hydra's proxy under `srun --ntasks-per-node=1`: the step's only task on this node
// starts ranks; it is not put on one rank's slice. NUMABIND_RANK_VAR=SLURM_LOCALID says it is a rank.
Test(self_bind, only_task_of_a_step_is_a_launcher) {
  Cpus c = MachineCpus();
  std::vector<std::string> one = {"SLURM_LOCALID=0", "SLURM_STEP_ID=0", "SLURM_STEP_TASKS_PER_NODE=1(x2)",
                                  "SLURM_NODEID=1"};
  Outcome o = Report1(With({c.map}, one));
  ExpectOneReport(o, c.all, "only task");
  cr_expect_eq(LinesWith(o.log, "not bound: the only task of its Slurm step on this node").size(), 1u,
               "log:\n%s", o.log.c_str());
  o = Report1(With({c.map, "NUMABIND_RANK_VAR=SLURM_LOCALID"}, one));
  ExpectOneReport(o, c.second, "only task with NUMABIND_RANK_VAR");
  cr_expect_eq(LinesWith(o.log, "bound rank 0 of 1 (SLURM_LOCALID)").size(), 1u, "log:\n%s", o.log.c_str());
  // As a launcher it binds the ranks it starts (a bash loop standing for torchrun's agent).
  std::string loop =
      "for i in 0 1; do LOCAL_RANK=$i LOCAL_WORLD_SIZE=2 \"$0\" --out \"$1\"; done; "
      "exec \"$0\" --out \"$1\"";
  o = Start({"bash", "-c", loop, "@REPORT", "@OUT"}, With({c.map}, one));
  cr_assert_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_assert_eq(o.reports.size(), 3u, "%s", o.output.c_str());
  cr_expect_eq(o.reports[0].Get("cpus"), c.second, "worker 0: %s", o.reports[0].line.c_str());
  cr_expect_eq(o.reports[1].Get("cpus"), c.first, "worker 1: %s", o.reports[1].line.c_str());
  cr_expect_eq(o.reports[2].Get("cpus"), c.all, "the launcher itself: %s", o.reports[2].line.c_str());
  cr_expect_eq(LinesWith(o.log, "via execve").size(), 2u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "at start-up").size(), 0u, "log:\n%s", o.log.c_str());
}

// A rank's children keep its binding (one line, one preparation), and a taskset inside a rank keeps its own.
Test(self_bind, children_and_taskset_keep_theirs) {
  Cpus c = MachineCpus();
  std::string script = "\"$0\" --out \"$1\"; taskset -c " + c.first + " \"$0\" --out \"$1\"; " +
                       "numactl --physcpubind=" + c.first +
                       " \"$0\" --out \"$1\" 2>/dev/null || "
                       "taskset -c " +
                       c.first + " \"$0\" --out \"$1\"";
  Outcome o = Start({"bash", "-c", script, "@REPORT", "@OUT"},
                    {c.map, "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2", "NUMABIND_LOG=debug"});
  cr_assert_eq(o.run.exit_code, 0, "%s", o.output.c_str());
  cr_assert_eq(o.reports.size(), 3u, "%s", o.output.c_str());
  cr_expect_eq(o.reports[0].Get("cpus"), c.second, "the rank's child: %s", o.reports[0].line.c_str());
  cr_expect_eq(o.reports[1].Get("cpus"), c.first, "taskset inside the rank: %s", o.reports[1].line.c_str());
  cr_expect_eq(o.reports[2].Get("cpus"), c.first, "numactl inside the rank: %s", o.reports[2].line.c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank").size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "prepared").size(), 1u, "one preparation (the rank's own):\n%s",
               o.log.c_str());
}

// A rank a preloaded launcher bound does not plan again: no second preparation, no second line.
Test(self_bind, launcher_bound_ranks_do_not_plan_again) {
  Cpus c = MachineCpus();
  for (const char* entry : {"execve", "vfork-execve", "posix_spawn", "system"}) {
    Outcome o = Start({BuildDir() + "/helpers/entry_launcher", entry, "2", "@REPORT", "--out", "@OUT"},
                      {c.map, "NUMABIND_LOG=debug"});
    cr_assert_eq(o.run.exit_code, 0, "%s: %s", entry, o.output.c_str());
    cr_assert_eq(o.reports.size(), 2u, "%s: %s", entry, o.output.c_str());
    cr_expect_eq(LinesWith(o.log, "bound rank").size(), 2u, "%s: log:\n%s", entry, o.log.c_str());
    cr_expect_eq(LinesWith(o.log, "at start-up").size(), 0u, "%s: log:\n%s", entry, o.log.c_str());
    cr_expect_eq(LinesWith(o.log, "prepared").size(), 1u, "%s: log:\n%s", entry, o.log.c_str());
  }
}

Test(self_bind, rank_var_override) {
  Cpus c = MachineCpus();
  Outcome o = Report1({c.map, "NUMABIND_RANK_VAR=MY_RANK", "MY_RANK=1", "LOCAL_RANK=0"});
  ExpectOneReport(o, c.first, "NUMABIND_RANK_VAR");
  cr_expect_eq(LinesWith(o.log, "bound rank 1 (MY_RANK)").size(), 1u, "log:\n%s", o.log.c_str());
}

Test(self_bind, unbindable_rank_warns_and_runs) {
  Cpus c = MachineCpus();
  Outcome o = Start({"@REPORT", "--out", "@OUT"},
                    {"NUMABIND_POLICY=cpus:" + c.second + "|4095", "LOCAL_RANK=1", "NUMABIND_LOG=warn"});
  ExpectOneReport(o, c.all, "unbindable");
  cr_expect_eq(LinesWith(o.log, "numabind:").size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "rank 1 (LOCAL_RANK)").size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect(o.log.find("runs unbound") != std::string::npos, "log:\n%s", o.log.c_str());
}

Test(self_bind, strict_stops_before_main) {
  Cpus c = MachineCpus();
  Outcome o = Start({"@REPORT", "--out", "@OUT"},
                    {"NUMABIND_POLICY=cpus:" + c.second + "|4095", "LOCAL_RANK=1", "NUMABIND_STRICT=1"});
  cr_expect_eq(o.run.exit_code, 127, "strict mode: exit %d\n%s", o.run.exit_code, o.output.c_str());
  cr_expect_eq(o.reports.size(), 0u, "main ran");
  cr_expect_eq(LinesWith(o.log, "numabind:").size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect(o.log.find("not started") != std::string::npos, "log:\n%s", o.log.c_str());
  // A bad variable, too.
  o = Start({"@REPORT", "--out", "@OUT"},
            {c.map, "LOCAL_RANK=1", "NUMABIND_STRICT=1", "NUMABIND_MEMORY=fast"});
  cr_expect_eq(o.run.exit_code, 127, "exit %d\n%s", o.run.exit_code, o.output.c_str());
  cr_expect(o.log.find("NUMABIND_MEMORY=fast") != std::string::npos, "log:\n%s", o.log.c_str());
}

Test(self_bind, no_policy_no_binding) {
  Cpus c = MachineCpus();
  Outcome o = Report1(With({"SLURM_LOCALID=1"}, kStep));
  ExpectOneReport(o, c.all, "no policy");
  cr_expect_eq(o.log, "", "%s", o.log.c_str());
  cr_expect_eq(o.reports[0].Get("env").find("NUMABIND_BOUND"), std::string::npos);
}

namespace {

/// `numabind plan --json` with env: one Report per rank ("cpus", or "error").
std::vector<Report> Plan(const std::vector<std::string>& env) {
  std::string dir = MakeTempDir("numabind-plan");
  RunResult r = Run({BuildDir() + "/numabind", "plan", "--json"}, env, dir + "/out", 60);
  std::string text = ReadFile(dir + "/out");
  RemoveTree(dir);
  cr_assert(r.exit_code == 0 || r.exit_code == 1, "numabind plan exited %d: %s", r.exit_code, text.c_str());
  std::vector<Report> rows;
  for (std::string line : LinesWith(text, "\"rank\"")) {
    line = line.substr(line.find('{'));
    line = line.substr(0, line.rfind('}') + 1);
    Report row;
    std::string err;
    cr_assert(ParseReport(line, &row, &err), "%s: %s", line.c_str(), err.c_str());
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

// `numabind plan` shows what a launch does: every Slurm task binds itself where the plan says, with the
// rank count read from the same compressed counts (the old library read SLURM_NTASKS_PER_NODE='4(x2)' as 4).
Test(self_bind, agrees_with_numabind_plan) {
  Cpus c = MachineCpus();
  const std::vector<std::vector<std::string>> cases = {
      {"SLURM_STEP_TASKS_PER_NODE=2(x2)", "SLURM_NODEID=1", "SLURM_NTASKS_PER_NODE=4(x2)"},
      {"SLURM_STEP_TASKS_PER_NODE=1,2", "SLURM_NODEID=1"},
      {"SLURM_TASKS_PER_NODE=2(x3),1", "SLURM_NODEID=2"},
      {"SLURM_STEP_TASKS_PER_NODE=4(x2)", "SLURM_NODEID=0"},
  };
  for (const std::vector<std::string>& counts : cases) {
    std::vector<std::string> env = With({"NUMABIND_POLICY=exclusive", "SLURM_STEP_ID=0"}, counts);
    std::vector<Report> plan = Plan(env);
    cr_assert(plan.size() >= 2, "%s: %zu rows", counts[0].c_str(), plan.size());
    for (size_t k = 0; k < plan.size(); ++k) {
      Outcome o = Report1(With(env, {"SLURM_LOCALID=" + std::to_string(k)}));
      std::string want = plan[k].Get("error").empty() ? plan[k].Get("cpus") : c.all;
      ExpectOneReport(o, want, counts[0].c_str());
      if (!plan[k].Get("error").empty()) {
        cr_expect(o.log.find(plan[k].Get("error")) != std::string::npos, "%s: plan says %s; log:\n%s",
                  counts[0].c_str(), plan[k].Get("error").c_str(), o.log.c_str());
      } else {
        std::string of = " of " + std::to_string(plan.size()) + " (SLURM_LOCALID)";
        cr_expect_eq(LinesWith(o.log, "bound rank " + std::to_string(k) + of).size(), 1u, "log:\n%s",
                     o.log.c_str());
      }
    }
  }
}

// A process with no rank variable whose own command line matches NUMABIND_MATCH is a worker its launcher
// binds by order (a multiprocessing spawn worker): it starts no ranks of its own, even when its children
// match too. Its command line is read at start-up from memory (self_bind.cc's OwnCmdlineMatches); reading
// it wrong makes it a launcher that binds both children by order.
Test(self_bind, worker_found_by_order_starts_no_ranks) {
  Cpus c = MachineCpus();
  Outcome o = Start({BuildDir() + "/helpers/hostile", "burst", "2", "@REPORT", "--out", "@OUT", "--hold",
                     "--env", "numabind-by-order-worker"},
                    {c.map, "NUMABIND_MATCH=*numabind-by-order-worker*"});
  cr_assert_eq(o.run.exit_code, 0, "exit %d\n%s\nlog:\n%s", o.run.exit_code, Tail(o.output).c_str(),
               o.log.c_str());
  cr_assert_eq(o.reports.size(), 2u, "%zu reports\n%s", o.reports.size(), Tail(o.output).c_str());
  for (const Report& r : o.reports)
    cr_expect_eq(r.Get("cpus"), c.all, "a child on %s", r.Get("cpus").c_str());
  cr_expect(LinesWith(o.log, "bound rank").empty(), "log:\n%s", o.log.c_str());
}

namespace numabind::shim::test {
namespace {

// NUMABIND_BY_DEVICE=1: a process no launcher ranks, started with one device (Ray's actors, serving
// engines' workers), binds as that device's rank. The machine: 2 nodes of one CPU each (the XML maps them
// onto this machine's first two), a GPU near each.
std::vector<std::string> ByDevice(std::vector<std::string> more,
                                  const char* file = "2synth-2n1c1t-2gpu.xml") {
  std::vector<std::string> env = {"NUMABIND_POLICY=node", "NUMABIND_BY_DEVICE=1",
                                  "NUMABIND_TOPOLOGY=" + RepoDir() + "/tests/data/topologies/" + file};
  env.insert(env.end(), more.begin(), more.end());
  return env;
}

Test(self_bind, a_process_with_one_device_binds_as_its_rank) {
  Cpus c = MachineCpus();
  if (c.first != "0" || c.second != "1") cr_skip_test("the topology file names CPUs 0 and 1");
  for (const char* dev : {"0", "1"}) {
    Outcome o = Report1(ByDevice({std::string("CUDA_VISIBLE_DEVICES=") + dev}));
    ExpectOneReport(o, dev, "CUDA_VISIBLE_DEVICES");  // node d's one CPU is CPU d
    std::string line = std::string("bound rank ") + dev + " of 2 (CUDA_VISIBLE_DEVICES)";
    cr_expect_eq(LinesWith(o.log, line).size(), 1u, "no '%s' line, log:\n%s", line.c_str(), o.log.c_str());
  }
  // ROCm's variables alike: HIP_VISIBLE_DEVICES indexes what ROCR_VISIBLE_DEVICES left (no AMD GPU here:
  // the NVIDIA-only machine has no such device, so it is no rank).
  Outcome amd = Report1(ByDevice({"ROCR_VISIBLE_DEVICES=0,1", "HIP_VISIBLE_DEVICES=1"}));
  ExpectOneReport(amd, c.all, "an AMD index on a machine of NVIDIA GPUs");
}

// NVIDIA's rule (and ROCm's): the first invalid entry ends the list, so 1,-1 is device 1 alone: rank 1.
// A process that sees no device (-1, or an empty list) is no rank.
Test(self_bind, an_invalid_visible_entry_ends_the_list) {
  Cpus c = MachineCpus();
  if (c.first != "0" || c.second != "1") cr_skip_test("the topology file names CPUs 0 and 1");
  for (const char* v : {"CUDA_VISIBLE_DEVICES=1,-1", "CUDA_VISIBLE_DEVICES=1,-1,0"}) {
    Outcome o = Report1(ByDevice({v}));
    ExpectOneReport(o, "1", v);
    std::string line = "bound rank 1 of 2 (CUDA_VISIBLE_DEVICES)";
    cr_expect_eq(LinesWith(o.log, line).size(), 1u, "%s: no '%s' line, log:\n%s", v, line.c_str(),
                 o.log.c_str());
  }
  Outcome o = Report1(ByDevice({"CUDA_VISIBLE_DEVICES=-1,1"}));
  ExpectOneReport(o, c.all, "CUDA_VISIBLE_DEVICES=-1,1");
}

// A launcher's ranks drive the devices its list leaves, up to the first invalid entry: with 1,-1,0 the one
// rank drives GPU 1 and runs on its node (node 1: CPU 1), not on GPU 0's.
Test(self_bind, a_rank_drives_the_devices_up_to_an_invalid_entry) {
  Cpus c = MachineCpus();
  if (c.first != "0" || c.second != "1") cr_skip_test("the topology file names CPUs 0 and 1");
  Outcome o =
      Report1({"NUMABIND_POLICY=node", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=1", "CUDA_VISIBLE_DEVICES=1,-1,0",
               "NUMABIND_TOPOLOGY=" + RepoDir() + "/tests/data/topologies/2synth-2n1c1t-2gpu.xml"});
  ExpectOneReport(o, "1", "CUDA_VISIBLE_DEVICES=1,-1,0");
  cr_expect_eq(LinesWith(o.log, "bound rank 0 of 1 (LOCAL_RANK)").size(), 1u, "log:\n%s", o.log.c_str());
}

// A device named by UUID, where the topology carries one (an NVML OS device under each GPU): the second
// GPU's UUID, or a unique prefix of it, makes rank 1; a prefix of both GPUs' is no rank, silently.
Test(self_bind, a_process_with_one_device_by_uuid_binds_as_its_rank) {
  Cpus c = MachineCpus();
  if (c.first != "0" || c.second != "1") cr_skip_test("the topology file names CPUs 0 and 1");
  const char* topology = "uuid/2synth-2n1c1t-2gpu-uuid.xml";
  for (const char* id : {"GPU-8f3c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e", "GPU-8f3c9"}) {
    Outcome o = Report1(ByDevice({std::string("CUDA_VISIBLE_DEVICES=") + id}, topology));
    ExpectOneReport(o, "1", id);
    std::string line = "bound rank 1 of 2 (CUDA_VISIBLE_DEVICES)";
    cr_expect_eq(LinesWith(o.log, line).size(), 1u, "%s: no '%s' line, log:\n%s", id, line.c_str(),
                 o.log.c_str());
  }
  Outcome o = Report1(ByDevice({"CUDA_VISIBLE_DEVICES=GPU-8f3c"}, topology));
  ExpectOneReport(o, c.all, "a prefix of both GPUs' UUIDs");
  cr_expect_eq(LinesWith(o.log, "numabind").size(), 0u, "log at info:\n%s", o.log.c_str());
}

Test(self_bind, by_device_is_off_unless_asked) {
  Cpus c = MachineCpus();
  Outcome o = Report1({"NUMABIND_POLICY=node", "CUDA_VISIBLE_DEVICES=1",
                       "NUMABIND_TOPOLOGY=" + RepoDir() + "/tests/data/topologies/2synth-2n1c1t-2gpu.xml"});
  ExpectOneReport(o, c.all, "NUMABIND_BY_DEVICE unset");
}

// No device or several: no rank, and nothing said above debug (most processes of a machine are such).
Test(self_bind, a_process_with_no_device_or_several_is_no_rank_silently) {
  Cpus c = MachineCpus();
  for (const char* v : {"CUDA_VISIBLE_DEVICES=0,1", "CUDA_VISIBLE_DEVICES=", "CUDA_VISIBLE_DEVICES=GPU-8e4f",
                        "NUMABIND_LOG_FORMAT=text"}) {
    Outcome o = Report1(ByDevice({v}));
    ExpectOneReport(o, c.all, v);
    cr_expect_eq(LinesWith(o.log, "numabind").size(), 0u, "%s: log at info:\n%s", v, o.log.c_str());
  }
}

// A rank variable the process sets later (Ray Train's workers learn their rank after start-up) does not
// bind it again differently: under node, rank 0 of 2 would be on node 0's CPU.
Test(self_bind, a_device_rank_keeps_its_binding_when_it_learns_a_rank) {
  Cpus c = MachineCpus();
  if (c.first != "0" || c.second != "1") cr_skip_test("the topology file names CPUs 0 and 1");
  std::string code =
      "import os, sys; sys.path.insert(0, sys.argv[2]); os.environ['LOCAL_RANK'] = '0'; "
      "os.environ['LOCAL_WORLD_SIZE'] = '2'; import pyreport; pyreport.report(sys.argv[1])";
  Outcome o = Start({"/usr/bin/python3", "-c", code, "@OUT", RepoDir() + "/tests/shim/scripts"},
                    ByDevice({"CUDA_VISIBLE_DEVICES=1"}));
  ExpectOneReport(o, "1", "after setting LOCAL_RANK=0");
}

}  // namespace
}  // namespace numabind::shim::test
