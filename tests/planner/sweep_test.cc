// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The sweep (issue 17): every topology file of tests/data/topologies and its hwloc/ folder (a
// representative set of hwloc's own test files), with and without devices, every policy but the maps,
// 1 to 1,000 ranks (20 counts sampled; NUMABIND_SWEEP_FULL=1, `make sweep`, runs every count), and the
// invariants:
//   - a rank placed has CPUs and memory nodes (no empty set with success), all of them allowed;
//   - never a memory-only node (KNL MCDRAM, HBM, CXL memory, GPU memory: a node that is no CPU's own,
//     TopoNode::memory_only; tiers_test.cc checks that against the kernel's lists);
//   - exclusive: ranks of one place never share a CPU;
//   - auto without devices: every allowed CPU used when ranks >= CPUs, and the ranks of one node hold
//     within one physical core of each other while every node has a rank and no node more ranks than cores;
//     then too each node's rank count is within one of its exact proportion of the cores (largest
//     remainder);
//   - each call (prepare, then every rank) under a second.
// No crash and no sanitizer report come with running it (the ASan suite runs this binary too).

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "planner/planner.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::kPolicies;
using numabind::testing::Load;
using numabind::testing::PrepareOn;
using numabind::testing::TopologyDir;

namespace {

double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::vector<std::string> Files() {
  std::vector<std::string> out;
  for (const std::string& dir : {TopologyDir(), TopologyDir() + "/hwloc"}) {
    DIR* d = opendir(dir.c_str());
    cr_assert_not_null(d, "no %s", dir.c_str());
    while (struct dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0) out.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint32_t> RankCounts() {
  std::vector<uint32_t> n;
  const char* full = getenv("NUMABIND_SWEEP_FULL");
  if (full != nullptr && *full == '1') {
    for (uint32_t i = 1; i <= 1000; ++i) n.push_back(i);
    return n;
  }
  for (uint32_t i = 1; i <= 12; ++i) n.push_back(i);
  for (uint32_t i : {16u, 24u, 32u, 48u, 64u, 100u, 128u, 1000u}) n.push_back(i);  // ASan: ~10 s
  return n;
}

struct Totals {
  uint64_t calls = 0, ranks = 0, failed_ranks = 0;
  double slowest = 0;
  std::string slowest_call;
};

// Runs one (topology, policy, devices) basis for n ranks and checks the invariants.
void Sweep(const Topology& t, const PlanBasis& b, const char* policy, bool devices, uint32_t n, Totals* tot) {
  std::string what =
      t.source + " " + policy + (devices ? " devices" : "") + " " + std::to_string(n) + " ranks";
  NodeSet special, cpu_nodes = t.CpuNodes();
  for (const TopoNode& node : t.nodes)
    if (node.memory_only) special.Set(node.os);
  std::vector<uint64_t> cpus(b.cpu_words), nodes(b.node_words), used(b.cpu_words, 0);
  CpuSet allowed_nodes_cpus = t.allowed;
  bool all_ok = true, overlap = false;
  std::map<std::string, std::vector<uint64_t>> by_place;    // exclusive: CPUs taken per place
  std::map<uint32_t, std::vector<uint32_t>> cores_on_node;  // auto: cores of each one-node rank
  double start = Now();
  for (uint32_t r = 0; r < n; ++r) {
    RankPlan plan;
    plan.cpus = cpus.data(), plan.nodes = nodes.data();
    bool ok = ComputeRankPlan(b, r, n, &plan);
    ++tot->ranks;
    if (!ok) {
      all_ok = false, ++tot->failed_ranks;
      cr_assert(plan.error[0] != '\0', "%s: rank %u failed without a reason", what.c_str(), r);
      continue;
    }
    CpuSet mine = CpuSet::FromWords(cpus.data(), b.cpu_words);
    NodeSet where = NodeSet::FromWords(nodes.data(), b.node_words);
    cr_assert(!mine.Empty() && !where.Empty(), "%s: rank %u: cpus '%s' nodes '%s'", what.c_str(), r,
              mine.ToList().c_str(), where.ToList().c_str());
    cr_assert(mine.IsSubsetOf(t.allowed), "%s: rank %u: cpus %s not allowed", what.c_str(), r,
              mine.ToList().c_str());
    cr_assert(!where.Intersects(special), "%s: rank %u: memory-only node in %s", what.c_str(), r,
              where.ToList().c_str());
    for (uint32_t w = 0; w < b.cpu_words; ++w) used[w] |= cpus[w];
    if (strcmp(policy, "exclusive") == 0) {
      std::vector<uint64_t>& taken = by_place[plan.label];
      taken.resize(b.cpu_words, 0);
      for (uint32_t w = 0; w < b.cpu_words; ++w) overlap |= (taken[w] & cpus[w]) != 0, taken[w] |= cpus[w];
    }
    if (strcmp(policy, "auto") == 0 && !devices && where.Count() == 1) {
      std::vector<int32_t> cores;
      for (int64_t c = mine.First(); c >= 0; c = mine.Next(c)) cores.push_back(t.FindPu(c)->core);
      std::sort(cores.begin(), cores.end());
      cores_on_node[static_cast<uint32_t>(where.First())].push_back(
          static_cast<uint32_t>(std::unique(cores.begin(), cores.end()) - cores.begin()));
    }
  }
  double took = Now() - start;
  if (took > tot->slowest) tot->slowest = took, tot->slowest_call = what;
  ++tot->calls;
  cr_assert(took < 1.0, "%s: %.2f s", what.c_str(), took);
  cr_assert(!overlap || !all_ok, "%s: exclusive ranks share CPUs", what.c_str());
  if (strcmp(policy, "auto") != 0 || devices) return;
  cr_assert(all_ok, "%s: auto failed a rank", what.c_str());
  CpuSet all = CpuSet::FromWords(used.data(), b.cpu_words);
  if (n >= t.allowed.Count())
    cr_assert(all == t.allowed, "%s: used %s of %s", what.c_str(), all.ToList().c_str(),
              t.allowed.ToList().c_str());
  // Equal shares: every node with allowed CPUs has a rank and none more ranks than cores.
  uint32_t nodes_with_cpus = t.NodesWithAllowedCpus().Count(), cores = 0;
  for (const TopoCore& c : t.cores) cores += c.cpus.Intersects(t.allowed);
  if (n < nodes_with_cpus || n > cores || !t.allowed.IsSubsetOf(t.CpusOfNodes(cpu_nodes))) return;
  uint32_t placed = 0;
  for (const auto& [node, counts] : cores_on_node) {
    auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
    cr_assert(*hi - *lo <= 1, "%s: ranks on node %u hold %u to %u cores", what.c_str(), node, *lo, *hi);
    placed += static_cast<uint32_t>(counts.size());
  }
  // Largest remainder: each node's rank count is within one of its exact proportion of the cores.
  if (placed != n) return;  // ranks over several nodes (allowed CPUs outside every node): no proportion
  for (const auto& [node, counts] : cores_on_node) {
    uint32_t node_cores = 0;
    NodeSet one;
    one.Set(node);
    CpuSet node_cpus = t.CpusOfNodes(one).Intersect(t.allowed);
    for (const TopoCore& c : t.cores) node_cores += c.cpus.Intersects(node_cpus);
    double exact = static_cast<double>(n) * node_cores / cores;
    cr_assert(counts.size() < exact + 1 && counts.size() > exact - 1,
              "%s: node %u has %zu ranks, its share is %.2f", what.c_str(), node, counts.size(), exact);
  }
}

}  // namespace

Test(sweep, every_topology_policy_and_rank_count) {
  std::vector<std::string> files = Files();
  cr_assert_geq(files.size(), 25u, "%zu topology files", files.size());
  std::vector<uint32_t> counts = RankCounts();
  Totals tot;
  double start = Now();
  for (const std::string& file : files) {
    Topology t = Load(file, true);
    for (const char* policy : kPolicies) {
      for (bool devices : {false, true}) {
        double t0 = Now();
        Basis b;
        PrepareOn(t, policy, &b, devices ? "auto" : "none");
        cr_assert(b.basis, "%s %s: %s", file.c_str(), policy, b.error.c_str());
        cr_assert(Now() - t0 < 1.0, "%s %s: prepare took %.2f s", file.c_str(), policy, Now() - t0);
        if (devices && (b.basis->slot_count == 0 || b.basis->slots[0].device[0] == '\0')) continue;
        for (uint32_t n : counts) Sweep(t, *b.basis, policy, devices, n, &tot);
      }
    }
  }
  // A file of a newer hwloc fails cleanly.
  Topology newer;
  std::string err;
  std::string path = TopologyDir() + "/newer/16synth-2n4c2t-hwloc3.xml";
  cr_assert(!LoadTopology(path.c_str(), LoadOptions(), &newer, &err) && !err.empty());
  cr_log_info(
      "sweep: %zu files, %llu calls, %llu ranks (%llu failed with a reason), %.1f s; slowest call %.3f s "
      "(%s)",
      files.size(), static_cast<unsigned long long>(tot.calls), static_cast<unsigned long long>(tot.ranks),
      static_cast<unsigned long long>(tot.failed_ranks), Now() - start, tot.slowest,
      tot.slowest_call.c_str());
}
