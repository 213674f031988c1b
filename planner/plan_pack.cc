// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Packing a plan into one PlanBasis block (plan_pack.h): the struct, then its arrays, each 8-byte aligned,
// so that the block can be copied to another process as it is (BasisToOffsets).

#include "planner/plan_pack.h"

#include <stdlib.h>
#include <string.h>

#include <algorithm>

namespace numabind::core {

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

}  // namespace

PlanBasis* Pack(const Topology& topo, const Policy& policy, MemoryKind memory, bool spread,
                const std::vector<Draft>& drafts, const std::vector<CpuSet>& units, const AutoUnits& extra,
                bool want_nics, std::string* err) {
  std::vector<NicPlace> places;
  for (const Draft& d : drafts) places.push_back(want_nics ? d.place : NicPlace{"", NodeSet(), true});
  NicTables nics = want_nics ? BuildNicTables(topo, places) : NicTables{};
  nics.slot_set.resize(drafts.size(), -1);
  if (nics.text.empty()) nics.text.assign(1, '\0');
  uint32_t cpu_words = std::max({topo.complete.UsedWords(), topo.allowed.UsedWords(), 1u});
  for (const CpuSet& u : units) cpu_words = std::max(cpu_words, u.UsedWords());
  uint32_t node_words = std::max((topo.NodeLimit() + 63) / 64, 1u);
  for (const Draft& d : drafts) node_words = std::max(node_words, d.nodes.UsedWords());

  auto align8 = [](size_t v) { return (v + 7) & ~size_t{7}; };
  size_t slots_off = align8(sizeof(PlanBasis));
  size_t nodes_off = align8(slots_off + drafts.size() * sizeof(PlanSlot));
  size_t units_off = nodes_off + drafts.size() * node_words * sizeof(uint64_t);
  size_t siblings_off = units_off + units.size() * cpu_words * sizeof(uint64_t);
  size_t domains_off = siblings_off + static_cast<size_t>(cpu_words) * 64 * sizeof(uint32_t);
  size_t sets_off = align8(domains_off + extra.domains.size() * sizeof(uint32_t));
  size_t ranges_off = sets_off + nics.sets.size() * sizeof(PlanNicSet);
  size_t text_off = ranges_off + nics.ranges.size() * sizeof(uint32_t);
  size_t total = align8(text_off + nics.text.size());
  char* block = static_cast<char*>(calloc(1, total));
  if (!block) {
    *err = "out of memory preparing the plan";
    return nullptr;
  }
  PlanBasis* basis = reinterpret_cast<PlanBasis*>(block);
  PlanSlot* slots = reinterpret_cast<PlanSlot*>(block + slots_off);
  uint64_t* slot_nodes = reinterpret_cast<uint64_t*>(block + nodes_off);
  uint64_t* unit_cpus = reinterpret_cast<uint64_t*>(block + units_off);
  uint32_t* siblings = reinterpret_cast<uint32_t*>(block + siblings_off);
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
  basis->total_bytes = total;
  if (policy.kind == PolicyKind::kAuto) {  // even without units: the received block is checked for it
    uint32_t* domains = reinterpret_cast<uint32_t*>(block + domains_off);
    // No units (no rank can be placed) leaves the vector empty and its data() null: memcpy's arguments must
    // not be null even for 0 bytes (UBSan: "null pointer passed as argument 2").
    if (!extra.domains.empty())
      memcpy(domains, extra.domains.data(), extra.domains.size() * sizeof(uint32_t));
    basis->unit_domains = domains;
  }
  basis->llc_level = extra.llc_level;
  basis->nic_set_count = static_cast<uint32_t>(nics.sets.size());
  basis->nic_range_count = static_cast<uint32_t>(nics.ranges.size());
  basis->nic_sets = reinterpret_cast<PlanNicSet*>(block + sets_off);
  basis->nic_ranges = reinterpret_cast<uint32_t*>(block + ranges_off);
  basis->nic_text = block + text_off;
  basis->nic_text_bytes = nics.text.size();
  if (!nics.sets.empty()) memcpy(block + sets_off, nics.sets.data(), nics.sets.size() * sizeof(PlanNicSet));
  if (!nics.ranges.empty())
    memcpy(block + ranges_off, nics.ranges.data(), nics.ranges.size() * sizeof(uint32_t));
  memcpy(block + text_off, nics.text.data(), nics.text.size());
  CopyText(basis->policy_text, sizeof basis->policy_text, policy.text);
  CopyText(basis->memory_text, sizeof basis->memory_text, MemoryName(memory));
  for (size_t i = 0; i < drafts.size(); ++i) {
    slots[i].group = drafts[i].group;
    slots[i].first_unit = drafts[i].first_unit;
    slots[i].unit_count = drafts[i].unit_count;
    CopyText(slots[i].label, sizeof slots[i].label, drafts[i].label);
    CopyText(slots[i].device, sizeof slots[i].device, drafts[i].device);
    slots[i].device_vendor = drafts[i].vendor;
    slots[i].device_ordinal = drafts[i].ordinal;
    slots[i].nic_set = nics.slot_set[i];
    drafts[i].nodes.CopyTo(slot_nodes + i * node_words, node_words);
  }
  for (size_t i = 0; i < units.size(); ++i) units[i].CopyTo(unit_cpus + i * cpu_words, cpu_words);
  // SMT siblings as rings (ascending, then back to the core's lowest CPU): OMP_PLACES per core.
  uint32_t bits = cpu_words * 64;
  for (uint32_t c = 0; c < bits; ++c) siblings[c] = c;
  for (const TopoCore& core : topo.cores) {
    int64_t first = core.cpus.First();
    for (int64_t c = first; c >= 0 && c < bits;) {
      int64_t next = core.cpus.Next(c);
      siblings[c] = static_cast<uint32_t>(next >= 0 && next < bits ? next : first);
      c = next;
    }
  }
  basis->cpu_sibling = siblings;
  return basis;
}

}  // namespace numabind::core
