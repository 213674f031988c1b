// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Which rails are nearest each slot (nics.h), and the tables the basis carries so that the child side only
// picks (PickNics).

#include <algorithm>

#include "planner/nics.h"

namespace numabind::planner {

namespace {

// Packages (indexes) holding the CPUs of `nodes`.
std::vector<int32_t> PackagesOf(const Topology& topo, const NodeSet& nodes) {
  std::vector<int32_t> out;
  CpuSet cpus = topo.CpusOfNodes(nodes);
  for (size_t p = 0; p < topo.packages.size(); ++p)
    if (topo.packages[p].cpus.Intersects(cpus)) out.push_back(static_cast<int32_t>(p));
  return out;
}

bool Shares(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

}  // namespace

const char* NicTierName(NicTier tier) {
  switch (tier) {
    case NicTier::kSwitch: return "switch";
    case NicTier::kNode: return "node";
    case NicTier::kPackage: return "package";
    case NicTier::kAny: return "any";
    case NicTier::kNone: break;
  }
  return "none";
}

std::vector<std::string> NearestRails(const Topology& topo, const NicPlace& place, NicTier* tier,
                                      const std::vector<std::string>& claimed) {
  const PciDevice* device = nullptr;
  for (const PciDevice& d : topo.pci)
    if (!place.device.empty() && d.bus_id == place.device) device = &d;
  std::vector<int32_t> packages = place.unknown ? std::vector<int32_t>() : PackagesOf(topo, place.nodes);
  auto near = [&](const Nic& n, NicTier t) {
    switch (t) {
      case NicTier::kSwitch: return device != nullptr && Shares(device->bridges, n.bridges);
      case NicTier::kNode: return !place.unknown && n.locality_known && n.nodes.Intersects(place.nodes);
      case NicTier::kPackage: {
        if (place.unknown || !n.locality_known) return false;
        for (int32_t p : PackagesOf(topo, n.nodes))
          if (std::find(packages.begin(), packages.end(), p) != packages.end()) return true;
        return false;
      }
      case NicTier::kAny: return true;
      case NicTier::kNone: break;
    }
    return false;
  };
  std::vector<std::string> rails;
  *tier = NicTier::kNone;
  for (NicTier t : {NicTier::kSwitch, NicTier::kNode, NicTier::kPackage, NicTier::kAny}) {
    // Beyond the switch tier, HCAs behind another device's switch come last: that device's ranks use them.
    for (bool take_claimed : {false, true}) {
      for (const Nic& n : topo.nics) {
        bool is_claimed =
            t != NicTier::kSwitch && std::find(claimed.begin(), claimed.end(), n.name) != claimed.end();
        if (is_claimed != take_claimed || !near(n, t)) continue;
        for (uint32_t port : n.ports)
          if (rails.size() < plan::kMaxNicRails) rails.push_back(n.name + ":" + std::to_string(port));
      }
      if (!rails.empty()) {
        *tier = t;
        return rails;
      }
    }
  }
  return rails;
}

NicTables BuildNicTables(const Topology& topo, const std::vector<NicPlace>& places) {
  NicTables t;
  t.text.assign(1, '\0');
  std::vector<std::vector<std::string>> lists;
  // HCAs behind the same PCIe switch as one of the slots' devices.
  std::vector<std::string> claimed;
  for (const NicPlace& place : places) {
    for (const PciDevice& d : topo.pci) {
      if (place.device.empty() || d.bus_id != place.device) continue;
      for (const Nic& n : topo.nics)
        if (Shares(d.bridges, n.bridges)) claimed.push_back(n.name);
    }
  }
  for (const NicPlace& place : places) {
    NicTier tier;
    std::vector<std::string> rails = NearestRails(topo, place, &tier, claimed);
    if (rails.empty()) {
      t.slot_set.push_back(-1);
      continue;
    }
    auto it = std::find(lists.begin(), lists.end(), rails);
    if (it != lists.end()) {
      t.slot_set.push_back(static_cast<int32_t>(it - lists.begin()));
      continue;
    }
    t.slot_set.push_back(static_cast<int32_t>(lists.size()));
    lists.push_back(rails);
    uint32_t k = static_cast<uint32_t>(rails.size());
    t.sets.push_back(plan::PlanNicSet{k, static_cast<uint32_t>(t.ranges.size())});
    size_t first = t.ranges.size();
    t.ranges.resize(first + static_cast<size_t>(k) * k, 0);  // runs past the end point at ""
    for (uint32_t start = 0; start < k; ++start) {
      for (uint32_t len = 1; start + len <= k; ++len) {
        t.ranges[first + static_cast<size_t>(start) * k + len - 1] = static_cast<uint32_t>(t.text.size());
        for (uint32_t i = start; i < start + len; ++i) t.text += (i > start ? "," : "") + rails[i];
        t.text.push_back('\0');
      }
    }
  }
  return t;
}

}  // namespace numabind::planner
