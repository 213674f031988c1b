// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_POLICY=auto (plan/plan_auto.h). Hand-computed CPU sets on synthetic machines, where PUs are
// numbered in order: in "pack:2 numa:2 l3:2 core:4 pu:2" node n holds CPUs 16n..16n+15, its L3s
// 16n..16n+7 and 16n+8..16n+15, core c the CPUs 2c and 2c+1. Then invariants on every hwloc XML file of
// tests/data/topologies and on synthetic machines, with and without devices, for 1 to many ranks: every
// rank placed, on allowed CPUs of nodes that have CPUs (never a memory-only node), node-local to its device,
// exclusive while ranks do not outnumber the CPUs they share.

#include <criterion/criterion.h>
#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/grammar.h"
#include "plan/plan_auto.h"
#include "plan/rank_env.h"
#include "planner/plan_auto_describe.h"
#include "planner/planner.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::Gpu;
using numabind::testing::Load;
using numabind::testing::PlanAll;
using numabind::testing::PlanRank;
using numabind::testing::PrepareOn;
using numabind::testing::RankText;
using numabind::testing::TopologyDir;

namespace {

const char kT64[] = "synthetic:pack:2 numa:2 l3:2 core:4 pu:2";

std::string Join(const PlanBasis& b, uint32_t n, bool nodes = false) {
  std::string s;
  for (const RankText& t : PlanAll(b, n))
    s += (s.empty() ? "" : " | ") + (t.ok ? (nodes ? t.nodes : t.cpus) : "!" + t.error);
  return s;
}

// GPUs near the given nodes (bus ids 0000:01:00.0, 0000:02:00.0, ...), as layout A of the qemu guest has.
Topology WithGpus(const char* spec, std::vector<int> nodes) {
  Topology t = Load(spec);
  int i = 0;
  for (int n : nodes) {
    char id[32];
    snprintf(id, sizeof id, "0000:%02x:00.0", ++i);
    t.pci.push_back(Gpu(id, n));
  }
  t.io_loaded = true;
  return t;
}

void Prepare(const Topology& t, const char* devices, Basis* b) {
  PrepareOn(t, "auto", b, devices);
  cr_assert(b->basis, "prepare failed on %s: %s", t.source.c_str(), b->error.c_str());
}

std::string Shares(const PlanBasis& b, uint32_t n) {
  std::string s;
  for (uint32_t r = 0; r < n; ++r) {
    std::vector<uint64_t> cpus(b.cpu_words), nodes(b.node_words);
    RankPlan plan;
    plan.cpus = cpus.data(), plan.nodes = nodes.data();
    ComputeRankPlan(b, r, n, &plan);
    char text[96];
    FormatAutoShare(b, plan.share, text, sizeof text);
    s += (s.empty() ? "" : " | ") + std::string(text);
  }
  return s;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string Decision(const PlanBasis& b, uint32_t n) {
  std::vector<AutoShare> shares;
  for (uint32_t r = 0; r < n; ++r) {
    std::vector<uint64_t> cpus(b.cpu_words), nodes(b.node_words);
    RankPlan plan;
    plan.cpus = cpus.data(), plan.nodes = nodes.data();
    if (ComputeRankPlan(b, r, n, &plan)) shares.push_back(plan.share);
  }
  return DescribeAuto(b, n, shares);
}

NodeSet Nodes(const RankText& r) {
  NodeSet s;
  std::string err;
  NodeSet::ParseList(r.nodes.c_str(), &s, &err);
  return s;
}

}  // namespace

// ---- hand-computed ----

Test(auto_policy, spreads_without_devices) {
  Basis b;
  Prepare(Load(kT64), "none", &b);
  STR_EQ(Join(*b.basis, 1), "0-63");
  STR_EQ(Join(*b.basis, 1, true), "0-3");
  STR_EQ(Join(*b.basis, 2), "0-31 | 32-63");  // fewer ranks than nodes: blocks of whole nodes
  STR_EQ(Join(*b.basis, 2, true), "0-1 | 2-3");
  STR_EQ(Join(*b.basis, 3), "0-31 | 32-47 | 48-63");  // lower ranks take the remainder
  STR_EQ(Join(*b.basis, 4), "0-15 | 16-31 | 32-47 | 48-63");
  STR_EQ(Join(*b.basis, 8), "0-7 | 8-15 | 16-23 | 24-31 | 32-39 | 40-47 | 48-55 | 56-63");  // one L3 each
  STR_EQ(Join(*b.basis, 8, true), "0 | 0 | 1 | 1 | 2 | 2 | 3 | 3");
  // 5 ranks: every node one, the fifth by largest remainder; equal nodes tie, so the lower one (node 0),
  // one L3 each there.
  STR_EQ(Join(*b.basis, 5), "0-7 | 8-15 | 16-31 | 32-47 | 48-63");
  cr_assert(StartsWith(Join(*b.basis, 16), "0-3 | 4-7 | 8-11 | 12-15 | "), "%s",
            Join(*b.basis, 16).c_str());  // 2 of the node's 8 cores each
  std::vector<RankText> one_pu = PlanAll(*b.basis, 64);
  for (uint32_t r = 0; r < 64; ++r) STR_EQ(one_pu[r].cpus, std::to_string(r));
  std::vector<RankText> shared = PlanAll(*b.basis, 128);  // oversubscribed: two ranks per thread
  for (uint32_t r = 0; r < 128; ++r) STR_EQ(shared[r].cpus, std::to_string(r / 2));
}

Test(auto_policy, says_what_each_rank_got) {
  Basis b;
  Prepare(Load(kT64), "none", &b);
  STR_EQ(Shares(*b.basis, 1), "all 4 nodes");
  STR_EQ(Shares(*b.basis, 3), "2 of 4 nodes | whole node 2 | whole node 3");
  cr_assert(StartsWith(Shares(*b.basis, 8), "1 of 2 L3 of node 0 | 1 of 2 L3 of node 0"), "%s",
            Shares(*b.basis, 8).c_str());
  cr_assert(StartsWith(Shares(*b.basis, 16), "2 of 8 cores of node 0"), "%s", Shares(*b.basis, 16).c_str());
  cr_assert(StartsWith(Shares(*b.basis, 64), "1 of 2 threads of one core of node 0 | "), "%s",
            Shares(*b.basis, 64).c_str());
  cr_assert(StartsWith(Shares(*b.basis, 128), "1 thread shared by 2 ranks (node 0) "), "%s",
            Shares(*b.basis, 128).c_str());
  STR_EQ(
      Decision(*b.basis, 8),
      "auto: no devices, nodes 0-3, 8 ranks -> spread over every node: 1 whole L3 per rank (of 2 per node), "
      "L3 kept whole");
  STR_EQ(
      Decision(*b.basis, 16),
      "auto: no devices, nodes 0-3, 16 ranks -> spread over every node: 2 cores per rank (up to 4 ranks per "
      "node), L3 split");
}

// Layout A's shape: GPUs on nodes 1 and 2. One rank per device node: the whole node; several: exclusive
// blocks of whole L3s, and an L3 split only when a node has more ranks than L3s.
Test(auto_policy, devices_node_local_and_exclusive) {
  Basis b;
  Prepare(WithGpus(kT64, {1, 2}), "auto", &b);
  STR_EQ(Join(*b.basis, 2), "16-31 | 32-47");
  STR_EQ(Join(*b.basis, 2, true), "1 | 2");
  STR_EQ(Join(*b.basis, 4), "16-23 | 32-39 | 24-31 | 40-47");
  // 3 ranks per node of 8 cores: equal shares first (3, 3 and 2 cores), though an L3 is split.
  STR_EQ(Join(*b.basis, 6), "16-21 | 32-37 | 22-27 | 38-43 | 28-31 | 44-47");
  STR_EQ(
      Decision(*b.basis, 2),
      "auto: 2 devices on nodes 1-2, 2 ranks -> node-local, one rank per device node: 1 whole node per rank, "
      "L3 kept whole");
  STR_EQ(Decision(*b.basis, 4),
         "auto: 2 devices on nodes 1-2, 4 ranks -> exclusive (2 ranks per device node): 1 whole L3 per rank "
         "(of 2 per node), L3 kept whole");
}

// The qemu guest's layout A (tests/vm/layout_A.sh): 4 nodes of one L3 with 2 cores x 2 threads, devices on
// nodes 2 and 1 in that order.
Test(auto_policy, layout_a) {
  const char* spec = "synthetic:pack:2 numa:2 l3:1 core:2 pu:2";
  Basis none, dev;
  Prepare(Load(spec), "none", &none);
  Prepare(WithGpus(spec, {2, 1}), "auto", &dev);
  STR_EQ(Join(*none.basis, 2), "0-7 | 8-15");
  STR_EQ(Join(*none.basis, 4), "0-3 | 4-7 | 8-11 | 12-15");
  STR_EQ(Join(*none.basis, 8), "0-1 | 2-3 | 4-5 | 6-7 | 8-9 | 10-11 | 12-13 | 14-15");
  STR_EQ(Join(*dev.basis, 2), "8-11 | 4-7");
  STR_EQ(Join(*dev.basis, 4), "8-9 | 4-5 | 10-11 | 6-7");
  // 3 ranks per node, 2 cores of 2 threads: by threads, the first core takes two ranks (one thread each).
  STR_EQ(Join(*dev.basis, 6), "8 | 4 | 9 | 5 | 10-11 | 6-7");
}

// Memory-only nodes (a CXL expander, a Grace-Hopper GPU's memory node) have no CPUs: never a rank's node,
// even when a device's locality names one.
Test(auto_policy, memory_only_nodes_never_chosen) {
  Topology t = WithGpus(kT64, {1});
  TopoNode cxl;
  cxl.os = 4;
  cxl.subtype = "CXL";
  t.nodes.push_back(cxl);
  t.pci[0].nodes.Set(4);  // the GPU's own memory, as on Grace-Hopper
  for (const char* devices : {"auto", "none"}) {
    Basis b;
    Prepare(t, devices, &b);
    for (uint32_t n : {1u, 2u, 5u, 8u, 64u})
      for (const RankText& r : PlanAll(*b.basis, n))
        cr_assert(r.ok && !Nodes(r).Has(4) && !Nodes(r).Empty(), "%s %u ranks: nodes %s", devices, n,
                  r.nodes.c_str());
  }
  Basis knl;
  Prepare(Load(TopologyDir() + "/64intel64-fakeKNL-SNC4-hybrid.xml"), "none", &knl);
  for (uint32_t n = 1; n <= 20; ++n)
    for (const RankText& r : PlanAll(*knl.basis, n)) {
      std::string err;
      NodeSet nodes;
      cr_assert(NodeSet::ParseList(r.nodes.c_str(), &nodes, &err) && !nodes.Empty() &&
                    nodes.IsSubsetOf(NodeSet::Range(0, 3)),
                "KNL %u ranks: nodes %s (MCDRAM nodes are 4-7)", n, r.nodes.c_str());
    }
}

Test(auto_policy, cpus_outside_every_node_get_the_groups_memory) {
  // hwloc's 4fake-4gr1nu1pu (its Linux test machine, exported to XML): CPU 0 on node 0, CPU 1 in a group
  // without a node (its node 1 is not allowed), node 2 memory whose CPU is not allowed. The rank on CPU 1
  // takes its group's memory nodes (docs/auto.md, rule 6): node 0, never an empty set.
  Topology t = Load(TopologyDir() + "/hwloc/4fake-4gr1nu1pu.xml");
  CpuSet one;
  one.Set(1);
  cr_assert(t.allowed.Has(1) && t.NodesOfCpus(one).Empty(), "CPU 1 is not outside every node");
  Basis b;
  Prepare(t, "none", &b);
  STR_EQ(Join(*b.basis, 2), "0 | 1");
  STR_EQ(Join(*b.basis, 2, true), "0 | 0");
  STR_EQ(Join(*b.basis, 3, true), "0 | 0 | 0");
  STR_EQ(Shares(*b.basis, 2), "whole node 0 | every CPU outside the nodes");
}

// ---- invariants on every topology ----

namespace {

CpuSet Parse(const std::string& list) {
  CpuSet s;
  std::string err;
  CpuSet::ParseList(list.c_str(), &s, &err);
  return s;
}

// The checks of the file header for n ranks; `node` is the node policy's basis (the group's scope per rank).
void CheckInvariants(const Topology& t, const PlanBasis& b, const PlanBasis& node, bool devices, uint32_t n) {
  std::vector<RankText> ranks = PlanAll(b, n), scopes = PlanAll(node, n);
  NodeSet cpu_nodes = t.CpuNodes();
  for (uint32_t r = 0; r < n; ++r) {
    const RankText& x = ranks[r];
    cr_assert(x.ok, "%s, %u ranks: rank %u: %s", t.source.c_str(), n, r, x.error.c_str());
    CpuSet cpus = Parse(x.cpus), nodes = Parse(x.nodes);
    cr_assert(!cpus.Empty() && cpus.IsSubsetOf(t.allowed), "%s rank %u/%u: cpus %s", t.source.c_str(), r, n,
              x.cpus.c_str());
    // Memory on nodes with CPUs, or on the allowed nodes when the CPUs' own are not allowed (a cgroup).
    cr_assert(!nodes.Empty() && nodes.IsSubsetOf(t.allowed_nodes) &&
                  (nodes.IsSubsetOf(cpu_nodes) || !t.NodesOfCpus(cpus).Intersects(t.allowed_nodes)),
              "%s rank %u/%u: nodes %s", t.source.c_str(), r, n, x.nodes.c_str());
    cr_assert(t.NodesOfCpus(cpus).Intersect(t.allowed_nodes).IsSubsetOf(nodes),
              "%s rank %u/%u: cpus %s outside nodes %s", t.source.c_str(), r, n, x.cpus.c_str(),
              x.nodes.c_str());
    // The CPUs the rank's group may use: its device's node (the node policy's set), else every allowed CPU
    // (allowed CPUs outside every node too, as in 16amd64-8n2c-cpusets.xml).
    // A device near no allowed CPU (the node policy fails there) is driven from every allowed CPU.
    CpuSet scope = devices && scopes[r].ok ? Parse(scopes[r].cpus) : t.allowed;
    uint32_t first, len;  // fewer ranks than devices: the nodes of the rank's block of devices
    if (devices && AutoDeviceBlock(b, r, n, &first, &len)) {
      std::vector<RankText> slots = PlanAll(node, node.slot_count);
      scope = CpuSet();
      for (uint32_t q = first; q < first + len; ++q)
        scope.UnionWith(slots[q].ok ? Parse(slots[q].cpus) : t.allowed);
    }
    cr_assert(cpus.IsSubsetOf(scope), "%s rank %u/%u: cpus %s not local to its device (%s)", t.source.c_str(),
              r, n, x.cpus.c_str(), scopes[r].cpus.c_str());
    // Equal shares: ranks of one node hold within one core of each other (checked by the sweep,
    // tests/planner/sweep_test.cc).
    // Exclusive while the ranks of its group (same label) do not outnumber the group's CPUs.
    uint32_t sharing = 0;
    for (uint32_t q = 0; q < n; ++q) sharing += ranks[q].label == x.label;
    for (uint32_t q = 0; sharing <= scope.Count() && q < r; ++q)
      cr_assert(ranks[q].label != x.label || !Parse(ranks[q].cpus).Intersects(cpus),
                "%s %u ranks: ranks %u and %u overlap (%s, %s)", t.source.c_str(), n, q, r,
                ranks[q].cpus.c_str(), x.cpus.c_str());
  }
}

void CheckTopology(const Topology& t, bool want_devices) {
  Basis b, node;
  PrepareOn(t, "auto", &b, want_devices ? "auto" : "none");
  PrepareOn(t, "node", &node, want_devices ? "auto" : "none");
  cr_assert(b.basis && node.basis, "%s: %s %s", t.source.c_str(), b.error.c_str(), node.error.c_str());
  bool devices = b.basis->slot_count > 0 && b.basis->slots[0].device[0] != '\0';  // some files have none
  // Up to 40 ranks: tests/planner/sweep_test.cc takes every file to 1,000.
  uint32_t pus = t.allowed.Count(), most = std::min(pus * 2 + 3, 40u);
  for (uint32_t n = 1; n <= most; ++n) CheckInvariants(t, *b.basis, *node.basis, devices, n);
}

}  // namespace

// No .timeout on these: Criterion 2.4.1 leaks 48 bytes in its runner when a run has two timed tests,
// which fails the ASan suite.
Test(auto_policy, invariants_on_every_topology_file) {
  DIR* dir = opendir(TopologyDir().c_str());
  cr_assert_not_null(dir, "no %s", TopologyDir().c_str());
  int files = 0;
  while (struct dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name.size() < 4 || name.substr(name.size() - 4) != ".xml") continue;
    ++files;
    Topology t = Load(TopologyDir() + "/" + name, true);
    CheckTopology(t, false);
    CheckTopology(t, true);
  }
  closedir(dir);
  cr_assert_geq(files, 7, "%d topology files", files);
}

Test(auto_policy, invariants_on_synthetic_machines) {
  for (const char* spec : {kT64, "synthetic:pack:1 core:4 pu:1", "synthetic:pack:2 numa:1 l3:3 core:2 pu:2",
                           "synthetic:pack:1 numa:3 core:5 pu:2", "synthetic:numa:2 l2:4 core:1 pu:4"}) {
    CheckTopology(Load(spec), false);
    CheckTopology(WithGpus(spec, {0, 0, 0}), true);
    CheckTopology(WithGpus(spec, {0, -1}), true);  // one device of unknown locality
  }
}

// ---- fewer ranks than devices: blocks of devices, with the CPUs of the nodes they sit near ----

namespace {

// CUDA_VISIBLE_DEVICES as NUMABIND_EXPORT=gpu sets it for each rank, " | "-joined.
std::string GpuExports(const PlanBasis& b, uint32_t n) {
  std::string s;
  for (uint32_t r = 0; r < n; ++r) {
    std::vector<uint64_t> cpus(b.cpu_words), nodes(b.node_words);
    RankPlan plan;
    plan.cpus = cpus.data(), plan.nodes = nodes.data();
    cr_assert(ComputeRankPlan(b, r, n, &plan), "%s", plan.error);
    char buf[512];
    RankEnv env;
    BuildRankEnv(b, plan, numabind::config::kExportGpu, nullptr, buf, sizeof buf, &env);
    s += (s.empty() ? "" : " | ") + std::string(env.count > 0 ? env.entries[0] : env.note);
  }
  return s;
}

}  // namespace

Test(auto_policy, fewer_ranks_than_devices_take_device_blocks) {
  // 4 nodes, 2 GPUs on each: one rank drives all 8 on every CPU; 2 ranks 4 each (2 nodes); 4 ranks 2 each
  // (one node each). Issue 17: one rank used to sit on GPU 0's node alone, 4 ranks on 2 nodes (3, 3, 1, 1).
  Basis b;
  Prepare(WithGpus(kT64, {0, 0, 1, 1, 2, 2, 3, 3}), "auto", &b);
  STR_EQ(Join(*b.basis, 1), "0-63");
  STR_EQ(GpuExports(*b.basis, 1), "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7");
  STR_EQ(Join(*b.basis, 2), "0-31 | 32-63");
  STR_EQ(Join(*b.basis, 2, true), "0-1 | 2-3");
  STR_EQ(GpuExports(*b.basis, 2), "CUDA_VISIBLE_DEVICES=0,1,2,3 | CUDA_VISIBLE_DEVICES=4,5,6,7");
  STR_EQ(Join(*b.basis, 4), "0-15 | 16-31 | 32-47 | 48-63");
  STR_EQ(GpuExports(*b.basis, 4),
         "CUDA_VISIBLE_DEVICES=0,1 | CUDA_VISIBLE_DEVICES=2,3 | CUDA_VISIBLE_DEVICES=4,5 | "
         "CUDA_VISIBLE_DEVICES=6,7");
  // 3 ranks: blocks of 3, 3 and 2 GPUs; node 1 holds GPUs of ranks 0 and 1, who share its cores.
  STR_EQ(Join(*b.basis, 3), "0-23 | 24-47 | 48-63");
  STR_EQ(GpuExports(*b.basis, 3),
         "CUDA_VISIBLE_DEVICES=0,1,2 | CUDA_VISIBLE_DEVICES=3,4,5 | CUDA_VISIBLE_DEVICES=6,7");
  // As many ranks as GPUs: one each, node-local as before.
  STR_EQ(Join(*b.basis, 8), "0-7 | 8-15 | 16-23 | 24-31 | 32-39 | 40-47 | 48-55 | 56-63");
  // 2 ranks on 2 sockets with 2 GPUs each.
  Basis two;
  Prepare(WithGpus("synthetic:pack:2 numa:1 l3:2 core:4 pu:2", {0, 0, 1, 1}), "auto", &two);
  STR_EQ(Join(*two.basis, 2), "0-15 | 16-31");
  STR_EQ(GpuExports(*two.basis, 2), "CUDA_VISIBLE_DEVICES=0,1 | CUDA_VISIBLE_DEVICES=2,3");
}

// Issue 36 part 5, the two rules where mpibind answers otherwise, on 4 nodes with one GPU each
// (docs/auto.md). Fewer ranks than GPUs: blocks of GPUs with the CPUs of their nodes (here every node:
// mpibind's answer too). More ranks than GPUs: dealt out cyclically, rank r on GPU r mod 4 (mpibind:
// consecutive ranks share one), as programs that pick their own device take local_rank % device_count.
Test(auto_policy, mpibind_rules_one_two_and_eight_ranks_on_four_gpus) {
  Basis b;
  Prepare(WithGpus(kT64, {0, 1, 2, 3}), "auto", &b);
  STR_EQ(Join(*b.basis, 1), "0-63");
  STR_EQ(GpuExports(*b.basis, 1), "CUDA_VISIBLE_DEVICES=0,1,2,3");
  STR_EQ(Join(*b.basis, 2), "0-31 | 32-63");
  STR_EQ(GpuExports(*b.basis, 2), "CUDA_VISIBLE_DEVICES=0,1 | CUDA_VISIBLE_DEVICES=2,3");
  STR_EQ(Join(*b.basis, 8, true), "0 | 1 | 2 | 3 | 0 | 1 | 2 | 3");
  STR_EQ(
      GpuExports(*b.basis, 8),
      "CUDA_VISIBLE_DEVICES=0 | CUDA_VISIBLE_DEVICES=1 | CUDA_VISIBLE_DEVICES=2 | CUDA_VISIBLE_DEVICES=3 | "
      "CUDA_VISIBLE_DEVICES=0 | CUDA_VISIBLE_DEVICES=1 | CUDA_VISIBLE_DEVICES=2 | CUDA_VISIBLE_DEVICES=3");
  // Ranks 0 and 4 share GPU 0's node, on adjacent cores.
  STR_EQ(Join(*b.basis, 8), "0-7 | 16-23 | 32-39 | 48-55 | 8-15 | 24-31 | 40-47 | 56-63");
}

namespace {

/// A machine of one package per node, with `cores[i]` single-thread cores on node i, as hwloc XML in a
/// temporary file (removed by the caller).
std::string NodesOfCores(const std::vector<int>& cores) {
  std::string body;
  int pu = 0, gp = 2;
  auto mask = [](int first, int count) {  // hwloc's cpuset text: 32-bit words, highest first
    std::vector<uint32_t> words((first + count + 31) / 32, 0);
    for (int c = first; c < first + count; ++c) words[c / 32] |= 1u << (c % 32);
    std::string out;
    for (size_t w = words.size(); w-- > 0;) {
      char buf[16];
      snprintf(buf, sizeof buf, "%s0x%08x", out.empty() ? "" : ",", words[w]);
      out += buf;
    }
    return out;
  };
  // One object's opening tag: its type, index, CPUs and node.
  auto open = [&gp](const char* type, size_t os, const std::string& cpus, const std::string& nodes) {
    return std::string("<object type=\"") + type + "\" os_index=\"" + std::to_string(os) + "\" cpuset=\"" +
           cpus + "\" complete_cpuset=\"" + cpus + "\" nodeset=\"" + nodes + "\" complete_nodeset=\"" +
           nodes + "\" gp_index=\"" + std::to_string(gp++) + "\"";
  };
  for (size_t n = 0; n < cores.size(); ++n) {
    std::string cpus = mask(pu, cores[n]), nodes = mask(static_cast<int>(n), 1);
    body += open("Package", n, cpus, nodes) + ">\n";
    body += open("NUMANode", n, cpus, nodes) + " local_memory=\"1073741824\"/>\n";
    for (int c = 0; c < cores[n]; ++c, ++pu) {
      std::string one = mask(pu, 1);
      body += open("Core", pu, one, nodes) + ">" + open("PU", pu, one, nodes) + "/></object>\n";
    }
    body += "</object>\n";
  }
  std::string all = mask(0, pu), nodes = mask(0, static_cast<int>(cores.size()));
  std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" cpuset=\"" +
      all + "\" complete_cpuset=\"" + all + "\" allowed_cpuset=\"" + all + "\" nodeset=\"" + nodes +
      "\" complete_nodeset=\"" + nodes + "\" allowed_nodeset=\"" + nodes + "\" gp_index=\"1\">\n" + body +
      "</object>\n</topology>\n";
  char path[] = "/tmp/numabind-auto-XXXXXX.xml";
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, xml.data(), xml.size()), static_cast<ssize_t>(xml.size()));
  close(fd);
  return path;
}

/// How many of `n` ranks land on each node, by the nodes of their plans.
std::vector<int> RanksPerNode(const PlanBasis& b, uint32_t n, size_t nodes) {
  std::vector<int> per(nodes, 0);
  for (const RankText& t : PlanAll(b, n)) {
    cr_assert(t.ok, "%s", t.error.c_str());
    per[std::stoi(t.nodes)]++;
  }
  return per;
}

}  // namespace

// Largest remainder, mpibind's rule: 24 ranks on a KNL in SNC-4 (nodes of 18, 18, 16 and 16 cores) get 6
// each (cumulative rounding gave 6, 7, 5, 6); ties go to the node with more cores, then the lower node.
Test(auto_policy, shares_ranks_by_largest_remainder) {
  std::string xml = NodesOfCores({18, 18, 16, 16});
  Basis b;
  Prepare(Load(xml), "none", &b);
  unlink(xml.c_str());
  cr_expect(RanksPerNode(*b.basis, 24, 4) == (std::vector<int>{6, 6, 6, 6}), "24 ranks");
  cr_expect(RanksPerNode(*b.basis, 8, 4) == (std::vector<int>{2, 2, 2, 2}), "8 ranks");
  // 5 ranks: every node one, the fifth to a node of 18 cores (the larger remainder), the lower one.
  cr_expect(RanksPerNode(*b.basis, 5, 4) == (std::vector<int>{2, 1, 1, 1}), "5 ranks");
  // 6 ranks: both nodes of 18 cores take the extra ones.
  cr_expect(RanksPerNode(*b.basis, 6, 4) == (std::vector<int>{2, 2, 1, 1}), "6 ranks");
  std::string odd = NodesOfCores({16, 18, 16, 18});  // the larger remainders, wherever they are
  Basis c;
  Prepare(Load(odd), "none", &c);
  unlink(odd.c_str());
  cr_expect(RanksPerNode(*c.basis, 5, 4) == (std::vector<int>{1, 2, 1, 1}), "5 ranks, larger second");
}
