// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Memory-only nodes (issue 36): never a rank's node by default; NUMABIND_MEMORY=near and weighted add the
// nearest ones of the rank's socket. The kernel's own view of hwloc's test machines (their sysfs node
// cpulists, from hwloc's tests/hwloc/linux tarballs) is written out here, so that the planner is checked
// against Linux, not against itself.

#include <criterion/criterion.h>

#include <map>
#include <string>
#include <vector>

#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::kPolicies;
using numabind::testing::Load;
using numabind::testing::PrepareOn;
using numabind::testing::TopologyFile;

namespace {

/// A machine as Linux lists it: each CPU's node (/sys/devices/system/node/nodeN/cpulist) and the nodes
/// whose cpulist is empty.
struct KernelView {
  const char* file;
  std::map<uint32_t, uint32_t> cpu_node;
  std::vector<uint32_t> memory_only;
};

const std::vector<KernelView>& Machines() {
  static const std::vector<KernelView> kMachines = {
      // Three groups: DRAM 0 + NVM 8; DRAM 1 + HBM 4 + NVM 6; node 2 (CPUs 4-5, hwloc guessed HBM) + NVM 9.
      {"hwloc/fakeheteromemtiers.xml", {{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {5, 2}}, {4, 6, 8, 9}},
      // A cgroup allows CPUs 0-3 (node 0, not allowed) and nodes 2-3, whose CPUs it leaves out.
      {"hwloc/16amd64-4n4c-cgroup-distance-merge.xml", {{0, 0}, {1, 0}, {2, 0}, {3, 0}}, {}},
      // CPU 0 on node 0, CPU 1 on node 1 (not in the file), node 2's CPU not allowed.
      {"hwloc/4fake-4gr1nu1pu.xml", {{0, 0}, {1, 1}}, {}},
      {"64intel64-fakeKNL-SNC4-hybrid.xml", {}, {4, 5, 6, 7}},
  };
  return kMachines;
}

NodeSet Set(std::initializer_list<uint32_t> nodes) {
  NodeSet s;
  for (uint32_t n : nodes) s.Set(n);
  return s;
}

/// Every rank's memory nodes for n ranks on `t` under policy and memory, "|"-separated.
std::string Nodes(const Topology& t, const char* policy, const char* memory, uint32_t n) {
  Basis b;
  PrepareOn(t, policy, &b, "none", memory);
  cr_assert_not_null(b.basis, "%s %s: %s", policy, memory, b.error.c_str());
  std::string out;
  std::vector<uint64_t> cpus(b.basis->cpu_words), nodes(b.basis->node_words);
  for (uint32_t r = 0; r < n; ++r) {
    RankPlan p;
    p.cpus = cpus.data(), p.nodes = nodes.data();
    cr_assert(ComputeRankPlan(*b.basis, r, n, &p), "rank %u: %s", r, p.error);
    out += (r ? " | " : "") + NodeSet::FromWords(nodes.data(), b.basis->node_words).ToList();
  }
  return out;
}

}  // namespace

Test(tiers, memory_only_nodes_are_the_ones_linux_lists_without_cpus) {
  for (const KernelView& m : Machines()) {
    Topology t = Load(TopologyFile(m.file));
    NodeSet want, got;
    for (uint32_t n : m.memory_only) want.Set(n);
    for (const TopoNode& n : t.nodes)
      if (n.memory_only) got.Set(n.os);
    cr_assert(got == want, "%s: memory-only nodes %s, Linux has %s", m.file, got.ToList().c_str(),
              want.ToList().c_str());
    for (const auto& [cpu, node] : m.cpu_node) {
      const TopoPu* pu = t.FindPu(cpu);
      if (pu == nullptr || pu->node < 0) continue;  // not in the file, or outside every node it has
      cr_assert_eq(t.nodes[pu->node].os, node, "%s: CPU %u on node %u, Linux has %u", m.file, cpu,
                   t.nodes[pu->node].os, node);
    }
  }
}

Test(tiers, ranks_get_their_cpus_nodes_and_never_a_memory_only_one) {
  for (const KernelView& m : Machines()) {
    Topology t = Load(TopologyFile(m.file));
    NodeSet memory_only;
    for (uint32_t n : m.memory_only) memory_only.Set(n);
    for (const char* policy : kPolicies) {
      for (const char* memory : {"local", "bind"}) {
        Basis b;
        PrepareOn(t, policy, &b, "none", memory);
        cr_assert_not_null(b.basis, "%s %s: %s", m.file, policy, b.error.c_str());
        std::vector<uint64_t> cpus(b.basis->cpu_words), nodes(b.basis->node_words);
        for (uint32_t n = 1; n <= 8; ++n) {
          for (uint32_t r = 0; r < n; ++r) {
            RankPlan p;
            p.cpus = cpus.data(), p.nodes = nodes.data();
            if (!ComputeRankPlan(*b.basis, r, n, &p)) continue;  // exclusive past its cores: says why
            CpuSet mine = CpuSet::FromWords(cpus.data(), b.basis->cpu_words);
            NodeSet where = NodeSet::FromWords(nodes.data(), b.basis->node_words);
            std::string what = std::string(m.file) + " " + policy + " " + memory + " rank " +
                               std::to_string(r) + " of " + std::to_string(n);
            cr_assert(!where.Empty(), "%s: no node", what.c_str());
            cr_assert(!where.Intersects(memory_only), "%s: memory-only node in %s", what.c_str(),
                      where.ToList().c_str());
            for (int64_t c = mine.First(); c >= 0; c = mine.Next(c)) {
              auto it = m.cpu_node.find(static_cast<uint32_t>(c));
              if (it == m.cpu_node.end() || !t.allowed_nodes.Has(it->second)) continue;
              cr_assert(where.Has(it->second), "%s: CPU %lld's node %u not in %s", what.c_str(),
                        static_cast<long long>(c), it->second, where.ToList().c_str());
            }
          }
        }
      }
    }
  }
}

Test(tiers, near_and_weighted_add_the_nearest_memory_only_nodes) {
  Topology hetero = Load(TopologyFile("hwloc/fakeheteromemtiers.xml"));
  Topology knl = Load(TopologyFile("64intel64-fakeKNL-SNC4-hybrid.xml"));
  for (const char* memory : {"near", "weighted"}) {
    STR_EQ(Nodes(hetero, "node", memory, 3), "0,8 | 1,4,6 | 2,9");
    STR_EQ(Nodes(hetero, "auto", memory, 3), "0,8 | 1,4,6 | 2,9");
    STR_EQ(Nodes(hetero, "exclusive", memory, 6), "0,8 | 0,8 | 1,4,6 | 1,4,6 | 2,9 | 2,9");
    // Each quadrant's MCDRAM (hwloc numbers them 7, 4, 5, 6).
    STR_EQ(Nodes(knl, "node", memory, 4), "0,7 | 1,4 | 2,5 | 3,6");
  }
  STR_EQ(Nodes(hetero, "node", "local", 3), "0 | 1 | 2");
  STR_EQ(Nodes(hetero, "node", "preferred", 3), "0 | 1 | 2");
  Basis b;
  PrepareOn(hetero, "node", &b, "none", "near");
  cr_assert(HasTierNodes(*b.basis));
  cr_assert_eq(FirstOwnNode(*b.basis, Set({4, 8}).Words()), -1);
  cr_assert_eq(FirstOwnNode(*b.basis, Set({1, 4, 6}).Words()), 1);
}

/// Two sockets, each a CPU node and a memory-only node as qemu makes them (no subtype: only the kernel's
/// empty cpulist, which hwloc turns into a node attached beside the CPU node it is nearest), with a
/// firmware table that puts the other socket's memory-only node nearer than the socket's own.
Test(tiers, near_never_takes_another_sockets_node) {
  Topology t = Load("synthetic:pack:2 [numa] [numa] core:2 pu:1");
  // The synthetic machine's second node of each package has the same CPUs: mark them as hwloc would.
  cr_assert_eq(t.nodes.size(), 4u);
  for (const TopoNode& n : t.nodes) cr_assert_eq(n.memory_only, n.os % 2 == 1, "node %u", n.os);
  t.distances = {10, 15, 20, 12,  //
                 15, 10, 20, 20,  //
                 20, 20, 10, 15,  //
                 12, 20, 15, 10};
  STR_EQ(Nodes(t, "node", "near", 2), "0-1 | 2-3");
  // Distances choose among one socket's memory-only nodes attached to the same CPUs.
  Topology one = Load("synthetic:pack:1 [numa] [numa] [numa] core:2 pu:1");
  one.distances.assign(9, 20);
  one.distances[0 * 3 + 2] = 17;
  STR_EQ(Nodes(one, "node", "near", 1), "0,2");
  one.distances.clear();  // unknown: every one of them
  STR_EQ(Nodes(one, "node", "near", 1), "0-2");
}

Test(tiers, near_without_memory_only_nodes_is_the_ranks_own_nodes) {
  Topology t = Load(TopologyFile("24em64t-2n6c2t-pci.xml"));
  STR_EQ(Nodes(t, "node", "near", 2), Nodes(t, "node", "local", 2));
  Basis near, local;
  PrepareOn(t, "node", &near, "none", "near");
  PrepareOn(t, "node", &local, "none", "local");
  cr_assert(!HasTierNodes(*near.basis));
  cr_assert(!HasTierNodes(*local.basis));
  cr_assert_eq(local.basis->tier_rows, 0u, "local carries no tier table");
}

// weighted on a machine with accelerators is usually a loss: the basis says the machine has them, and the
// launcher warns once (shim/launcher/prepare.cc).
Test(tiers, the_basis_knows_whether_the_machine_has_accelerators) {
  Topology gpus = Load(TopologyFile("24em64t-2n6c2t-pci.xml"), true);
  Topology none = Load(TopologyFile("hwloc/fakeheteromemtiers.xml"), true);
  Basis with, without;
  PrepareOn(gpus, "node", &with, "auto", "weighted");
  PrepareOn(none, "node", &without, "auto", "weighted");
  cr_assert(with.basis && without.basis, "%s %s", with.error.c_str(), without.error.c_str());
  cr_expect_eq(with.basis->tier_flags & kTierGpus, kTierGpus);
  cr_expect_eq(without.basis->tier_flags & kTierGpus, 0u);
}
