// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NIC discovery: InfiniBand and RoCE HCAs from hwloc's OpenFabrics OS devices (Linux: /sys/class/infiniband),
// with their ports and locality. hwloc gives each HCA infos named "Port<N>State" (4 = ACTIVE), "Port<N>LID",
// "Port<N>GID<i>" ...; a port that one of them names exists, and it is usable unless its state is known
// and not ACTIVE. An HCA without any port info (older hwloc, some XML files) counts as port 1, the port
// every HCA has. RDMA devices hwloc does not place (virtual ones: Soft-RoCE over a NIC without RDMA
// hardware) are read from sysfs and placed at their network interface's PCI function (rdma_sysfs.h).

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <map>

#include "base/digits.h"
#include "planner/devices.h"
#include "planner/hwloc_io.h"
#include "planner/nics.h"
#include "planner/rdma_sysfs.h"

namespace numabind::planner {

namespace {

constexpr long kPortActive = 4;  // IB_PORT_ACTIVE in /sys/class/infiniband/*/ports/*/state

// "Port12State" -> 12, "State"; false for any other name.
bool PortInfo(const char* name, uint32_t* port, const char** key) {
  if (strncmp(name, "Port", 4) != 0) return false;
  const char* end = name + 4;
  uint64_t n = 0;
  if (base::ScanDecimal(&end, nullptr, 255, &n) != base::Digits::kOk || n == 0 || *end == '\0') return false;
  *port = static_cast<uint32_t>(n);
  *key = end;
  return true;
}

}  // namespace

NodeSet NearNodes(hwloc_topology* topo, hwloc_obj* obj, const Topology& out) {
  NodeSet nodes;
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, obj);
  if (!anc || anc == hwloc_get_root_obj(topo) || !anc->cpuset) return nodes;
  CpuSet near = FromBitmap(anc->cpuset).IntersectWith(out.online);
  for (const TopoNode& n : out.nodes)
    if (!n.cpus.Empty() && !near.Empty() && near.IsSubsetOf(n.cpus)) nodes.Set(n.os);
  if (nodes.Empty())
    for (const TopoNode& n : out.nodes)
      if (n.cpus.Intersects(near)) nodes.Set(n.os);
  return nodes;
}

std::vector<std::string> PciBridges(hwloc_obj* obj) {
  std::vector<std::string> out;
  for (hwloc_obj_t a = obj ? obj->parent : nullptr; a && a->type == HWLOC_OBJ_BRIDGE; a = a->parent) {
    if (a->attr->bridge.upstream_type != HWLOC_OBJ_BRIDGE_PCI) continue;  // a host bridge
    const auto& p = a->attr->bridge.upstream.pci;
    out.push_back(FormatBusId({p.domain, p.bus, p.dev, p.func}));
  }
  return out;
}

namespace {

// The NIC's PCI function `bus_id` as hwloc has it: its bridges and nodes (none when hwloc lacks it).
void PlaceAt(hwloc_topology* topo, const std::string& bus_id, const Topology& out, Nic* nic) {
  nic->bus_id = bus_id;
  hwloc_obj_t pci = hwloc_get_pcidev_by_busidstring(topo, bus_id.c_str());
  if (!pci) return;
  nic->bridges = PciBridges(pci);
  nic->nodes = NearNodes(topo, pci, out);
  nic->locality_known = !nic->nodes.Empty();
}

// Adds the RDMA devices of sysfs under `root` that hwloc has not put under a PCI function, placed at
// their own or their network interface's function; one hwloc listed without a function (under the
// machine: HWLOC_VIRTUAL_LINUX_OSDEV=1) keeps the ports hwloc gave it.
void AddSysfsNics(hwloc_topology* topo, const std::string& root, Topology* out) {
  for (const SysfsRdma& dev : ReadSysfsRdma(root)) {
    auto known =
        std::find_if(out->nics.begin(), out->nics.end(), [&](const Nic& n) { return n.name == dev.name; });
    if (known != out->nics.end() && !known->bus_id.empty()) continue;
    if (known == out->nics.end()) {
      Nic nic;
      nic.name = dev.name;
      nic.ports = dev.ports;
      nic.down = dev.down;
      known = out->nics.insert(out->nics.end(), std::move(nic));
    }
    known->netdev = dev.netdev;
    if (!dev.bus_id.empty()) PlaceAt(topo, dev.bus_id, *out, &*known);
  }
}

}  // namespace

void ReadNics(hwloc_topology* topo, const std::string& sysfs_root, Topology* out) {
  for (hwloc_obj_t obj = hwloc_get_next_osdev(topo, nullptr); obj; obj = hwloc_get_next_osdev(topo, obj)) {
    if (obj->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS || !obj->name) continue;
    Nic nic;
    nic.name = obj->name;
    hwloc_obj_t pci = obj->parent && obj->parent->type == HWLOC_OBJ_PCI_DEVICE ? obj->parent : nullptr;
    if (pci) {
      const auto& a = pci->attr->pcidev;
      nic.bus_id = FormatBusId({a.domain, a.bus, a.dev, a.func});
      nic.bridges = PciBridges(pci);
    }
    nic.nodes = NearNodes(topo, obj, *out);
    nic.locality_known = !nic.nodes.Empty();
    std::map<uint32_t, bool> ports;  // port -> usable
    for (unsigned i = 0; i < obj->infos_count; ++i) {
      uint32_t port;
      const char* key;
      if (!obj->infos[i].name || !PortInfo(obj->infos[i].name, &port, &key)) continue;
      ports.emplace(port, true);
      if (strcmp(key, "State") == 0 && obj->infos[i].value)
        ports[port] = strtol(obj->infos[i].value, nullptr, 10) == kPortActive;
    }
    if (ports.empty()) ports[1] = true;
    for (const auto& [port, usable] : ports) (usable ? nic.ports : nic.down).push_back(port);
    out->nics.push_back(std::move(nic));
  }
  if (!sysfs_root.empty()) AddSysfsNics(topo, sysfs_root, out);
  std::stable_sort(out->nics.begin(), out->nics.end(), [](const Nic& x, const Nic& y) {
    return x.bus_id != y.bus_id ? x.bus_id < y.bus_id : x.name < y.name;
  });
  out->nics_loaded = true;
}

}  // namespace numabind::planner
