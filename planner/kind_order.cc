// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Core kinds (issue 36): a group's units of the fastest CPU kind go first, so that a plan which needs no
// more units than they are takes only those (plan_basis.cc, PlanSlot::fast_units).

#include <algorithm>

#include "planner/plan_pack.h"

namespace numabind::planner {

uint32_t FastUnitsFirst(const CpuSet& fastest, std::vector<CpuSet>* units, uint32_t first) {
  if (fastest.Empty()) return 0;
  auto fast = [&](const CpuSet& u) { return u.Minus(fastest).Empty(); };
  auto begin = units->begin() + first;
  auto mid = std::stable_partition(begin, units->end(), fast);  // CPU order kept within each kind
  if (mid == begin || mid == units->end()) return 0;            // one kind in this group
  return static_cast<uint32_t>(mid - begin);
}

}  // namespace numabind::planner
