// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "planner/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "config/config.h"
#include "config/grammar.h"
#include "config/visible_devices.h"
#include "plan/plan_basis.h"

namespace numabind::planner {

namespace {

/// The most indexes a visibility variable may list (a node has at most a few dozen devices).
constexpr uint32_t kMaxVisibleIndexes = 1024;

// A visibility list by index ("0,2,3"; "0,2,-1,1" is 0,2: config/visible_devices.h): the indexes, or false
// when the variable is unset or lists UUIDs or MIG names (those cannot be matched to bus ids here, so the
// auto list stands).
bool NumericList(const char* value, std::vector<uint32_t>* out) {
  uint32_t idx[kMaxVisibleIndexes], n = 0;
  if (!config::ParseVisibleDevices(value, idx, kMaxVisibleIndexes, &n)) return false;
  out->assign(idx, idx + n);
  return true;
}

// Selects from `from` by index like the CUDA and ROCm runtimes: an out-of-range or repeated index ends
// the list (the runtimes ignore it and everything after it).
std::vector<PciDevice> Pick(const std::vector<PciDevice>& from, const std::vector<uint32_t>& indexes) {
  std::vector<PciDevice> out;
  std::vector<bool> used(from.size(), false);
  for (uint32_t i : indexes) {
    if (i >= from.size() || used[i]) break;
    used[i] = true;
    out.push_back(from[i]);
  }
  return out;
}

// Whether a VGA-class device is a compute GPU rather than a management or integrated adapter: hwloc put a
// compute OS device under it (a file made with its GPU backends; a DRM card0 is not one: every adapter
// with a kernel driver has it), or it sits on a PCIe link of
// at least kComputeLinkGbps (a BMC's VGA is on one lane or plain PCI, integrated graphics on none).
constexpr float kComputeLinkGbps = 4.0f;  // PCIe 3.0 x4; compute GPUs are x8 or x16
bool ComputeEvidence(const PciDevice& d) { return d.compute_osdev || d.link_gbps >= kComputeLinkGbps; }

}  // namespace

std::string FormatBusId(const config::BusId& id) {
  char buf[config::kBusIdTextMax];
  return std::string(buf, config::FormatBusId(id, buf));
}

bool NormalizeBusId(const std::string& text, std::string* out) {
  config::BusId id;
  if (!config::ParseBusId(text.c_str(), text.size(), &id)) return false;
  *out = FormatBusId(id);
  return true;
}

DeviceSpec DeviceSpecOf(const config::Devices& devices) {
  DeviceSpec spec;
  spec.mode = devices.mode;
  config::BusIds ids(devices);
  config::BusId id;
  while (ids.Next(&id)) spec.bus_ids.push_back(FormatBusId(id));
  return spec;
}

bool IsAccelerator(const PciDevice& d) {
  uint32_t base = d.class_id >> 8;
  switch (d.vendor) {
    case plan::kPciNvidia:  // GPUs are VGA (0x0300) or 3D (0x0302) controllers; NVSwitch is a bridge.
      return d.class_id == 0x0300 || d.class_id == 0x0302;
    case plan::kPciAmd:  // Instinct: display-other (0x0380) or processing accelerator (0x12xx); MI50/MI60
                         // (Vega 20) report VGA (0x0300), as does a server's management VGA (ES1000 and kin):
                         // evidence decides.
      return d.class_id == 0x0380 || base == 0x12 || (d.class_id == 0x0300 && ComputeEvidence(d));
    case plan::kPciIntel:  // Data Center GPU Max/Flex: 0x0380 / 0x0302; a VGA (0x0300) is integrated graphics
                           // unless evidence says it is a discrete GPU.
      return d.class_id == 0x0380 || d.class_id == 0x0302 || base == 0x12 ||
             (d.class_id == 0x0300 && ComputeEvidence(d));
    case plan::kPciHabana:  // Gaudi: every function it exposes is the accelerator.
      return true;
    case 0x1e52:  // Tenstorrent
    case 0x17cb:  // Qualcomm Cloud AI
    case 0x1de0:  // Groq
    case 0x19e5:  // Huawei Ascend (its NICs are class 0x02: excluded by the class test)
    case 0xcabc:  // Cambricon
    case 0x1ed2:  // FuriosaAI
      return base == 0x12;
    default:  // ASPEED (0x1a03), Matrox (0x102b) and every other VGA: management adapters.
      return false;
  }
}

void DropFarDevices(const Topology& topo, std::vector<PciDevice>* devices) {
  NodeSet near = topo.NodesWithAllowedCpus();
  devices->erase(
      std::remove_if(devices->begin(), devices->end(),
                     [&](const PciDevice& d) { return d.locality_known && !d.nodes.Intersects(near); }),
      devices->end());
}

bool SelectDevices(const Topology& topo, const DeviceSpec& spec, const char* const* env,
                   std::vector<PciDevice>* out, std::string* err) {
  out->clear();
  if (spec.mode == config::DeviceMode::kNone) return true;
  if (spec.mode == config::DeviceMode::kList) {
    bool pci_known = topo.io_loaded && !topo.pci.empty();
    for (const std::string& id : spec.bus_ids) {
      const PciDevice* found = nullptr;
      for (const PciDevice& d : topo.pci)
        if (d.bus_id == id) found = &d;
      if (found) {
        out->push_back(*found);
      } else if (pci_known) {
        *err = "NUMABIND_DEVICES: no PCI device " + id + " in the topology of the " + topo.source;
        return false;
      } else {
        PciDevice d;
        d.bus_id = id;
        config::BusId parsed;  // id passed NormalizeBusId, so it parses: the one bus id grammar, not sscanf
        if (config::ParseBusId(id.data(), id.size(), &parsed))
          d.domain = parsed.domain, d.bus = parsed.bus, d.dev = parsed.dev, d.func = parsed.func;
        out->push_back(d);  // locality unknown: near every node
      }
    }
    return true;
  }
  // auto: accelerators in bus id order.
  std::vector<PciDevice> all, nvidia, amd;
  for (const PciDevice& d : topo.pci)
    if (IsAccelerator(d)) all.push_back(d);
  std::stable_sort(all.begin(), all.end(), [](const PciDevice& x, const PciDevice& y) {
    if (x.domain != y.domain) return x.domain < y.domain;
    if (x.bus != y.bus) return x.bus < y.bus;
    if (x.dev != y.dev) return x.dev < y.dev;
    return x.func < y.func;
  });
  for (const PciDevice& d : all) {
    if (d.vendor == plan::kPciNvidia) nvidia.push_back(d);
    if (d.vendor == plan::kPciAmd) amd.push_back(d);
  }
  // CUDA numbers NVIDIA GPUs; with CUDA_DEVICE_ORDER=PCI_BUS_ID that is bus id order. Its default
  // (FASTEST_FIRST) equals bus id order on the identical GPUs of a training node, which is what we assume.
  // ROCm: ROCR_VISIBLE_DEVICES selects first, HIP_VISIBLE_DEVICES indexes what ROCR left.
  config::VisibleVars vars = config::LookupVisibleVars(env);
  std::vector<uint32_t> idx;
  bool applied = false;
  std::vector<PciDevice> chosen;
  if (!nvidia.empty() && NumericList(vars.cuda, &idx)) {
    std::vector<PciDevice> pick = Pick(nvidia, idx);
    chosen.insert(chosen.end(), pick.begin(), pick.end());
    applied = true;
  }
  if (!amd.empty()) {
    std::vector<PciDevice> rocm = amd;
    bool amd_applied = false;
    if (NumericList(vars.rocr, &idx)) {
      rocm = Pick(rocm, idx);
      amd_applied = true;
    }
    if (NumericList(vars.hip, &idx)) {
      rocm = Pick(rocm, idx);
      amd_applied = true;
    }
    if (amd_applied) {
      chosen.insert(chosen.end(), rocm.begin(), rocm.end());
      applied = true;
    }
  }
  // A job that says which GPUs it uses uses exactly those.
  *out = applied ? chosen : all;
  return true;
}

}  // namespace numabind::planner
