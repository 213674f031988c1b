// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The NUMABIND_BOUND marker and its proof (shim/child/bound_marker.h). A launcher that is itself a rank
// numabind bound (`mpirun -np 2` of a script that starts 2 workers,
// `srun --ntasks-per-node=2 torchrun`) plans its workers inside that rank's CPUs; a binding numabind did not
// make (a taskset, Slurm's, a NUMABIND_BOUND that does not prove itself) is replaced as before. Here the
// outer ranks bind themselves by OMPI_COMM_WORLD_LOCAL_RANK and their workers by LOCAL_RANK, with
// NUMABIND_POLICY=auto on this machine's first two CPUs: outer rank r gets CPU r, and its two workers
// share it (auto's oversubscription) instead of spreading over both CPUs again.

#include <criterion/criterion.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

using Outcome = PreloadedRun;

/// Runs argv under the shim (launch_util.h's RunPreloaded) with NUMABIND_POLICY=auto, no devices, and `env`.
Outcome Start(std::vector<std::string> argv, const std::vector<std::string>& env) {
  std::vector<std::string> all = {"NUMABIND_POLICY=auto", "NUMABIND_DEVICES=none"};
  all.insert(all.end(), env.begin(), env.end());
  return RunPreloaded(std::move(argv), all, "numabind-nested");
}

/// Every test here plans two ranks over this machine's first two CPUs.
void NeedsTwoCpus() {
  if (AllowedCpus().size() < 2) cr_skip_test("needs 2 CPUs");
}

/// The CPU auto gives rank r of 2 on the whole machine: the r-th allowed CPU.
std::string CpuOf(int r) { return std::to_string(AllowedCpus()[r]); }

}  // namespace

TestSuite(bound_marker, .init = NeedsTwoCpus);

namespace {

// Each outer rank starts two workers (LOCAL_RANK 0 and 1, waited for in turn: no event to order). Both
// must stay on their rank's CPU: on the whole machine worker 0 and 1 of every rank overlap the other rank.
Test(bound_marker, workers_stay_inside_their_launchers_rank) {
  const std::string script =
      "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 \"$0\" --out \"$1\"; LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 \"$0\" --out "
      "\"$1\"";
  for (int r = 0; r < 2; ++r) {
    Outcome o = Start({"bash", "-c", script, "@REPORT", "@OUT"},
                      {"OMPI_COMM_WORLD_LOCAL_RANK=" + std::to_string(r), "OMPI_COMM_WORLD_LOCAL_SIZE=2"});
    cr_assert_eq(o.run.exit_code, 0, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
    cr_assert_eq(o.reports.size(), 2u, "%s", Tail(o.output).c_str());
    for (const Report& w : o.reports) {
      cr_expect_eq(w.Get("cpus"), CpuOf(r), "outer rank %d's worker %s: %s\nlog:\n%s", r,
                   w.Get("rank").c_str(), w.line.c_str(), o.log.c_str());
    }
    cr_expect_eq(LinesWith(o.log, "(inside the cpus " + CpuOf(r) + " of rank OMPI_COMM_WORLD_LOCAL_RANK=" +
                                      std::to_string(r) + ", which numabind bound)")
                     .size(),
                 2u, "log:\n%s", o.log.c_str());
  }
}

// NUMABIND_LOG_FORMAT=json: the worker's line stays one JSON object and names the rank in "inside".
Test(bound_marker, json_line_names_the_rank_it_planned_inside) {
  Outcome o =
      Start({"bash", "-c", "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 \"$0\" --out \"$1\"", "@REPORT", "@OUT"},
            {"OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "NUMABIND_LOG_FORMAT=json"});
  std::vector<std::string> lines = LinesWith(o.log, "\"rank_var\":\"LOCAL_RANK\"");
  cr_assert_eq(lines.size(), 1u, "log:\n%s", o.log.c_str());
  Report line;
  std::string err;
  cr_assert(ParseReport(lines[0], &line, &err), "%s: %s", err.c_str(), lines[0].c_str());
  cr_expect_eq(line.Get("inside"), "OMPI_COMM_WORLD_LOCAL_RANK=1", "%s", lines[0].c_str());
  cr_expect_eq(line.Get("cpus"), CpuOf(1), "%s", lines[0].c_str());
}

/// A pid that is nobody's ancestor: a child that has exited and been reaped.
std::string DeadPid() {
  pid_t p = fork();
  if (p == 0) _exit(0);
  waitpid(p, nullptr, 0);
  return std::to_string(p);
}

// A rank started bound (taskset, then env: NUMABIND_DISABLE=1 keeps both inert) with a NUMABIND_BOUND whose
// proof holds keeps to that binding; one whose proof fails is a foreign binding, replaced.
Test(bound_marker, only_a_binding_numabind_made_is_kept) {
  std::string ancestor = std::to_string(getpid());
  struct Case {
    std::string proof, want, what;
  };
  const std::vector<Case> cases = {
      {" cpus=" + CpuOf(1) + " by=" + ancestor, CpuOf(1), "the proof holds: kept"},
      {"", CpuOf(0), "no proof (a NUMABIND_BOUND that numabind did not write): replaced"},
      {" cpus=" + CpuOf(1) + " by=" + DeadPid(), CpuOf(0),
       "recorded by a process not its ancestor: replaced"},
      {" cpus=" + CpuOf(0) + " by=" + ancestor, CpuOf(0), "bound outside the CPUs recorded: replaced"},
      {" cpus=" + CpuOf(1) + " by=x", CpuOf(0), "a proof that does not parse: replaced"},
  };
  for (const Case& c : cases) {
    Outcome o =
        Start({"taskset", "-c", CpuOf(1), "env", "-u", "NUMABIND_DISABLE", "@REPORT", "--out", "@OUT"},
              {"NUMABIND_DISABLE=1", "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=1",
               "NUMABIND_BOUND=OMPI_COMM_WORLD_LOCAL_RANK=1" + c.proof});
    cr_assert_eq(o.run.exit_code, 0, "%s: %s\nlog:\n%s", c.what.c_str(), Tail(o.output).c_str(),
                 o.log.c_str());
    cr_assert_eq(o.reports.size(), 1u, "%s: %s", c.what.c_str(), Tail(o.output).c_str());
    cr_expect_eq(o.reports[0].Get("cpus"), c.want, "%s: %s\nlog:\n%s", c.what.c_str(),
                 o.reports[0].line.c_str(), o.log.c_str());
  }
}

// The marker a self-bound rank writes carries the proof: its CPUs and its pid.
Test(bound_marker, a_bound_ranks_marker_carries_its_proof) {
  Outcome o = Start({"@REPORT", "--out", "@OUT", "--env", "NUMABIND_BOUND"},
                    {"OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2"});
  cr_assert_eq(o.reports.size(), 1u, "%s", Tail(o.output).c_str());
  const Report& r = o.reports[0];
  std::string want = "\"OMPI_COMM_WORLD_LOCAL_RANK=1 cpus=" + CpuOf(1) + " by=" + r.Get("pid") + "\"";
  cr_expect(r.Get("env").find(want) != std::string::npos, "%s", r.line.c_str());
}

}  // namespace
}  // namespace numabind::shim::test
