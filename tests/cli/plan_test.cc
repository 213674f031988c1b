// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan`, run as a command: tables and JSON on synthetic and real machines' topologies, options
// and their NUMABIND_* defaults, how many ranks, errors and exit statuses.

#include "tests/cli/cli_util.h"
#include "tests/cli/plan_topologies.h"

using numabind::test::CountLines;
using numabind::test::kFourNodes;
using numabind::test::kTwoPackages;
using numabind::test::RealTopology;
using numabind::test::Result;
using numabind::test::Run;

Test(plan, node_policy_table) {
  Result r = Run({"plan", "--topology", kTwoPackages, "--policy", "node", "--ranks", "4"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "4 ranks, policy node, memory local\n"
               "rank  device  nodes  cpus  memory\n"
               "0     -       0      0-1   local\n"
               "1     -       0      0-1   local\n"
               "2     -       1      2-3   local\n"
               "3     -       1      2-3   local\n");
  cr_assert_str_empty(r.err.c_str());
}

// --smt 1 (NUMABIND_SMT): one hardware thread of each core; the heading says so.
Test(plan, smt_keeps_one_thread_per_core) {
  Result r = Run({"plan", "--topology", "synthetic:pack:2 core:2 pu:2", "--policy", "exclusive", "--ranks",
                  "2", "--smt", "1"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "2 ranks, policy exclusive, memory local, at most 1 thread per core\n"
               "rank  device  nodes  cpus  memory\n"
               "0     -       0      0,2   local\n"
               "1     -       0      4,6   local\n");
  Result bad = Run({"plan", "--smt", "0"});
  cr_expect_eq(bad.status, 2);
  EXPECT_STREQ(bad.err, "numabind plan: --smt 0: expected hardware threads per core, 1 to 8\n");
}

// Core kinds: a line names them, a column each rank's; --core-kinds all turns them off.
Test(plan, shows_core_kinds) {
  const std::string file = "tests/data/topologies/kinds/4synth-1n4c-2e2p-cpukinds.xml";
  Result r = Run({"plan", "--topology", file, "--policy", "exclusive", "--ranks", "3"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "3 ranks, policy exclusive, memory local\n"
               "core kinds: CPUs 2-3 the fastest, 0-1 the others; ranks take the fastest first "
               "(NUMABIND_CORE_KINDS=all: every core alike)\n"
               "rank  device  nodes  cpus  memory  kind\n"
               "0     -       0      2-3   local   fastest\n"  // 4 cores for 3: the fastest go first
               "1     -       0      0     local   other\n"
               "2     -       0      1     local   other\n");
  Result all =
      Run({"plan", "--topology", file, "--policy", "exclusive", "--ranks", "2", "--core-kinds", "all"});
  EXPECT_STREQ(all.out.c_str(),
               "2 ranks, policy exclusive, memory local, every core kind alike\n"
               "rank  device  nodes  cpus  memory\n"
               "0     -       0      0-1   local\n"
               "1     -       0      2-3   local\n");
}

// auto takes the fastest kind first too; --draw ends with the kinds' line.
Test(plan, auto_and_draw_show_core_kinds) {
  const std::string file = "tests/data/topologies/kinds/4synth-1n4c-2e2p-cpukinds.xml";
  Result r = Run({"plan", "--topology", file, "--policy", "auto", "--ranks", "2", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_expect(r.out.find("\"rank\":0,\"device\":\"\",\"devices\":[],\"nodes\":\"0\",\"cpus\":\"2\"") !=
                std::string::npos,
            "%s", r.out.c_str());
  cr_expect(r.out.find("\"rank\":1,\"device\":\"\",\"devices\":[],\"nodes\":\"0\",\"cpus\":\"3\"") !=
                std::string::npos,
            "%s", r.out.c_str());
  cr_expect(r.out.find("\"kind\":\"fastest\"", r.out.find("\"rank\":1")) != std::string::npos, "%s",
            r.out.c_str());
  cr_expect(r.out.find("cache domain kept whole, the fastest core kind only\"") != std::string::npos, "%s",
            r.out.c_str());
  Result d = Run({"plan", "--topology", file, "--policy", "auto", "--ranks", "2", "--draw"});
  cr_assert_eq(d.status, 0, "%s", d.err.c_str());
  const std::string last =
      "core kinds: CPUs 2-3 the fastest, 0-1 the others; ranks take the fastest first "
      "(NUMABIND_CORE_KINDS=all: every core alike)\n";
  cr_expect(d.out.size() > last.size() && d.out.compare(d.out.size() - last.size(), last.size(), last) == 0,
            "%s", d.out.c_str());
}

Test(plan, node_policy_json) {
  Result r = Run({"plan", "--topology", kTwoPackages, "--policy", "node", "--ranks", "4", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(
      r.out.c_str(),
      "[\n"
      "  {\"rank\":0,\"device\":\"\",\"devices\":[],\"nodes\":\"0\",\"cpus\":\"0-1\",\"memory\":\"local\"},\n"
      "  {\"rank\":1,\"device\":\"\",\"devices\":[],\"nodes\":\"0\",\"cpus\":\"0-1\",\"memory\":\"local\"},\n"
      "  {\"rank\":2,\"device\":\"\",\"devices\":[],\"nodes\":\"1\",\"cpus\":\"2-3\",\"memory\":\"local\"},\n"
      "  {\"rank\":3,\"device\":\"\",\"devices\":[],\"nodes\":\"1\",\"cpus\":\"2-3\",\"memory\":\"local\"}\n"
      "]\n");
}

Test(plan, options_with_equals) {
  Result a = Run({"plan", "--topology=" + std::string(kTwoPackages), "--policy=node", "--ranks=4"});
  Result b = Run({"plan", "--topology", kTwoPackages, "--policy", "node", "--ranks", "4"});
  cr_assert_eq(a.status, 0, "%s", a.err.c_str());
  EXPECT_STREQ(a.out.c_str(), b.out.c_str());
}

Test(plan, defaults_come_from_the_variables) {
  Result r = Run({"plan"}, {"NUMABIND_TOPOLOGY=" + std::string(kTwoPackages), "NUMABIND_POLICY=cpus:3|1-2",
                            "NUMABIND_NRANKS=3", "NUMABIND_MEMORY=bind"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  // The heading says where the policy came from.
  EXPECT_STREQ(r.out.c_str(),
               "3 ranks, policy cpus:3|1-2 (from NUMABIND_POLICY), memory bind\n"
               "rank  device  nodes  cpus  memory\n"
               "0     -       1      3     bind\n"
               "1     -       0-1    1-2   bind\n"
               "2     -       1      3     bind\n");
}

Test(plan, options_beat_the_variables) {
  Result r = Run({"plan", "--policy", "nodes:1|0", "--memory", "interleave"},
                 {"NUMABIND_TOPOLOGY=" + std::string(kTwoPackages), "NUMABIND_POLICY=cpus:3|1-2",
                  "NUMABIND_NRANKS=2", "NUMABIND_MEMORY=bind"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "2 ranks, policy nodes:1|0, memory interleave\n"
               "rank  device  nodes  cpus  memory\n"
               "0     -       1      2-3   interleave\n"
               "1     -       0      0-1   interleave\n");
}

// Issue 36: near and weighted show each rank's node with its socket's memory-only nodes, and say when a
// machine has none.
Test(plan, near_and_weighted_memory) {
  Result r = Run({"plan", "--topology", RealTopology("hwloc/fakeheteromemtiers.xml"), "--policy", "node",
                  "--ranks", "3", "--memory", "near"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "3 ranks, policy node, memory near\n"
               "rank  device  nodes  cpus  memory\n"
               "0     -       0,8    0-1   near\n"
               "1     -       1,4,6  2-3   near\n"
               "2     -       2,9    4-5   near\n");
  r = Run({"plan", "--topology", kTwoPackages, "--policy", "node", "--ranks", "2", "--memory", "weighted"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "2 ranks, policy node, memory weighted (no memory-only node on this machine: the ranks' own "
               "nodes)\n"
               "rank  device  nodes  cpus  memory\n"
               "0     -       0      0-1   weighted\n"
               "1     -       1      2-3   weighted\n");
}

Test(plan, disable_does_not_hide_the_plan) {
  Result r = Run({"plan", "--topology", kTwoPackages, "--policy", "nodes:1", "--ranks", "1"},
                 {"NUMABIND_DISABLE=1"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "1 rank, policy nodes:1, memory local\nrank  device  nodes  cpus  memory\n"
               "0     -       1      2-3   local\n");
}

Test(plan, default_policy_is_node_and_one_rank_per_node) {
  Result r = Run({"plan", "--topology", kFourNodes});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "4 ranks, policy node (the default; --policy to choose), memory local\n"
               "rank  device  nodes  cpus   memory\n"
               "0     -       0      0-3    local\n"
               "1     -       1      4-7    local\n"
               "2     -       2      8-11   local\n"
               "3     -       3      12-15  local\n");
}

Test(plan, ranks_from_the_launchers_local_size) {
  // A heading, a header and a line per rank.
  Result r = Run({"plan", "--topology", kFourNodes}, {"LOCAL_WORLD_SIZE=8"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_eq(CountLines(r.out), 10, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes}, {"OMPI_COMM_WORLD_LOCAL_SIZE=2"});
  cr_assert_eq(CountLines(r.out), 4, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes}, {"MPI_LOCALNRANKS=6", "SLURM_STEP_TASKS_PER_NODE=5"});
  cr_assert_eq(CountLines(r.out), 8, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes}, {"SLURM_STEP_TASKS_PER_NODE=5"});
  cr_assert_eq(CountLines(r.out), 7, "%s", r.out.c_str());
  // NUMABIND_NRANKS and --ranks come first.
  r = Run({"plan", "--topology", kFourNodes}, {"LOCAL_WORLD_SIZE=8", "NUMABIND_NRANKS=1"});
  cr_assert_eq(CountLines(r.out), 3, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes, "--ranks", "3"}, {"LOCAL_WORLD_SIZE=8", "NUMABIND_NRANKS=1"});
  cr_assert_eq(CountLines(r.out), 5, "%s", r.out.c_str());
  // A size that is not a positive number is not a size.
  r = Run({"plan", "--topology", kFourNodes}, {"LOCAL_WORLD_SIZE=abc"});
  cr_assert_eq(CountLines(r.out), 6, "%s", r.out.c_str());
}

// Slurm's compressed counts, this node's entry by SLURM_NODEID: the same function as the library's.
Test(plan, ranks_from_slurms_compressed_counts) {
  Result r = Run({"plan", "--topology", kFourNodes}, {"SLURM_STEP_TASKS_PER_NODE=3(x2)"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_expect_eq(CountLines(r.out), 5, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes}, {"SLURM_STEP_TASKS_PER_NODE=2(x3),6", "SLURM_NODEID=3"});
  cr_expect_eq(CountLines(r.out), 8, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes}, {"SLURM_STEP_TASKS_PER_NODE=2(x3),6", "SLURM_NODEID=2"});
  cr_expect_eq(CountLines(r.out), 4, "%s", r.out.c_str());
  // The step's counts before the job's; SLURM_NTASKS_PER_NODE (the request) is not read.
  r = Run({"plan", "--topology", kFourNodes}, {"SLURM_TASKS_PER_NODE=6", "SLURM_STEP_TASKS_PER_NODE=3(x2)"});
  cr_expect_eq(CountLines(r.out), 5, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes}, {"SLURM_TASKS_PER_NODE=6(x2)"});
  cr_expect_eq(CountLines(r.out), 8, "%s", r.out.c_str());
  r = Run({"plan", "--topology", kFourNodes}, {"SLURM_NTASKS_PER_NODE=3(x2)"});
  cr_expect_eq(CountLines(r.out), 6, "one rank per node: %s", r.out.c_str());
  // Not a count: not a size.
  r = Run({"plan", "--topology", kFourNodes}, {"SLURM_STEP_TASKS_PER_NODE=3(x2"});
  cr_expect_eq(CountLines(r.out), 6, "%s", r.out.c_str());
}

Test(plan, ranks_spread_in_blocks_over_nodes) {
  Result r = Run({"plan", "--topology", kFourNodes, "--ranks", "2", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(
      r.out.c_str(),
      "[\n"
      "  {\"rank\":0,\"device\":\"\",\"devices\":[],\"nodes\":\"0\",\"cpus\":\"0-3\",\"memory\":\"local\"},\n"
      "  {\"rank\":1,\"device\":\"\",\"devices\":[],\"nodes\":\"2\",\"cpus\":\"8-11\",\"memory\":\"local\"}\n"
      "]\n");
}

Test(plan, rank_that_cannot_be_placed) {
  Result r = Run({"plan", "--topology", "synthetic:pack:1 numa:1 core:2 pu:1", "--policy", "exclusive",
                  "--ranks", "3", "--json"});
  cr_assert_eq(r.status, 1);
  cr_assert(r.out.find("{\"rank\":2,\"error\":\"rank 2: policy exclusive: ") != std::string::npos, "%s",
            r.out.c_str());
  cr_assert_eq(r.out.find("\"cpus\""), std::string::npos, "%s", r.out.c_str());
  r = Run(
      {"plan", "--topology", "synthetic:pack:1 numa:1 core:2 pu:1", "--policy", "exclusive", "--ranks", "3"});
  cr_assert_eq(r.status, 1);
  cr_assert(r.out.find("\n2     error: rank 2: policy exclusive: ") != std::string::npos, "%s",
            r.out.c_str());
}

Test(plan, devices_from_a_real_machine) {
  std::string xml = RealTopology("24em64t-2n6c2t-pci.xml");
  Result r = Run({"plan", "--topology", xml, "--devices", "0000:11:00.0", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(
      r.out.c_str(),
      "[\n"
      "  {\"rank\":0,\"device\":\"0000:11:00.0\",\"devices\":[\"0000:11:00.0\"],\"nodes\":\"1\",\"cpus\":"
      "\"1,3,5,7,9,11,13,15,17,19,21,23\",\"memory\":\"local\"}\n"
      "]\n");
  r = Run({"plan", "--topology", xml, "--devices", "0000:06:00.0,0000:11:00.0"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "2 ranks, policy node (the default; --policy to choose), memory local\n"
               "rank  device        nodes  cpus                            memory\n"
               "0     0000:06:00.0  0      0,2,4,6,8,10,12,14,16,18,20,22  local\n"
               "1     0000:11:00.0  1      1,3,5,7,9,11,13,15,17,19,21,23  local\n");
}

Test(plan, topology_that_cannot_be_read) {
  Result r = Run({"plan", "--topology", "/nonexistent/machine.xml"});
  cr_assert_eq(r.status, 1);
  cr_assert_str_empty(r.out.c_str());
  cr_assert(r.err.rfind("numabind plan: ", 0) == 0, "%s", r.err.c_str());
  cr_assert_eq(CountLines(r.err), 1, "%s", r.err.c_str());
}

Test(plan, bad_option_values_name_the_option) {
  Result r = Run({"plan", "--memory", "fast"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(
      r.err.c_str(),
      "numabind plan: --memory fast: expected local, preferred, bind, interleave, near or weighted\n");
  cr_assert_str_empty(r.out.c_str());
  r = Run({"plan", "--ranks", "0"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind plan: --ranks 0: expected a positive integer up to 1048576\n");
  r = Run({"plan", "--policy", "cpus:3-1"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind plan: --policy cpus:3-1: entry 1 (3-1): range 3-1 goes down\n");
  r = Run({"plan", "--policy", "cpus:1-0"});  // down by one is down too
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind plan: --policy cpus:1-0: entry 1 (1-0): range 1-0 goes down\n");
}

Test(plan, bad_variables_name_the_variable) {
  Result r = Run({"plan"}, {"NUMABIND_MEMORY=fast"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(
      r.err.c_str(),
      "numabind plan: NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted\n");
}

Test(plan, an_unknown_name_is_said_and_ignored_as_the_library_ignores_it) {
  Result r = Run({"plan", "--topology", "synthetic:numa:2 core:2 pu:1"}, {"NUMABIND_POLCY=socket"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.err.c_str(),
               "numabind plan: NUMABIND_POLCY is not a numabind variable (did you mean NUMABIND_POLICY?); "
               "ignored\n");
  cr_expect(r.out.find("policy node (the default") != std::string::npos, "%s", r.out.c_str());
}

Test(plan, bad_usage) {
  Result r = Run({"plan", "--rank", "3"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind plan: unknown option --rank (did you mean --ranks?)\n");
  r = Run({"plan", "--frobnicate"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(),
               "numabind plan: unknown option --frobnicate (numabind plan --help lists the options)\n");
  r = Run({"plan", "--ranks"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind plan: --ranks needs a value (--ranks N)\n");
  r = Run({"plan", "--json=yes"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind plan: --json takes no value\n");
  r = Run({"plan", "extra"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(),
               "numabind plan: unexpected argument extra (numabind plan --help lists the options)\n");
}

Test(plan, this_machine) {
  // Whatever this machine is, every rank gets CPUs within what this process may use.
  Result r = Run({"plan", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.find("\"rank\":0,") != std::string::npos, "%s", r.out.c_str());
}

// Under auto with fewer ranks than devices a rank drives a block of devices: the JSON names every one
// (`devices`), as the table's "+N" counts them; `device` stays the block's first, for programs that read it.
Test(plan, json_names_every_device_of_a_block) {
  std::string xml = RealTopology("8em64t-2n2c2t-4gpu-multirail.xml");
  Result r = Run({"plan", "--topology", xml, "--policy", "auto", "--ranks", "2", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_expect(
      r.out.find("\"rank\":0,\"device\":\"0000:03:00.0\",\"devices\":[\"0000:03:00.0\",\"0000:07:00.0\"]") !=
          std::string::npos,
      "%s", r.out.c_str());
  cr_expect(
      r.out.find("\"rank\":1,\"device\":\"0000:83:00.0\",\"devices\":[\"0000:83:00.0\",\"0000:87:00.0\"]") !=
          std::string::npos,
      "%s", r.out.c_str());
}
