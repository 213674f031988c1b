// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// numabind against torch/numa/binding.py where torch's own tests (torch_parity_test.cc) do not reach:
// expected CPU lists worked out by hand from binding.py, on hardware rebuilt as in torch_parity_util.h.
// The differs_* tests pin where numabind deliberately differs from torch (planner.h, issue 2), with
// torch's result in the comment.

#include <criterion/criterion.h>

#include <string>

#include "tests/cli/torch_parity_util.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using namespace numabind::testing;

// test_raises_if_binding_to_empty_set: torch refuses an empty CPU set. GPU 1's node 1 (CPUs 2-3) has no
// allowed CPU when the affinity is {0,1}: torch raises for rank 1, numabind gives rank 1 an error.
Test(torch_parity, empty_binding_is_an_error) {
  MockMachine m = TorchMockHardware(2, 1, 1, 1, 1);
  m.allowed = {0, 1};
  MockXmlFile xml(m);
  Prepared p(xml, "node");
  ExpectRank(p, 0, 2, "0-1", "0");
  RankText t = p.Rank(1, 2);
  cr_assert(!t.ok, "rank 1 was placed on %s; torch raises", t.cpus.c_str());
  cr_assert(t.error.find("rank 1") != std::string::npos, "%s", t.error.c_str());
}

// torch's GPU index counts the GPUs CUDA sees, so with CUDA_VISIBLE_DEVICES=1,2,3 on
// test_exclusive_numa_binding's machine GPU 0 is physical GPU 1, alone on node 0 (all of CPUs 0-5), and
// node 1's physical GPUs 2 and 3 are torch's GPUs 1 and 2 (6-9 and 10-11). Worked out from binding.py.
Test(torch_parity, exclusive_counts_visible_gpus) {
  MockXmlFile xml(TorchMockHardware(2, 1, 2, 1, 3));
  const char* const env[] = {"CUDA_VISIBLE_DEVICES=1,2,3", nullptr};
  Prepared p(xml, "exclusive", env);
  RankText t = p.Rank(0, 3);
  STR_EQ(t.device, TorchBusId(1));
  STR_EQ(t.cpus, "0-5");
  STR_EQ(p.Rank(1, 3).device, TorchBusId(2));
  STR_EQ(p.All(3), "0-5 | 6-9 | 10-11");
}

// ---- binding.py beyond its tests: one node, SMT siblings numbered apart (core k = CPUs k and k+4, as most
// x86 servers number them) and two L3s that interleave (L3 A = cores 0 and 2, L3 B = cores 1 and 3).

namespace {

MockMachine SplitSiblings(int gpus) {
  MockMachine m;
  MockMachine::Node n;
  n.l3s = {MockMachine::L3{{{{0, 4}}, {{2, 6}}}}, MockMachine::L3{{{{1, 5}}, {{3, 7}}}}};
  for (int i = 0; i < gpus; ++i) n.gpus.push_back(TorchBusId(i));
  m.packages = {MockMachine::Package{{n}}};
  return m;
}

}  // namespace

// exclusive keys each physical core by min(thread_siblings_list) and slices cores in that order, each with
// all its allowed siblings: GPU 0 gets cores 0 and 1 = CPUs 0,1,4,5.
Test(torch_parity, exclusive_keeps_siblings_numbered_apart) {
  MockXmlFile xml(SplitSiblings(2));
  Prepared p(xml, "exclusive");
  ExpectRank(p, 0, 2, "0-1,4-5", "0");
  ExpectRank(p, 1, 2, "2-3,6-7", "0");
}

// exclusive counts a core with only some threads allowed as a whole core (grouped from the allowed CPUs):
// allowed 0,1,2,4,5 = cores {0,4} {1,5} {2}: 3 cores for 2 GPUs.
Test(torch_parity, exclusive_counts_partly_allowed_cores) {
  MockMachine m = SplitSiblings(2);
  m.allowed = {0, 1, 2, 4, 5};
  MockXmlFile xml(m);
  Prepared p(xml, "exclusive");
  ExpectRank(p, 0, 2, "0-1,4-5", "0");
  ExpectRank(p, 1, 2, "2", "0");
}

// core-complex breaks ties by min(shared_cpu_list), the cache's lowest CPU allowed or not: with allowed
// {1,2} both L3s have one CPU, L3 A (lowest CPU 0) wins over L3 B (lowest 1), so the GPU gets CPU 2, not 1.
Test(torch_parity, core_complex_tiebreak_uses_the_whole_cache) {
  MockMachine m = SplitSiblings(1);
  m.allowed = {1, 2};
  MockXmlFile xml(m);
  Prepared p(xml, "core-complex");
  ExpectRank(p, 0, 1, "2", "0");
}

Test(torch_parity, core_complex_interleaved_caches) {
  MockXmlFile xml(SplitSiblings(2));
  Prepared p(xml, "core-complex");
  ExpectRank(p, 0, 2, "0,2,4,6", "0");
  ExpectRank(p, 1, 2, "1,3,5,7", "0");
}

// ---- where numabind deliberately differs from torch (planner.h, issue 2); these pin numabind's choice.

// torch reads numa_node -1 as node 0 (test_binds_to_node_0_if_node_stored_as_minus_one) and would bind
// this GPU's rank to node 0's CPUs 0-1. numabind counts unknown locality as near every node: CPUs 0-3.
Test(torch_parity, differs_unknown_locality_is_every_node) {
  MockMachine m = TorchMockHardware(2, 1, 0, 1, 1);
  m.unlocated_gpus = {TorchBusId(0)};
  MockXmlFile xml(m);
  Prepared p(xml, "node");
  ExpectRank(p, 0, 1, "0-3", "0-1");
}

// torch divides a node's cores among all GPUs on the node, whether or not a rank drives them: with
// `--nproc-per-node 3` on test_exclusive_numa_binding's machine, rank 2 (GPU 2, node 1, whose GPU 3 has
// no rank) gets 6-9 and CPUs 10-11 stay idle. numabind divides among the ranks sharing the node: 6-11.
// With one rank per GPU (torchrun's default) both agree (exclusive_numa_binding above).
Test(torch_parity, differs_exclusive_divides_among_ranks_not_gpus) {
  MockXmlFile xml(TorchMockHardware(2, 1, 2, 1, 3));
  Prepared p(xml, "exclusive");
  ExpectRank(p, 0, 3, "0-3", "0");
  ExpectRank(p, 1, 3, "4-5", "0");
  ExpectRank(p, 2, 3, "6-11", "1");
}
