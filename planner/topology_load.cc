// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// LoadTopology: hwloc -> plain Topology. With nics.cc (hwloc_io.h), the only files that include hwloc.

#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "base/digits.h"
#include "planner/devices.h"
#include "planner/gpu_uuids.h"
#include "planner/hwloc_io.h"
#include "planner/topology.h"

namespace numabind::planner {

CpuSet FromBitmap(hwloc_const_bitmap_t bitmap) {
  CpuSet s;
  if (!bitmap) return s;
  // An infinite bitmap (hwloc's "all") has no last bit; nothing numabind reads is infinite, but never loop
  // forever on one.
  if (hwloc_bitmap_last(bitmap) < 0 && !hwloc_bitmap_iszero(bitmap)) return s;
  for (int i = hwloc_bitmap_first(bitmap); i >= 0; i = hwloc_bitmap_next(bitmap, i)) {
    if (static_cast<uint32_t>(i) >= CpuSet::kMaxBits) break;
    s.Set(static_cast<uint32_t>(i));
  }
  return s;
}

namespace {

bool IsSpecialMemory(const char* subtype) {
  // Nodes that hold memory near CPUs without being those CPUs' own node: KNL MCDRAM, HBM, persistent
  // memory, GPU memory exposed as a node, CXL expanders. An ordinary node has no subtype or "DRAM".
  return subtype && *subtype && strcmp(subtype, "DRAM") != 0;
}

// The calling thread's affinity, of any size.
CpuSet ThreadAffinity() {
  CpuSet s;
  for (size_t ncpus = 1024; ncpus <= CpuSet::kMaxBits; ncpus *= 2) {
    size_t bytes = CPU_ALLOC_SIZE(ncpus);
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (!set) return s;
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      for (size_t i = 0; i < ncpus; ++i)
        if (CPU_ISSET_S(i, bytes, set)) s.Set(static_cast<uint32_t>(i));
      CPU_FREE(set);
      return s;
    }
    int e = errno;
    CPU_FREE(set);
    if (e != EINVAL) break;
  }
  return s;
}

std::string Trim(const char* text) {
  std::string s = text;
  size_t b = s.find_first_not_of(" \t\n");
  size_t e = s.find_last_not_of(" \t\n");
  if (b == std::string::npos) return "";
  s = s.substr(b, e - b + 1);
  if (s.size() >= 2 && (s[0] == '"' || s[0] == '\'') && s.back() == s[0]) s = s.substr(1, s.size() - 2);
  return s;
}

// Frees the hwloc topology however LoadTopology returns.
struct HwlocHolder {
  hwloc_topology_t topo = nullptr;
  ~HwlocHolder() {
    if (topo) hwloc_topology_destroy(topo);
  }
};

// Whether OS device c is evidence that its PCI device computes: a co-processor (CUDA, OpenCL, Level Zero,
// NEC VE) or a GPU of a compute library (NVML, RSMI, Level Zero). Not a DRM card, render or control node
// (card0, renderD128, controlD64: Linux gives one to every display adapter with a driver, a BMC's VGA such
// as the ES1000 too) nor a GL display (":0.0").
bool ComputeOsDev(hwloc_obj_t c) {
  if (c->type != HWLOC_OBJ_OS_DEVICE) return false;
  if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC) return true;
  if (c->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU) return false;
  const char* backend = hwloc_obj_get_info_by_name(c, "Backend");
  for (const char* lib : {"CUDA", "NVML", "RSMI", "OpenCL", "LevelZero"})
    if ((backend && strcmp(backend, lib) == 0) || (c->subtype && strcmp(c->subtype, lib) == 0)) return true;
  // Files without those infos: the names the compute backends give ("nvml0", "rsmi0", "ze0"...).
  for (const char* prefix : {"nvml", "rsmi", "cuda", "opencl", "ze"})
    if (c->name && strncmp(c->name, prefix, strlen(prefix)) == 0) return true;
  return false;
}

// The UUID that CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES accept for the GPU of OS device c, or "".
// NVML's NVIDIAUUID is already that ("GPU-8f3c1a2b-..."); RSMI's AMDUUID is the unique id in hex without
// leading zeros ("%llx"), which ROCm writes as "GPU-" and 16 digits.
std::string GpuUuid(hwloc_obj_t c) {
  if (c->type != HWLOC_OBJ_OS_DEVICE) return "";
  const char* nvidia = hwloc_obj_get_info_by_name(c, "NVIDIAUUID");
  if (nvidia != nullptr && strncmp(nvidia, "GPU-", 4) == 0) return nvidia;
  const char* amd = hwloc_obj_get_info_by_name(c, "AMDUUID");
  return amd != nullptr ? AmdUuid(amd) : "";
}

void ReadPci(hwloc_topology_t topo, Topology* out) {
  for (hwloc_obj_t obj = hwloc_get_next_pcidev(topo, nullptr); obj; obj = hwloc_get_next_pcidev(topo, obj)) {
    PciDevice d;
    const auto& a = obj->attr->pcidev;
    d.domain = a.domain;
    d.bus = a.bus;
    d.dev = a.dev;
    d.func = a.func;
    d.vendor = a.vendor_id;
    d.device = a.device_id;
    d.class_id = a.class_id;
    d.bus_id = FormatBusId({d.domain, d.bus, d.dev, d.func});
    const char* vendor = hwloc_obj_get_info_by_name(obj, "PCIVendor");
    const char* device = hwloc_obj_get_info_by_name(obj, "PCIDevice");
    if (vendor) d.name = vendor;
    if (device) d.name += (d.name.empty() ? "" : " ") + std::string(device);
    d.link_gbps = a.linkspeed;
    for (hwloc_obj_t c = obj->io_first_child; c; c = c->next_sibling) {
      d.compute_osdev |= ComputeOsDev(c);
      if (d.uuid.empty()) d.uuid = GpuUuid(c);
    }
    d.nodes = NearNodes(topo, obj, *out);
    d.locality_known = !d.nodes.Empty();
    d.bridges = PciBridges(obj);
    out->pci.push_back(std::move(d));
  }
  std::stable_sort(out->pci.begin(), out->pci.end(), [](const PciDevice& x, const PciDevice& y) {
    if (x.domain != y.domain) return x.domain < y.domain;
    if (x.bus != y.bus) return x.bus < y.bus;
    if (x.dev != y.dev) return x.dev < y.dev;
    return x.func < y.func;
  });
  out->io_loaded = true;
}

/// The PUs a synthetic description makes: the product of its arities ("pack:2 core:4 pu:2" is 16), outside
/// attributes in parentheses and memory children in brackets; saturates above `cap`.
uint64_t SyntheticPus(const std::string& desc, uint64_t cap) {
  uint64_t product = 1;
  int depth = 0;
  for (size_t i = 0; i < desc.size(); ++i) {
    char c = desc[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c != ':' || depth != 0) continue;
    uint64_t n = 0;  // no digits: 0, an arity of 1; above cap: cap + 1
    const char* at = desc.c_str() + i + 1;
    base::ScanDecimal(&at, desc.c_str() + desc.size(), cap, &n);
    product = n > cap ? cap + 1 : product * (n == 0 ? 1 : n);
    if (product > cap) return cap + 1;
  }
  return product;
}

/// What hwloc is asked to discover (and what it must not do to the calling thread).
void ConfigureDiscovery(hwloc_topology_t topo, const char* spec, const LoadOptions& options) {
  // Keep disallowed PUs and nodes: the allowed set is read separately, and the planner must know a node's
  // CPUs even when some are not allowed (exclusive keeps SMT siblings together).
  hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
  // hwloc's x86 backend binds the calling thread to every CPU in turn to run cpuid: slow on big machines
  // and it moves a launcher's thread around. Linux's sysfs tells numabind everything it needs. The GPU
  // library backends (NVML, OpenCL, ROCm SMI, Level Zero, GL) only add OS devices, which are filtered out.
  hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
  for (const char* name : {"opencl", "cuda", "nvml", "rsmi", "levelzero", "gl"})
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, name);
  if (options.pci || options.nics) {
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_BRIDGE, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PCI_DEVICE,
                                   options.all_pci ? HWLOC_TYPE_FILTER_KEEP_ALL
                                                   : HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  }
  // HCAs are OS devices under their PCI function (disks, DMA channels and the rest are skipped later); a
  // file's GPU OS devices tell a compute GPU of VGA class from a management VGA (devices.cc). A live machine
  // has none (the GPU backends are off): its link speed tells them apart there.
  if (options.nics ||
      (options.pci && spec != nullptr && *spec != '\0' && strncmp(spec, "synthetic:", 10) != 0))
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_OS_DEVICE, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
}

/// Where the topology comes from: the live machine (spec empty), a synthetic description or an XML file.
bool SetSource(hwloc_topology_t topo, const char* spec, Topology* out, std::string* err) {
  std::string text = spec ? spec : "";
  if (text.empty()) {
    out->source = "live machine";
    out->live = true;
  } else if (text.compare(0, 10, "synthetic:") == 0) {
    std::string desc = Trim(text.c_str() + 10);
    out->source = "synthetic:" + desc;
    // hwloc builds every object: "pack:1000 core:1000 pu:1000" would take minutes and gigabytes.
    constexpr uint64_t kMaxSyntheticPus = 65536;
    if (SyntheticPus(desc, kMaxSyntheticPus) > kMaxSyntheticPus) {
      *err = "hwloc synthetic description \"" + desc + "\" makes more than 65536 PUs";
      return false;
    }
    if (desc.empty() || hwloc_topology_set_synthetic(topo, desc.c_str()) != 0) {
      *err = "invalid hwloc synthetic description \"" + desc + "\" (e.g. \"pack:2 numa:2 l3:2 core:4 pu:2\")";
      return false;
    }
  } else {
    out->source = text;
    if (access(text.c_str(), R_OK) != 0) {
      *err = "cannot read topology file " + text + ": " + strerror(errno);
      return false;
    }
    if (hwloc_topology_set_xml(topo, text.c_str()) != 0) {
      *err = "cannot use topology file " + text + " as hwloc XML: " + strerror(errno);
      return false;
    }
  }
  return true;
}

/// hwloc's objects of one type, in OS index order.
std::vector<hwloc_obj_t> ObjectsByOsIndex(hwloc_topology_t topo, hwloc_obj_type_t type) {
  std::vector<hwloc_obj_t> objs;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, nullptr); o;
       o = hwloc_get_next_obj_by_type(topo, type, o))
    objs.push_back(o);
  std::sort(objs.begin(), objs.end(), [](hwloc_obj_t a, hwloc_obj_t b) { return a->os_index < b->os_index; });
  return objs;
}

/// NUMA nodes, in node number order; the online CPUs near each.
std::vector<CpuSet> ReadNodes(const std::vector<hwloc_obj_t>& node_objs, Topology* out) {
  std::vector<CpuSet> locality;
  for (hwloc_obj_t n : node_objs) {
    TopoNode tn;
    tn.os = n->os_index;
    tn.locality = FromBitmap(n->cpuset).IntersectWith(out->online);
    tn.memory = n->attr ? n->attr->numanode.local_memory : 0;
    if (n->subtype) tn.subtype = n->subtype;
    locality.push_back(tn.locality);
    out->nodes.push_back(std::move(tn));
  }
  return locality;
}

/// Packages, in hwloc's order; the index of each in out->packages.
std::map<hwloc_obj_t, int> ReadPackages(hwloc_topology_t topo, Topology* out) {
  std::map<hwloc_obj_t, int> package_index;
  for (hwloc_obj_t p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, nullptr); p;
       p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p)) {
    package_index[p] = static_cast<int>(out->packages.size());
    TopoPackage tp;
    tp.os = p->os_index == HWLOC_UNKNOWN_INDEX ? static_cast<uint32_t>(out->packages.size()) : p->os_index;
    tp.cpus = FromBitmap(p->cpuset).IntersectWith(out->online);
    out->packages.push_back(std::move(tp));
  }
  return package_index;
}

/// A CPU's local node among `nodes` (indexes), by `locality`: of the nodes near it, an ordinary one before
/// HBM/MCDRAM, then the most local (fewest CPUs), then the lowest number. Linux gives every CPU exactly one
/// node; hwloc attaches CPU-less memory (KNL MCDRAM, HBM, CXL) to the same CPUs, so the subtype tells them
/// apart, and where it cannot (hwloc guessed HBM for a CPU node of fakeheteromemtiers), the kernel's
/// numbering does: it numbers the nodes with CPUs first. -1 for none.
int LocalNode(const std::vector<hwloc_obj_t>& node_objs, const std::vector<CpuSet>& locality,
              const std::vector<bool>& candidate, uint32_t pu) {
  int best = -1;
  for (size_t i = 0; i < node_objs.size(); ++i) {
    if (!candidate[i] || !locality[i].Has(pu)) continue;
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    bool special_i = IsSpecialMemory(node_objs[i]->subtype),
         special_b = IsSpecialMemory(node_objs[best]->subtype);
    if (special_i != special_b) {
      if (!special_i) best = static_cast<int>(i);
    } else if (locality[i].Count() < locality[best].Count()) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

/// Marks the memory-only nodes: those that are no CPU's local node over every CPU the machine has (offline
/// and disallowed ones too: a node whose CPUs are all offline still has CPUs). Returns the nodes a PU may
/// have as its local node.
std::vector<bool> MarkMemoryOnly(const std::vector<hwloc_obj_t>& node_objs, Topology* out) {
  std::vector<CpuSet> complete;
  CpuSet every;
  for (hwloc_obj_t n : node_objs) {
    complete.push_back(FromBitmap(n->complete_cpuset ? n->complete_cpuset : n->cpuset));
    every.UnionWith(complete.back());
  }
  std::vector<bool> all(node_objs.size(), true), local(node_objs.size(), false);
  for (int64_t c = every.First(); c >= 0; c = every.Next(c)) {
    int i = LocalNode(node_objs, complete, all, static_cast<uint32_t>(c));
    if (i >= 0) local[i] = true;
  }
  for (size_t i = 0; i < node_objs.size(); ++i) out->nodes[i].memory_only = !local[i];
  return local;
}

/// hwloc's NUMALatency matrix into out->distances (by index into out->nodes); left empty without one.
void ReadDistances(hwloc_topology_t topo, Topology* out) {
  unsigned nr = 1;
  hwloc_distances_s* d = nullptr;
  if (hwloc_distances_get_by_name(topo, "NUMALatency", &nr, &d, 0) != 0 || nr == 0 || d == nullptr) return;
  size_t n = out->nodes.size();
  out->distances.assign(n * n, 0);
  for (unsigned a = 0; a < d->nbobjs; ++a) {
    for (unsigned b = 0; b < d->nbobjs; ++b) {
      int ia = d->objs[a] ? out->NodeIndex(d->objs[a]->os_index) : -1;
      int ib = d->objs[b] ? out->NodeIndex(d->objs[b]->os_index) : -1;
      if (ia >= 0 && ib >= 0) out->distances[static_cast<size_t>(ia) * n + ib] = d->values[a * d->nbobjs + b];
    }
  }
  hwloc_distances_release(topo, d);
}

/// The nodes, and the packages, cores and last-level caches PUs belong to, numbered as they are first met.
struct PuIndexes {
  std::vector<hwloc_obj_t> node_objs;
  std::vector<CpuSet> node_locality;  // online CPUs near each node
  std::vector<bool> cpu_node;         // may be a PU's local node (not memory-only)
  std::map<hwloc_obj_t, int> package, core, cache;
};

/// One PU with its core, last-level cache, package and local node.
TopoPu ReadPu(hwloc_obj_t pu, PuIndexes* index, Topology* out) {
  TopoPu p;
  p.os = pu->os_index;
  hwloc_obj_t core = nullptr, llc = nullptr, package = nullptr;
  for (hwloc_obj_t a = pu->parent; a; a = a->parent) {
    if (a->type == HWLOC_OBJ_CORE && !core) core = a;
    if (a->type == HWLOC_OBJ_PACKAGE && !package) package = a;
    if (hwloc_obj_type_is_dcache(a->type) && a->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION &&
        !(a->subtype && strcmp(a->subtype, "MemorySideCache") == 0) &&
        (!llc || a->attr->cache.depth > llc->attr->cache.depth))
      llc = a;
  }
  // Core: a PU outside any Core object (a synthetic topology without cores) is a core of its own.
  if (core) {
    auto it = index->core.find(core);
    if (it == index->core.end()) {
      it = index->core.emplace(core, static_cast<int>(out->cores.size())).first;
      out->cores.push_back(TopoCore{FromBitmap(core->cpuset).IntersectWith(out->online)});
    }
    p.core = it->second;
  } else {
    p.core = static_cast<int>(out->cores.size());
    out->cores.push_back(TopoCore{CpuSet::Range(p.os, p.os)});
  }
  // Last-level cache: without cache information the PU's core stands in (never groups unrelated cores).
  hwloc_obj_t key = llc ? llc : reinterpret_cast<hwloc_obj_t>(static_cast<uintptr_t>(p.core) * 2 + 1);
  auto it = index->cache.find(key);  // an odd key is never a real pointer
  if (it == index->cache.end()) {
    it = index->cache.emplace(key, static_cast<int>(out->llcs.size())).first;
    out->llcs.push_back(
        llc ? TopoCache{FromBitmap(llc->cpuset).IntersectWith(out->online), llc->attr->cache.depth}
            : TopoCache{out->cores[p.core].cpus, 0});
  }
  p.llc = it->second;
  if (package) p.package = index->package[package];
  p.node = LocalNode(index->node_objs, index->node_locality, index->cpu_node, p.os);
  if (p.node >= 0) out->nodes[p.node].cpus.Set(p.os);
  return p;
}

}  // namespace

bool LoadTopology(const char* spec, const LoadOptions& options, Topology* out, std::string* err) {
  *out = Topology();
  HwlocHolder h;
  if (hwloc_topology_init(&h.topo) != 0) {
    *err = std::string("hwloc_topology_init failed: ") + strerror(errno);
    return false;
  }
  hwloc_topology_t topo = h.topo;
  ConfigureDiscovery(topo, spec, options);
  if (!SetSource(topo, spec, out, err)) return false;
  // The calling thread's affinity, read before hwloc looks at the machine.
  CpuSet affinity;
  if (out->live) affinity = ThreadAffinity();
  if (hwloc_topology_load(topo) != 0) {
    *err = "hwloc could not load the topology of the " + out->source + ": " + strerror(errno);
    if (!out->live && strncmp(spec, "synthetic:", 10) != 0) *err += XmlVersionHint(spec);
    return false;
  }

  hwloc_obj_t root = hwloc_get_root_obj(topo);
  out->complete = FromBitmap(root->complete_cpuset);
  out->online = FromBitmap(root->cpuset);
  out->complete.UnionWith(out->online);
  out->hwloc_allowed = FromBitmap(hwloc_topology_get_allowed_cpuset(topo));
  out->allowed_nodes = FromBitmap(hwloc_topology_get_allowed_nodeset(topo));

  PuIndexes index;
  index.node_objs = ObjectsByOsIndex(topo, HWLOC_OBJ_NUMANODE);
  index.node_locality = ReadNodes(index.node_objs, out);
  index.cpu_node = MarkMemoryOnly(index.node_objs, out);
  ReadDistances(topo, out);
  index.package = ReadPackages(topo, out);
  for (hwloc_obj_t pu : ObjectsByOsIndex(topo, HWLOC_OBJ_PU)) out->pus.push_back(ReadPu(pu, &index, out));

  out->affinity = out->live ? affinity : out->online;
  out->allowed = out->online.Intersect(out->hwloc_allowed).IntersectWith(out->affinity);
  out->fastest_kind = FastestKindCpus(topo, out->online);

  std::string sysfs = options.sysfs_root;
  const char* fsroot = getenv("HWLOC_FSROOT");  // the tree hwloc read the live machine from
  if (sysfs.empty() && out->live) sysfs = fsroot && *fsroot ? fsroot : "/";
  if (options.pci) ReadPci(topo, out);
  if (options.pci && !sysfs.empty()) ReadDriverUuids(sysfs, out);
  if (options.nics) ReadNics(topo, sysfs, out);
  return true;
}

}  // namespace numabind::planner
