// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Packing a plan into one PlanBasis block (plan_pack.h): the struct, then its arrays, each 8-byte aligned,
// so that the block can be copied to another process as it is (BasisToOffsets).

#include "planner/plan_pack.h"

#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "planner/devices.h"
#include "planner/memory_tiers.h"

namespace numabind::planner {

namespace {

void CopyText(char* dst, size_t cap, const std::string& src) {
  size_t n = src.size() < cap - 1 ? src.size() : cap - 1;
  if (src.size() > cap - 1 && cap > 4) {
    n = cap - 4;
    memcpy(dst, src.data(), n);
    memcpy(dst + n, "...", 4);
    return;
  }
  memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

/// Where each array of the block starts (8-byte aligned where its elements need it), and the block's size.
struct Layout {
  size_t slots, nodes, units, siblings, domains, sets, ranges, text, tiers, total;
};

Layout LayOut(size_t slot_count, size_t unit_count, uint32_t cpu_words, uint32_t node_words,
              const AutoUnits& extra, const NicTables& nics, size_t tier_rows) {
  auto align8 = [](size_t v) { return (v + 7) & ~size_t{7}; };
  Layout l;
  l.slots = align8(sizeof(plan::PlanBasis));
  l.nodes = align8(l.slots + slot_count * sizeof(plan::PlanSlot));
  l.units = l.nodes + slot_count * node_words * sizeof(uint64_t);
  l.siblings = l.units + unit_count * cpu_words * sizeof(uint64_t);
  l.domains = l.siblings + static_cast<size_t>(cpu_words) * 64 * sizeof(uint32_t);
  l.sets = align8(l.domains + extra.domains.size() * sizeof(uint32_t));
  l.ranges = l.sets + nics.sets.size() * sizeof(plan::PlanNicSet);
  l.text = l.ranges + nics.ranges.size() * sizeof(uint32_t);
  l.tiers = align8(l.text + nics.text.size());
  l.total = l.tiers + tier_rows * node_words * sizeof(uint64_t);
  return l;
}

/// One slot per draft, with its node set.
void FillSlots(const std::vector<Draft>& drafts, const NicTables& nics, uint32_t node_words,
               plan::PlanSlot* slots, uint64_t* slot_nodes) {
  for (size_t i = 0; i < drafts.size(); ++i) {
    slots[i].group = drafts[i].group;
    slots[i].first_unit = drafts[i].first_unit;
    slots[i].unit_count = drafts[i].unit_count;
    slots[i].fast_units = drafts[i].fast_units;
    CopyText(slots[i].label, sizeof slots[i].label, drafts[i].label);
    CopyText(slots[i].device, sizeof slots[i].device, drafts[i].device);
    slots[i].device_vendor = drafts[i].vendor;
    slots[i].device_ordinal = drafts[i].ordinal;
    // A UUID that does not fit is left out rather than cut: a cut one would match as a prefix.
    slots[i].uuid[0] = '\0';
    if (drafts[i].uuid.size() < sizeof slots[i].uuid)
      memcpy(slots[i].uuid, drafts[i].uuid.c_str(), drafts[i].uuid.size() + 1);
    slots[i].nic_set = nics.slot_set[i];
    drafts[i].nodes.CopyTo(slot_nodes + i * node_words, node_words);
  }
}

/// SMT siblings as rings (ascending, then back to the core's lowest CPU): OMP_PLACES per core.
void FillSiblings(const Topology& topo, uint32_t bits, uint32_t* siblings) {
  for (uint32_t c = 0; c < bits; ++c) siblings[c] = c;
  for (const TopoCore& core : topo.cores) {
    int64_t first = core.cpus.First();
    for (int64_t c = first; c >= 0 && c < bits;) {
      int64_t next = core.cpus.Next(c);
      siblings[c] = static_cast<uint32_t>(next >= 0 && next < bits ? next : first);
      c = next;
    }
  }
}

/// The NIC tables into the block. No memcpy of an empty vector: its data() may be null, which memcpy's
/// arguments must not be even for 0 bytes (UBSan: "null pointer passed as argument 2").
void CopyNics(const NicTables& nics, const Layout& l, char* block, plan::PlanBasis* basis) {
  basis->nic_set_count = static_cast<uint32_t>(nics.sets.size());
  basis->nic_range_count = static_cast<uint32_t>(nics.ranges.size());
  basis->nic_sets = reinterpret_cast<plan::PlanNicSet*>(block + l.sets);
  basis->nic_ranges = reinterpret_cast<uint32_t*>(block + l.ranges);
  basis->nic_text = block + l.text;
  basis->nic_text_bytes = nics.text.size();
  if (!nics.sets.empty())
    memcpy(block + l.sets, nics.sets.data(), nics.sets.size() * sizeof(plan::PlanNicSet));
  if (!nics.ranges.empty())
    memcpy(block + l.ranges, nics.ranges.data(), nics.ranges.size() * sizeof(uint32_t));
  memcpy(block + l.text, nics.text.data(), nics.text.size());
}

/// near and weighted: the memory-only nodes each node adds, and every memory-only node in the last row
/// (plan/plan_tiers.cc).
void FillTiers(const Topology& topo, uint32_t node_words, char* block, const Layout& l,
               plan::PlanBasis* basis) {
  uint32_t rows = node_words * 64 + 1;
  uint64_t* table = reinterpret_cast<uint64_t*>(block + l.tiers);
  MemoryTiers tiers = NearMemoryTiers(topo);
  for (size_t n = 0; n < tiers.near.size() && n + 1 < rows; ++n)
    tiers.near[n].CopyTo(table + n * node_words, node_words);
  tiers.memory_only.CopyTo(table + static_cast<size_t>(rows - 1) * node_words, node_words);
  basis->tier_rows = rows;
  basis->tier_nodes = table;
  for (const PciDevice& d : topo.pci)
    if (IsAccelerator(d)) basis->tier_flags |= plan::kTierGpus;
}

}  // namespace

plan::PlanBasis* Pack(const Topology& topo, const Policy& policy, config::MemoryKind memory, bool spread,
                      const std::vector<Draft>& drafts, const std::vector<CpuSet>& units,
                      const AutoUnits& extra, bool want_nics, std::string* err) {
  std::vector<NicPlace> places;
  for (const Draft& d : drafts) places.push_back(want_nics ? d.place : NicPlace{"", NodeSet(), true});
  NicTables nics = want_nics ? BuildNicTables(topo, places) : NicTables{};
  nics.slot_set.resize(drafts.size(), -1);
  if (nics.text.empty()) nics.text.assign(1, '\0');
  uint32_t cpu_words = std::max({topo.complete.UsedWords(), topo.allowed.UsedWords(), 1u});
  for (const CpuSet& u : units) cpu_words = std::max(cpu_words, u.UsedWords());
  uint32_t node_words = std::max((topo.NodeLimit() + 63) / 64, 1u);
  for (const Draft& d : drafts) node_words = std::max(node_words, d.nodes.UsedWords());

  bool tiers = memory == config::MemoryKind::kNear || memory == config::MemoryKind::kWeighted;
  Layout l = LayOut(drafts.size(), units.size(), cpu_words, node_words, extra, nics,
                    tiers ? node_words * 64 + 1 : 0);
  char* block = static_cast<char*>(calloc(1, l.total));
  if (!block) {
    *err = "out of memory preparing the plan";
    return nullptr;
  }
  plan::PlanBasis* basis = reinterpret_cast<plan::PlanBasis*>(block);
  plan::PlanSlot* slots = reinterpret_cast<plan::PlanSlot*>(block + l.slots);
  uint64_t* slot_nodes = reinterpret_cast<uint64_t*>(block + l.nodes);
  uint64_t* unit_cpus = reinterpret_cast<uint64_t*>(block + l.units);
  uint32_t* siblings = reinterpret_cast<uint32_t*>(block + l.siblings);
  basis->policy = policy.kind;
  basis->memory = memory;
  basis->spread_in_blocks = spread;
  basis->cpu_words = cpu_words;
  basis->node_words = node_words;
  basis->slot_count = static_cast<uint32_t>(drafts.size());
  basis->slots = slots;
  basis->slot_nodes = slot_nodes;
  basis->unit_count = static_cast<uint32_t>(units.size());
  basis->unit_cpus = unit_cpus;
  basis->total_bytes = l.total;
  if (policy.kind == config::PolicyKind::kAuto) {  // even without units: the received block is checked for it
    uint32_t* domains = reinterpret_cast<uint32_t*>(block + l.domains);
    if (!extra.domains.empty())  // see CopyNics: no null data() into memcpy
      memcpy(domains, extra.domains.data(), extra.domains.size() * sizeof(uint32_t));
    basis->unit_domains = domains;
  }
  basis->llc_level = extra.llc_level;
  CopyNics(nics, l, block, basis);
  CopyText(basis->policy_text, sizeof basis->policy_text, policy.text);
  CopyText(basis->memory_text, sizeof basis->memory_text, config::MemoryName(memory));
  FillSlots(drafts, nics, node_words, slots, slot_nodes);
  for (size_t i = 0; i < units.size(); ++i) units[i].CopyTo(unit_cpus + i * cpu_words, cpu_words);
  FillSiblings(topo, cpu_words * 64, siblings);
  basis->cpu_sibling = siblings;
  if (tiers) FillTiers(topo, node_words, block, l, basis);
  return basis;
}

}  // namespace numabind::planner
