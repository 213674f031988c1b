// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The local rank count: Slurm's compressed per-node task counts ("2(x3),1"), this node's entry by
// SLURM_NODEID, the step's counts before the job's, and the other launchers' plain sizes. NUMABIND_BOUND
// is a known variable.

#include "config/rank_count.h"

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "tests/config/config_test_util.h"

using numabind::config::kRankVarCount;
using numabind::config::kRankVars;
using numabind::config::LocalRankCount;
using numabind::config::LocalRankCountSource;
using numabind::config::ParseTaskCounts;

namespace {

uint32_t Count(const char* value, uint32_t node) {
  uint32_t out = 12345;
  cr_assert(ParseTaskCounts(value, node, &out), "%s node %u: expected a count", value, node);
  return out;
}

void NotACount(const char* value, uint32_t node = 0) {
  uint32_t out = 12345;
  cr_assert_not(ParseTaskCounts(value, node, &out), "%s node %u: parsed as %u", value, node, out);
  cr_assert_eq(out, 12345u, "%s: *out written on failure", value);
}

using numabind::config::testing::Env;

int Index(const char* rank_var) {
  for (int i = 0; i < kRankVarCount; ++i) {
    if (std::string(kRankVars[i].rank) == rank_var) return i;
  }
  cr_assert_fail("%s is not a built-in rank variable", rank_var);
  return -1;
}

uint32_t Slurm(std::vector<std::string> vars) {
  return LocalRankCount(Env(std::move(vars)).get(), Index("SLURM_LOCALID"));
}

}  // namespace

Test(task_counts, plain_and_compressed) {
  cr_expect_eq(Count("4", 0), 4u);
  cr_expect_eq(Count("4(x2)", 0), 4u);
  cr_expect_eq(Count("4(x2)", 1), 4u);
  // 2,2,2,1
  cr_expect_eq(Count("2(x3),1", 0), 2u);
  cr_expect_eq(Count("2(x3),1", 2), 2u);
  cr_expect_eq(Count("2(x3),1", 3), 1u);
  // 3,1,1,5,5
  const char* mixed = "3,1(x2),5(x2)";
  uint32_t want[] = {3, 1, 1, 5, 5};
  for (uint32_t n = 0; n < 5; ++n) cr_expect_eq(Count(mixed, n), want[n], "node %u", n);
  cr_expect_eq(Count("1048576", 0), 1u << 20);
}

Test(task_counts, past_the_last_node) {
  NotACount("4(x2)", 2);
  NotACount("2(x3),1", 4);
  NotACount("4", 1);
}

Test(task_counts, malformed) {
  for (const char* bad : {"", "x", "4(x)", "4(2)", "4(x2", "4(x0)", "0", "0(x2)", "4,", ",4", "4(x2),", "4 ",
                          " 4", "4(x2)(x3)", "-1", "4x2", "1048577", "4(x99999999999)", "2(x3);1"}) {
    NotACount(bad);
  }
  uint32_t out = 0;
  cr_assert_not(ParseTaskCounts(nullptr, 0, &out));
}

Test(task_counts, a_huge_repeat_reaches_far_nodes) {
  cr_expect_eq(Count("2(x4294967295)", 4000000000u), 2u);
  cr_expect_eq(Count("2(x4294967295),7", 4294967295u), 7u);  // the index is counted in 64 bits
}

Test(local_rank_count, slurm_step_entry_by_node_id) {
  cr_expect_eq(Slurm({"SLURM_STEP_TASKS_PER_NODE=2(x3),1", "SLURM_NODEID=3"}), 1u);
  cr_expect_eq(Slurm({"SLURM_STEP_TASKS_PER_NODE=2(x3),1", "SLURM_NODEID=1"}), 2u);
  cr_expect_eq(Slurm({"SLURM_STEP_TASKS_PER_NODE=2(x3),1"}), 2u, "no SLURM_NODEID: node 0");
  cr_expect_eq(Slurm({"SLURM_STEP_TASKS_PER_NODE=2(x3),1", "SLURM_NODEID=4"}), 0u, "past the list: unknown");
  cr_expect_eq(Slurm({"SLURM_STEP_TASKS_PER_NODE=2(x3),1", "SLURM_NODEID=one"}), 0u);
}

Test(local_rank_count, step_counts_before_the_jobs) {
  // Ranks of an mpirun inside a step, or a step within a job: the step's own counts describe this step.
  cr_expect_eq(Slurm({"SLURM_TASKS_PER_NODE=8(x2)", "SLURM_STEP_TASKS_PER_NODE=3(x2)"}), 3u);
  cr_expect_eq(Slurm({"SLURM_TASKS_PER_NODE=8(x2)"}), 8u);
  Env env({"SLURM_TASKS_PER_NODE=8(x2)", "SLURM_STEP_TASKS_PER_NODE=3(x2)"});
  cr_expect_str_eq(LocalRankCountSource(env.get(), Index("SLURM_LOCALID")), "SLURM_STEP_TASKS_PER_NODE");
  // SLURM_NTASKS_PER_NODE is the request (only with --ntasks-per-node), not what runs here.
  cr_expect_eq(Slurm({"SLURM_NTASKS_PER_NODE=4(x2)"}), 0u);
  cr_expect_eq(Slurm({}), 0u);
}

Test(local_rank_count, other_launchers_take_plain_numbers) {
  int local = Index("LOCAL_RANK");
  cr_expect_eq(LocalRankCount(Env({"LOCAL_WORLD_SIZE=8"}).get(), local), 8u);
  cr_expect_eq(LocalRankCount(Env({"LOCAL_WORLD_SIZE=4(x2)"}).get(), local), 0u);
  cr_expect_eq(LocalRankCount(Env({"LOCAL_WORLD_SIZE=0"}).get(), local), 0u);
  cr_expect_eq(LocalRankCount(Env({"LOCAL_WORLD_SIZE=abc"}).get(), local), 0u);
  cr_expect_eq(LocalRankCount(Env({}).get(), local), 0u);
  cr_expect_eq(
      LocalRankCount(Env({"OMPI_COMM_WORLD_LOCAL_SIZE=3"}).get(), Index("OMPI_COMM_WORLD_LOCAL_RANK")), 3u);
  cr_expect_eq(LocalRankCount(Env({"FLUX_TASK_LOCAL_ID=1"}).get(), Index("FLUX_TASK_LOCAL_ID")), 0u,
               "no size variable");
  cr_expect_null(LocalRankCountSource(Env({}).get(), Index("FLUX_TASK_LOCAL_ID")));
  cr_expect_eq(LocalRankCount(Env({"LOCAL_WORLD_SIZE=8"}).get(), -1), 0u);
  cr_expect_eq(LocalRankCount(Env({"LOCAL_WORLD_SIZE=8"}).get(), kRankVarCount), 0u);
}

Test(bound, known_and_kept_whole) {
  Env env({"NUMABIND_BOUND=LOCAL_RANK=1", "NUMABIND_POLICY=node"});
  numabind::config::Config c;
  numabind::config::Error err;
  cr_assert(numabind::config::Parse(env.get(), &c, &err), "%s", err.text);
  cr_expect_str_eq(c.bound, "LOCAL_RANK=1");
  Env none({"NUMABIND_POLICY=node"});
  cr_assert(numabind::config::Parse(none.get(), &c, &err));
  cr_expect_null(c.bound);
}

// The start-up's one pass (config::ScanEnvFacts): every fact the rank decision and the local count read,
// the first entry of a name as Lookup finds it, and NUMABIND_* entries collected for Parse.
Test(env_facts, one_pass_holds_what_the_rank_needs) {
  auto env = Env({"PATH=/bin", "NUMABIND_POLICY=node", "SLURM_LOCALID=1", "LOCAL_RANK=3", "LOCAL_RANK=9",
                  "LOCAL_WORLD_SIZE=4", "SLURM_STEP_ID=0", "SLURM_STEP_TASKS_PER_NODE=2(x3)",
                  "SLURM_NODEID=2", "NUMABIND_LOG=info", "SLURM_TASKS_PER_NODE=5"});
  numabind::config::EnvFacts f;
  const char* ours[4];
  numabind::config::ScanEnvFacts(env.get(), &f, ours, 4);
  cr_expect_eq(f.count, 11u);
  cr_assert_eq(f.ours_count, 2);
  cr_expect_str_eq(ours[0], "NUMABIND_POLICY=node");
  cr_expect_str_eq(ours[1], "NUMABIND_LOG=info");
  cr_expect_null(ours[2]);
  cr_expect_str_eq(f.rank[0], "3", "the first LOCAL_RANK, as getenv finds it");
  cr_expect_str_eq(f.size[0], "4");
  cr_expect_str_eq(f.rank[numabind::config::kSlurmRankVar], "1");
  cr_expect_str_eq(f.slurm_step_id, "0");
  cr_expect_str_eq(f.slurm_node_id, "2");
  cr_expect_eq(LocalRankCount(f, 0), 4u);
  cr_expect_eq(LocalRankCount(f, numabind::config::kSlurmRankVar), 2u, "the step's counts, node 2");
  const char* value = nullptr;
  cr_expect_str_eq(LocalRankCountSource(f, numabind::config::kSlurmRankVar, &value),
                   "SLURM_STEP_TASKS_PER_NODE");
  cr_expect_str_eq(value, "2(x3)");
  for (int i = 1; i < kRankVarCount - 1; ++i) cr_expect_null(f.rank[i], "%s", kRankVars[i].rank);
}

// More NUMABIND_* entries than `ours` holds: the first are collected, and all counted, so that the caller
// knows to read the environment itself (issue 38: NUMABIND_POLICY after 45 unknown names was lost).
Test(env_facts, every_numabind_entry_is_counted) {
  auto env = Env({"NUMABIND_A=1", "PATH=/bin", "NUMABIND_B=2", "NUMABIND_C=3", "NUMABIND_POLICY=node"});
  numabind::config::EnvFacts f;
  const char* ours[3];
  numabind::config::ScanEnvFacts(env.get(), &f, ours, 3);
  cr_expect_eq(f.ours_count, 4);
  cr_expect_str_eq(ours[0], "NUMABIND_A=1");
  cr_expect_str_eq(ours[1], "NUMABIND_B=2");
  cr_expect_null(ours[2]);
}

// NUMABIND_RANK_VAR's variable, when the caller knows its name before the pass (a launcher's child side):
// read in the same pass, the first entry of the name as Lookup finds it, and not a prefix of a longer name.
Test(env_facts, named_variable_read_in_the_same_pass) {
  auto env = Env({"MY_RANKX=7", "PATH=/bin", "MY_RANK=2", "MY_RANK=5", "LOCAL_RANK=3"});
  numabind::config::EnvFacts f;
  numabind::config::ScanEnvFacts(env.get(), &f, nullptr, 0, "MY_RANK");
  cr_assert_not_null(f.named);
  cr_expect_str_eq(f.named, "2");
  cr_expect_str_eq(f.rank[0], "3");
  numabind::config::ScanEnvFacts(env.get(), &f, nullptr, 0, "NO_SUCH_RANK");
  cr_expect_null(f.named);
  numabind::config::ScanEnvFacts(env.get(), &f);
  cr_expect_null(f.named, "not asked for");
}
