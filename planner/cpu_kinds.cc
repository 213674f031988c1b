// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The fastest CPU kind (issue 36): hwloc orders its CPU kinds by increasing efficiency, so the last is the
// most powerful. Kinds whose maximum frequency is within 5% of that kind's join it: hwloc#634 (Grace's
// cores differ by a few MHz and hwloc reported them as several kinds).

#include <hwloc.h>

#include <cstdlib>
#include <cstring>

#include "planner/hwloc_io.h"

namespace numabind::planner {
namespace {

/// The kind's FrequencyMaxMHz info, or 0 when hwloc has none.
double MaxMhz(unsigned nr_infos, const hwloc_info_s* infos) {
  for (unsigned i = 0; i < nr_infos; ++i)
    if (strcmp(infos[i].name, "FrequencyMaxMHz") == 0) return strtod(infos[i].value, nullptr);
  return 0;
}

}  // namespace

CpuSet FastestKindCpus(hwloc_topology* topo, const CpuSet& online) {
  int nr = hwloc_cpukinds_get_nr(topo, 0);
  if (nr < 2) return CpuSet();
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == nullptr) return CpuSet();
  std::vector<CpuSet> cpus;
  std::vector<double> mhz;
  for (int k = 0; k < nr; ++k) {
    unsigned nr_infos = 0;
    hwloc_info_s* infos = nullptr;
    int efficiency = -1;
    if (hwloc_cpukinds_get_info(topo, static_cast<unsigned>(k), set, &efficiency, &nr_infos, &infos, 0) != 0)
      continue;
    cpus.push_back(FromBitmap(set));
    mhz.push_back(MaxMhz(nr_infos, infos));
  }
  hwloc_bitmap_free(set);
  if (cpus.empty()) return CpuSet();
  CpuSet fastest = cpus.back();
  double top = mhz.back();
  for (size_t k = 0; k + 1 < cpus.size(); ++k)
    if (top > 0 && mhz[k] > 0 && mhz[k] >= top * 0.95 && mhz[k] <= top * 1.05) fastest.UnionWith(cpus[k]);
  fastest.IntersectWith(online);
  // One kind after merging, or a kind without online CPUs: nothing to prefer.
  if (fastest.Empty() || online.Minus(fastest).Empty()) return CpuSet();
  return fastest;
}

}  // namespace numabind::planner
