// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The machine as plain data: processing units (PUs, the kernel's CPUs) with their core, last-level cache,
// NUMA node and package; NUMA nodes; packages; PCI devices with their NUMA locality; and the sets of CPUs
// that are online and that a plan may use. LoadTopology (topology_load.cc) fills it with hwloc from the
// live machine, an hwloc XML file or an hwloc synthetic description; nothing here needs hwloc, so tests
// can also build a Topology by hand.

#ifndef NUMABIND_PLANNER_TOPOLOGY_H_
#define NUMABIND_PLANNER_TOPOLOGY_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "planner/cpu_set.h"

namespace numabind::planner {

/// One online PU. Indexes refer to Topology's vectors; -1 when the PU has none (a PU outside every NUMA
/// node of a restricted topology, a synthetic topology without packages or caches).
struct TopoPu {
  uint32_t os = 0;       ///< the kernel's CPU number
  int32_t core = -1;     ///< index into Topology::cores
  int32_t llc = -1;      ///< index into Topology::llcs
  int32_t node = -1;     ///< index into Topology::nodes: the PU's local node
  int32_t package = -1;  ///< index into Topology::packages
};

/// A physical core: its online PUs (SMT siblings).
struct TopoCore {
  CpuSet cpus;
};

/// A last-level cache domain: the online PUs sharing the deepest data or unified CPU cache above them
/// (memory-side caches do not count). A PU without any cache is a domain of its own core.
struct TopoCache {
  CpuSet cpus;
  uint32_t level = 0;  ///< 0 when the domain stands for a core without cache information
};

struct TopoNode {
  uint32_t os = 0;      ///< the kernel's node number
  CpuSet cpus;          ///< online PUs whose local node this is (empty for HBM/MCDRAM/CXL memory)
  CpuSet locality;      ///< hwloc's cpuset of the node (CPUs near it; non-empty for HBM too)
  uint64_t memory = 0;  ///< bytes of local memory, 0 when unknown
  std::string subtype;  ///< hwloc's subtype ("MCDRAM", "HBM", ...), "" for ordinary memory
  /// No CPU's local node, not even an offline or disallowed one's: memory that belongs to no CPU (CXL
  /// expanders, HBM in flat mode, KNL MCDRAM, GPU memory), which hwloc attaches beside a CPU node. Never a
  /// rank's node; NUMABIND_MEMORY=near and weighted add the nearest ones (planner/memory_tiers.h).
  bool memory_only = false;
};

struct TopoPackage {
  uint32_t os = 0;
  CpuSet cpus;  ///< online PUs
};

/// A PCI device. Locality: the NUMA nodes (with CPUs) near it; empty `nodes` with locality_known false
/// when hwloc has no locality for it (attached to the machine as a whole).
struct PciDevice {
  uint32_t domain = 0;
  uint32_t bus = 0, dev = 0, func = 0;
  uint32_t vendor = 0, device = 0;
  uint32_t class_id = 0;  ///< class << 8 | subclass: 0x0300 VGA, 0x0302 3D, 0x0380 display, 0x1200 accel.
  std::string bus_id;     ///< "0000:34:00.0"
  std::string name;       ///< hwloc's PCIVendor/PCIDevice infos when the file has them
  float link_gbps = 0;    ///< hwloc's PCIe link speed (GB/s, width included); 0 when unknown or plain PCI
  /// hwloc put a compute OS device under it (CUDA, NVML, RSMI, OpenCL, Level Zero, a co-processor); a DRM
  /// card (card0), which every display adapter with a kernel driver has, does not count.
  bool compute_osdev = false;
  /// The UUID its runtime's visibility variables accept ("GPU-..."), from the NVML or RSMI OS device under
  /// it (a file made with hwloc's GPU backends) or, on the live machine, from its driver
  /// (planner/gpu_uuids.h); "" when neither says.
  std::string uuid;
  bool locality_known = false;
  NodeSet nodes;  ///< node os numbers
  /// Bus ids of the PCI-to-PCI bridges above it (switch and root ports), nearest first; filled when NICs
  /// are discovered (LoadOptions::nics): two devices sharing one sit behind the same switch.
  std::vector<std::string> bridges;
};

/// A network device that ranks can talk through: an InfiniBand/RoCE HCA (hwloc's OpenFabrics OS device,
/// such as mlx5_0) with the ports it can use. planner/nics.h discovers them.
struct Nic {
  std::string name;             ///< "mlx5_0"
  std::string bus_id;           ///< its PCI function (its netdev's for a virtual device), "" for none
  std::string netdev;           ///< the network interface a virtual device (Soft-RoCE) runs over, or ""
  std::vector<uint32_t> ports;  ///< usable ports, in order (ACTIVE, or state unknown)
  std::vector<uint32_t> down;   ///< ports whose known state is not ACTIVE
  bool locality_known = false;
  NodeSet nodes;                     ///< node os numbers near it, as PciDevice::nodes
  std::vector<std::string> bridges;  ///< as PciDevice::bridges
};

struct Topology {
  std::string source;  ///< "live machine", the XML path, or "synthetic:DESC"
  bool live = false;
  std::vector<TopoPu> pus;  ///< online PUs in increasing os order
  std::vector<TopoCore> cores;
  std::vector<TopoCache> llcs;
  std::vector<TopoNode> nodes;  ///< in increasing os order, CPU-less nodes included
  std::vector<TopoPackage> packages;
  CpuSet complete;       ///< every CPU the machine has, offline ones included
  CpuSet online;         ///< the PUs present
  CpuSet hwloc_allowed;  ///< hwloc's allowed set (cgroup/cpuset; the file's allowed_cpuset)
  CpuSet affinity;       ///< the calling thread's sched_getaffinity (live machine only; else == online)
  /// The CPUs a plan may use: online ∩ hwloc_allowed ∩ affinity.
  CpuSet allowed;
  NodeSet allowed_nodes;  ///< hwloc's allowed nodeset
  /// The CPUs of the fastest CPU kind (hwloc cpukinds, kinds within 5% in frequency merged); empty when
  /// the machine has one kind. exclusive, core-complex and auto put ranks there first (issue 36).
  CpuSet fastest_kind;
  bool io_loaded = false;      ///< PCI discovery ran (false: devices unknown, not absent)
  std::vector<PciDevice> pci;  ///< in increasing bus id order
  bool nics_loaded = false;    ///< NIC discovery ran (LoadOptions::nics)
  std::vector<Nic> nics;       ///< by bus id, then name
  /// The firmware's relative latencies between nodes (hwloc's NUMALatency: ACPI SLIT, or a file's),
  /// nodes.size() squared by index into nodes, row-major; empty when unknown. Distance() reads it.
  std::vector<uint64_t> distances;

  const TopoPu* FindPu(uint32_t os) const;
  /// Index into nodes of node number os, or -1.
  int NodeIndex(uint32_t os) const;
  /// Node numbers of the nodes that have CPUs (online, allowed or not).
  NodeSet CpuNodes() const;
  /// Node numbers of the nodes that have allowed CPUs.
  NodeSet NodesWithAllowedCpus() const;
  /// Online CPUs whose local node is in `nodes`.
  CpuSet CpusOfNodes(const NodeSet& nodes) const;
  /// Local nodes of the CPUs in `cpus` (node numbers).
  NodeSet NodesOfCpus(const CpuSet& cpus) const;
  /// The nodes memory may go on by default: the allowed ones (cpuset.mems) that are not memory-only, else
  /// every allowed one, else every node with CPUs (a topology without an allowed node set).
  NodeSet MemoryNodes() const;
  /// The latency from node `from` to node `to` (node numbers) in the firmware's units (10 is local); 0 when
  /// unknown.
  uint64_t Distance(uint32_t from, uint32_t to) const;
  /// Every node number the topology has, plus one (0 when it has none).
  uint32_t NodeLimit() const;
};

/// What LoadTopology should discover besides CPUs and memory.
struct LoadOptions {
  bool pci = false;      ///< PCI devices and their locality (costs time: only when devices are wanted)
  bool all_pci = false;  ///< every PCI device, not only the classes hwloc counts as important
  bool nics = false;     ///< InfiniBand/RoCE HCAs (OS devices; costs time: only when NICs are wanted)
  /// Where sysfs and /proc are, a directory holding sys/ and proc/: with nics, for the RDMA devices hwloc
  /// cannot place (planner/rdma_sysfs.h); with pci, for the GPUs' UUIDs (planner/gpu_uuids.h). "" = the live
  /// machine's (HWLOC_FSROOT's when set, as hwloc reads it, else "/"); a file or a synthetic topology reads
  /// none unless one is given here.
  std::string sysfs_root;
};

/// Loads `spec`: nullptr or "" = the live machine; "synthetic:DESC" (DESC may be quoted) = an hwloc
/// synthetic description such as "pack:2 numa:2 l3:2 core:4 pu:2"; anything else = an hwloc XML file.
/// Returns false with a one-line reason in *err.
bool LoadTopology(const char* spec, const LoadOptions& options, Topology* out, std::string* err);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_TOPOLOGY_H_
