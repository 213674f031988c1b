// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Machines that broke the planner (issue 17): GPUs near nodes without allowed CPUs, a cgroup whose CPUs
// and memory are on different nodes, allowed CPUs outside every NUMA node, an XML file of a newer hwloc.
// The files are in tests/data/topologies (16synth-*: made from hwloc synthetic descriptions, see its
// README.md).

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "plan/plan_auto.h"
#include "planner/planner.h"
#include "planner/topology.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::kPolicies;
using numabind::testing::Load;
using numabind::testing::PlanAll;
using numabind::testing::PrepareOn;
using numabind::testing::RankText;
using numabind::testing::TopologyFile;

namespace {

CpuSet Cpus(const std::string& list) {
  CpuSet s;
  std::string err;
  CpuSet::ParseList(list.c_str(), &s, &err);
  return s;
}

// What auto says rank r of n got (FormatAutoShare).
std::string ShareText(const PlanBasis& b, uint32_t r, uint32_t n) {
  std::vector<uint64_t> cpus(b.cpu_words), nodes(b.node_words);
  RankPlan plan;
  plan.cpus = cpus.data(), plan.nodes = nodes.data();
  ComputeRankPlan(b, r, n, &plan);
  char text[96];
  FormatAutoShare(b, plan.share, text, sizeof text);
  return text;
}

}  // namespace

// 2 nodes of 4 cores x 2 threads; two NVIDIA GPUs near node 1, whose CPUs the allowed set leaves out. auto
// plans the CPUs it may use as without devices instead of failing (and packing no units read a null array:
// UBSan's "null pointer passed as argument 2" in plan_pack.cc's memcpy, under make asan-build).
Test(robustness, auto_falls_back_to_cpus_when_gpus_sit_near_no_allowed_cpu) {
  Topology t = Load(TopologyFile("16synth-2n4c2t-gpus-near-disallowed.xml"), true);
  STR_EQ(t.allowed.ToList(), "0-7");
  Basis b;
  PrepareOn(t, "auto", &b, "auto");
  cr_assert(b.basis, "%s", b.error.c_str());
  for (uint32_t n : {1u, 2u, 3u, 8u, 20u}) {
    CpuSet used;
    for (const RankText& r : PlanAll(*b.basis, n)) {
      cr_assert(r.ok, "%u ranks: %s", n, r.error.c_str());
      cr_assert(Cpus(r.cpus).IsSubsetOf(t.allowed) && !r.cpus.empty(), "%u ranks: cpus %s", n,
                r.cpus.c_str());
      STR_EQ(r.nodes, "0");
      STR_EQ(r.device, "");  // planned as without devices: the GPUs are out of reach
      used.UnionWith(Cpus(r.cpus));
    }
    if (n >= 8) STR_EQ(used.ToList(), "0-7");
  }
}

// A cgroup with the CPUs of node 0 and the memory of node 1 (cpuset.cpus 0-7, cpuset.mems 1): every policy
// places the ranks on CPUs 0-7 with memory on node 1, the only node they may allocate from, never an empty
// node set (set_mempolicy would fail) nor "node 4294967295" in what it says.
Test(robustness, cgroup_with_cpus_of_one_node_and_memory_of_another) {
  Topology t = Load(TopologyFile("16synth-2n4c2t-cgroup-cpus0-mems1.xml"));
  STR_EQ(t.allowed.ToList(), "0-7");
  STR_EQ(t.allowed_nodes.ToList(), "1");
  for (const char* policy : kPolicies) {
    for (const char* memory : {"local", "bind"}) {
      Basis b;
      PrepareOn(t, policy, &b, "none", memory);
      cr_assert(b.basis, "%s: %s", policy, b.error.c_str());
      for (uint32_t n : {1u, 2u, 4u}) {
        for (uint32_t q = 0; q < n; ++q) {
          std::string share = ShareText(*b.basis, q, n);
          cr_assert(share.find("4294967295") == std::string::npos, "%s: %s", policy, share.c_str());
        }
        for (const RankText& r : PlanAll(*b.basis, n)) {
          cr_assert(r.ok, "%s, %u ranks: %s", policy, n, r.error.c_str());
          cr_assert(Cpus(r.cpus).IsSubsetOf(t.allowed), "%s: cpus %s", policy, r.cpus.c_str());
          STR_EQ(r.nodes, "1");
          cr_assert(r.label.find("4294967295") == std::string::npos, "%s: %s", policy, r.label.c_str());
        }
      }
    }
  }
}

// 16amd64-8n2c-cpusets.xml: 10 allowed CPUs, of which 0-1 and 12-15 are in no NUMA node of the file. auto
// uses them all: 8 ranks never share a CPU, 10 ranks take one CPU each.
Test(robustness, auto_uses_allowed_cpus_outside_every_node) {
  Topology t = Load(TopologyFile("16amd64-8n2c-cpusets.xml"));
  STR_EQ(t.allowed.ToList(), "0-3,5-6,12-15");
  Basis b;
  PrepareOn(t, "auto", &b);
  cr_assert(b.basis, "%s", b.error.c_str());
  for (uint32_t n : {8u, 10u}) {
    CpuSet used;
    std::vector<RankText> ranks = PlanAll(*b.basis, n);
    for (uint32_t r = 0; r < n; ++r) {
      cr_assert(ranks[r].ok, "%u ranks: %s", n, ranks[r].error.c_str());
      CpuSet mine = Cpus(ranks[r].cpus);
      cr_assert(!mine.Intersects(used), "%u ranks: rank %u's %s overlaps %s", n, r, ranks[r].cpus.c_str(),
                used.ToList().c_str());
      cr_assert(!ranks[r].nodes.empty(), "%u ranks: rank %u without nodes", n, r);
      used.UnionWith(mine);
    }
    if (n == 10) STR_EQ(used.ToList(), "0-3,5-6,12-15");
  }
}

// An XML file of hwloc 3 (format version 3.0): the error says so and how to export one this hwloc reads.
Test(robustness, newer_xml_format_is_named) {
  Topology t;
  std::string err;
  std::string path = TopologyFile("newer/16synth-2n4c2t-hwloc3.xml");
  cr_assert(!LoadTopology(path.c_str(), LoadOptions(), &t, &err));
  cr_assert(err.find("hwloc XML version 3.0") != std::string::npos, "%s", err.c_str());
  cr_assert(err.find("lstopo --of v2xml") != std::string::npos, "%s", err.c_str());
}
