// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "plan/device_rank.h"

namespace numabind::plan {

bool DeviceRank(const PlanBasis& basis, const config::OneDevice& d, uint32_t* rank, uint32_t* nranks) {
  if (d.nvidia == config::OneDevice::kSeveral || d.amd == config::OneDevice::kSeveral) return false;
  uint32_t found = 0;
  for (uint32_t s = 0; s < basis.slot_count; ++s) {
    const PlanSlot& slot = basis.slots[s];
    if (slot.device[0] == '\0' || slot.device_ordinal < 0) continue;
    bool is = (slot.device_vendor == kPciNvidia && slot.device_ordinal == d.nvidia) ||
              (slot.device_vendor == kPciAmd && slot.device_ordinal == d.amd);
    if (is && found++ == 0) *rank = s;
  }
  *nranks = basis.slot_count;
  return found == 1;
}

}  // namespace numabind::plan
