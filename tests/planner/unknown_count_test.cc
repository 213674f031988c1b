// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Ranks of an unknown count (found by order with no NUMABIND_NRANKS, or a rank variable without its
// launcher's size) on synthetic machines: planned as one of as many ranks as the policy has places, which
// under exclusive are the cores and under core-complex the last-level caches (issue 35 part 8: they were the
// nodes, so every worker of a node got all of its cores while the log said "one per core").
// "pack:2 numa:2 l3:2 core:4 pu:2": node n holds CPUs 16n..16n+15, its L3s 8 CPUs each, core c CPUs 2c, 2c+1.

#include <criterion/criterion.h>
#include <stdio.h>

#include <set>
#include <string>
#include <vector>

#include "planner/cpu_set.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::Gpu;
using numabind::testing::Load;
using numabind::testing::PlanRank;
using numabind::testing::PrepareOn;
using numabind::testing::RankText;

namespace {

const char* const kT64 = "synthetic:pack:2 numa:2 l3:2 core:4 pu:2";

void Prepare(const Topology& t, const char* policy, const char* devices, Basis* b) {
  PrepareOn(t, policy, b, devices);
  cr_assert(b->basis, "prepare failed: %s", b->error.c_str());
}

// Plans ranks 0 .. n-1 with no count; every plan must succeed, and any two CPU sets must be the same or
// disjoint. Returns the distinct sets.
std::set<std::string> UnknownCountSets(const PlanBasis& basis, uint32_t n) {
  std::vector<CpuSet> sets;
  std::set<std::string> lists;
  for (uint32_t r = 0; r < n; ++r) {
    RankText t = PlanRank(basis, r, 0);
    cr_assert(t.ok, "rank %u of unknown: %s", r, t.error.c_str());
    CpuSet s;
    std::string err;
    cr_assert(CpuSet::ParseList(t.cpus.c_str(), &s, &err), "%s: %s", t.cpus.c_str(), err.c_str());
    for (const CpuSet& o : sets)
      cr_assert(o == s || !o.Intersects(s), "rank %u's CPUs %s partly overlap another's %s", r,
                t.cpus.c_str(), o.ToList().c_str());
    sets.push_back(s);
    lists.insert(t.cpus);
  }
  return lists;
}

/// Rank r's CPU list, with no count: a std::string the caller keeps (a temporary's c_str() would not outlive
/// the assertion macro's first statement).
std::string CpusOf(const PlanBasis& basis, uint32_t r) { return PlanRank(basis, r, 0).cpus; }

}  // namespace

Test(unknown_count, exclusive_one_rank_per_core) {
  Topology t = Load(kT64);
  Basis b;
  Prepare(t, "exclusive", "none", &b);
  // 32 cores: rank r on core r, rank 32 on core 0 again.
  const char* want[] = {"0-1", "2-3", "14-15", "16-17", "62-63", "0-1", "2-3"};
  uint32_t ranks[] = {0, 1, 7, 8, 31, 32, 33};
  for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; ++i)
    cr_expect(CpusOf(*b.basis, ranks[i]) == std::string(want[i]), "rank %u", ranks[i]);
  cr_expect_eq(UnknownCountSets(*b.basis, 64).size(), 32u);
  // node keeps one rank per node.
  Basis n;
  Prepare(t, "node", "none", &n);
  cr_expect_eq(UnknownCountSets(*n.basis, 8).size(), 4u);
  cr_expect(CpusOf(*n.basis, 5) == std::string("16-31"));
}

Test(unknown_count, core_complex_one_rank_per_cache) {
  Topology t = Load(kT64);
  Basis b;
  Prepare(t, "core-complex", "none", &b);
  cr_expect(CpusOf(*b.basis, 1) == std::string("8-15"));
  cr_expect(CpusOf(*b.basis, 7) == std::string("56-63"));
  cr_expect(CpusOf(*b.basis, 9) == std::string("8-15"));
  cr_expect_eq(UnknownCountSets(*b.basis, 16).size(), 8u);
}

Test(unknown_count, exclusive_with_devices_one_rank_per_core) {
  Topology t = Load(kT64);
  int i = 0;
  for (const TopoNode& n : t.nodes) {
    for (int k = 0; k < 2; ++k) {
      char id[32];
      snprintf(id, sizeof id, "0000:%02x:00.0", ++i);
      t.pci.push_back(Gpu(id, static_cast<int>(n.os)));
    }
  }
  t.io_loaded = true;
  Basis b;
  Prepare(t, "exclusive", "auto", &b);
  std::set<std::string> sets = UnknownCountSets(*b.basis, 64);
  cr_expect_eq(sets.size(), 32u);
  for (const std::string& s : sets)
    cr_expect(s.find('-') != std::string::npos && s.find(',') == s.npos, "%s", s.c_str());
  // Rank r drives device r mod 8, on its node.
  RankText r = PlanRank(*b.basis, 10, 0);
  cr_expect_str_eq(r.device.c_str(), "0000:03:00.0");
  cr_expect_str_eq(r.nodes.c_str(), "1");
}

Test(unknown_count, exclusive_unequal_nodes_give_each_rank_its_own_cores) {
  // Node 0 has 2 allowed cores, the others 8: 26 cores, but ranks spread over the nodes in blocks, so as
  // many ranks as fit node 0 at 2 each: 8 ranks, 1 core each on node 0 and 4 on the others.
  Topology t = Load(kT64);
  t.allowed = CpuSet::Range(0, 3);
  t.allowed.UnionWith(CpuSet::Range(16, 63));
  Basis b;
  Prepare(t, "exclusive", "none", &b);
  std::set<std::string> sets = UnknownCountSets(*b.basis, 24);
  cr_expect_eq(sets.size(), 8u);
  cr_expect(CpusOf(*b.basis, 1) == std::string("2-3"));
  cr_expect(CpusOf(*b.basis, 2) == std::string("16-23"));
}
