// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The hwloc side of I/O discovery, shared by topology_load.cc (PCI devices) and nics.cc (network devices),
// and the hint for XML files of a newer hwloc (xml_version.cc): the only files of numabind that include
// hwloc. hwloc's types are declared, not included, so that this
// header stays free of hwloc for everything else.

#ifndef NUMABIND_PLANNER_HWLOC_IO_H_
#define NUMABIND_PLANNER_HWLOC_IO_H_

#include <string>
#include <vector>

#include "planner/topology.h"

struct hwloc_topology;
struct hwloc_obj;
struct hwloc_bitmap_s;

namespace numabind::planner {

/// An hwloc bitmap as a set (empty for nullptr or an infinite bitmap).
CpuSet FromBitmap(const hwloc_bitmap_s* bitmap);

/// The nodes (with CPUs) near an I/O object: those whose CPUs cover the CPUs of its first non-I/O ancestor;
/// when the ancestor spans several nodes (a package of a sub-NUMA-clustered machine), the nodes inside it.
/// Empty (locality unknown) for an object hanging off the machine itself.
NodeSet NearNodes(hwloc_topology* topo, hwloc_obj* obj, const Topology& out);

/// Bus ids of the PCI-to-PCI bridges above `obj`, nearest first (host bridges have none).
std::vector<std::string> PciBridges(hwloc_obj* obj);

/// Fills out->nics from the OpenFabrics OS devices of a loaded topology (LoadOptions::nics), and, when
/// `sysfs_root` is not "", the RDMA devices of its sysfs that hwloc does not place (rdma_sysfs.h).
void ReadNics(hwloc_topology* topo, const std::string& sysfs_root, Topology* out);

/// For an XML file hwloc could not load: " (the file is hwloc XML version 3.0, newer than hwloc 2.9.0
/// here reads: ...)" when its format is newer than the running hwloc's; "" otherwise (xml_version.cc).
std::string XmlVersionHint(const std::string& path);

/// The online CPUs of the fastest CPU kind, kinds within 5% of its maximum frequency included (cpu_kinds.cc);
/// empty when the machine has one kind.
CpuSet FastestKindCpus(hwloc_topology* topo, const CpuSet& online);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_HWLOC_IO_H_
