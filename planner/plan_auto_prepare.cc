// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The planner's side of NUMABIND_POLICY=auto (plan_auto.h): the units it shares out, and the sentence
// `numabind plan` prints about what it decided.

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "plan/plan_auto.h"
#include "planner/plan_auto_describe.h"
#include "planner/plan_pack.h"

namespace numabind::planner {

namespace {

constexpr uint32_t kNoNode = 0xffffffffu;  // a PU outside every node (restricted topology files)

std::string Plural(uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "2" or "1-2" (the least and the most).
std::string Range(uint32_t lo, uint32_t hi) {
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

}  // namespace

uint32_t AddAutoUnits(const Topology& topo, const CpuSet& scope, std::vector<CpuSet>* units,
                      AutoUnits* extra) {
  struct Core {
    uint32_t node;
    int64_t cache_key, core_key;
    uint32_t cache;
    CpuSet cpus;
  };
  std::vector<Core> cores;
  std::vector<bool> seen(topo.cores.size(), false);
  for (int64_t c = scope.First(); c >= 0; c = scope.Next(c)) {
    const TopoPu* pu = topo.FindPu(static_cast<uint32_t>(c));
    if (pu == nullptr || pu->core < 0 || seen[pu->core]) continue;
    seen[pu->core] = true;
    Core k;
    k.node = pu->node >= 0 ? topo.nodes[pu->node].os : kNoNode;
    k.cache = pu->llc >= 0 ? static_cast<uint32_t>(pu->llc) : kNoNode;
    k.cache_key = pu->llc >= 0 ? topo.llcs[pu->llc].cpus.First() : c;
    k.core_key = topo.cores[pu->core].cpus.First();
    k.cpus = topo.cores[pu->core].cpus.Intersect(scope);
    if (pu->llc >= 0) extra->llc_level = std::max(extra->llc_level, topo.llcs[pu->llc].level);
    cores.push_back(k);
  }
  std::sort(cores.begin(), cores.end(), [](const Core& a, const Core& b) {
    return std::tie(a.node, a.cache_key, a.core_key) < std::tie(b.node, b.cache_key, b.core_key);
  });
  auto add = [&](const Core& k) {
    units->push_back(k.cpus);
    extra->domains.push_back(k.node);
    extra->domains.push_back(k.cache);
    extra->domains.push_back(k.cpus.Count());
  };
  // Core kinds: the fastest kind's cores alone first, a second copy in the same order, so that the child
  // side shares out either run as it is (PlaceAuto picks one by the rank count).
  auto fast = [&](const Core& k) {
    return !topo.fastest_kind.Empty() && k.cpus.Minus(topo.fastest_kind).Empty();
  };
  uint32_t fast_units = 0;
  for (const Core& k : cores) fast_units += fast(k) ? 1 : 0;
  if (fast_units == cores.size()) fast_units = 0;  // one kind in this scope
  if (fast_units > 0)
    for (const Core& k : cores)
      if (fast(k)) add(k);
  for (const Core& k : cores) add(k);
  return fast_units;
}

std::string DescribeAuto(const plan::PlanBasis& basis, uint32_t nranks,
                         const std::vector<plan::AutoShare>& shares) {
  // Where: the devices and their nodes, or the nodes the group spans.
  uint32_t devices = 0;
  bool unknown = false;
  NodeSet nodes;
  for (uint32_t s = 0; s < basis.slot_count; ++s) {
    if (basis.slots[s].device[0] != '\0') ++devices;
    unknown |= std::string(basis.slots[s].label).find("unknown") != std::string::npos;
    nodes.UnionWith(
        NodeSet::FromWords(basis.slot_nodes + static_cast<uint64_t>(s) * basis.node_words, basis.node_words));
  }
  std::string where = devices > 0 ? Plural(devices, "device", "devices") + " on " : "no devices, ";
  where +=
      nodes.Empty() ? "CPUs outside every node" : (nodes.Count() == 1 ? "node " : "nodes ") + nodes.ToList();
  bool outside = false;  // allowed CPUs in no node: an item of their own among the nodes (AddAutoUnits)
  for (uint32_t u = 0; basis.unit_domains != nullptr && u < basis.unit_count; ++u)
    outside |= basis.unit_domains[3 * static_cast<uint64_t>(u)] == kNoNode;
  if (outside && !nodes.Empty()) where += " and the CPUs outside them";
  if (unknown) where += " (locality unknown)";
  std::string line = "auto: " + where + ", " + Plural(nranks, "rank", "ranks") + " -> ";
  if (shares.empty()) return line + "no rank placed";

  // The finest level any rank needed, and the spread of the counts there.
  plan::AutoGrain finest = plan::AutoGrain::kNodes;
  uint32_t per_group_lo = ~0u, per_group_hi = 0;
  for (const plan::AutoShare& s : shares) {
    finest = std::max(finest, s.grain);
    per_group_lo = std::min(per_group_lo, s.group_ranks);
    per_group_hi = std::max(per_group_hi, s.group_ranks);
  }
  uint32_t taken_lo = ~0u, taken_hi = 0, of_hi = 0, sharers_hi = 0;
  bool mixed = false;
  for (const plan::AutoShare& s : shares) {
    if (s.grain != finest) {
      mixed = true;
      continue;
    }
    taken_lo = std::min(taken_lo, s.taken), taken_hi = std::max(taken_hi, s.taken);
    of_hi = std::max(of_hi, s.of), sharers_hi = std::max(sharers_hi, s.sharers);
  }
  if (devices > 0 && nranks < devices) {
    uint32_t lo = devices / nranks, hi = (devices + nranks - 1) / nranks;
    line += "device blocks (" + Range(lo, hi) + " devices per rank, the CPUs of the nodes they sit near)";
  } else if (devices > 0) {
    line += per_group_hi <= 1 ? "node-local, one rank per device node"
                              : "exclusive (" + Range(per_group_lo, per_group_hi) + " ranks per device node)";
  } else {
    line += "spread over every node";
  }
  std::string cache = plan::CacheName(basis);
  std::string taken = Range(taken_lo, taken_hi);
  std::string per = std::to_string(sharers_hi);
  switch (finest) {
    case plan::AutoGrain::kNodes:
      line += ": " + taken + (taken_hi == 1 ? " whole node" : " whole nodes") + " per rank";
      break;
    case plan::AutoGrain::kCaches:
      line += ": " + taken + " whole " + cache + " per rank (of " + std::to_string(of_hi) + " per node)";
      break;
    case plan::AutoGrain::kCores:
      line += ": " + taken + (taken_hi == 1 ? " core" : " cores") + " per rank (up to " + per +
              " ranks per node)";
      break;
    case plan::AutoGrain::kThreads:
      line += ": " + taken + (taken_hi == 1 ? " thread" : " threads") + " per rank in one core (up to " +
              per + " ranks per core)";
      break;
    case plan::AutoGrain::kShared: line += ": oversubscribed, up to " + per + " ranks per thread"; break;
  }
  if (mixed) line += " (uneven: ranks with fewer neighbours get more)";
  line += finest <= plan::AutoGrain::kCaches ? ", " + cache + " kept whole" : ", " + cache + " split";
  // Core kinds: the counts above are of the fastest kind's cores when every group's ranks fit on them.
  bool kinds = false, fast_only = true;
  for (uint32_t s = 0; s < basis.slot_count; ++s) {
    const plan::PlanSlot& slot = basis.slots[s];
    if (slot.fast_units == 0 || slot.fast_units >= slot.unit_count) continue;
    kinds = true;
    fast_only &= per_group_hi <= slot.fast_units;
  }
  if (kinds) line += fast_only ? ", the fastest core kind only" : ", every core kind";
  return line;
}

}  // namespace numabind::planner
