// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "plan/device_rank.h"

namespace numabind::plan {

namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// Whether the slot's UUID starts with the `len` bytes at `id` (the runtimes accept a unique prefix;
/// hex digits in either case).
bool UuidStartsWith(const PlanSlot& slot, const char* id, uint32_t len) {
  for (uint32_t i = 0; i < len; ++i) {
    if (i >= sizeof(slot.uuid) || slot.uuid[i] == '\0' || Lower(slot.uuid[i]) != Lower(id[i])) return false;
  }
  return true;
}

/// Whether `slot`'s device is the one `index` or `uuid` names among the devices of `vendor`.
bool Names(const PlanSlot& slot, uint32_t vendor, int32_t index, const char* uuid, uint32_t uuid_len) {
  if (slot.device_vendor != vendor) return false;
  if (index == config::OneDevice::kUuid) return uuid != nullptr && UuidStartsWith(slot, uuid, uuid_len);
  return index >= 0 && slot.device_ordinal == index;
}

}  // namespace

bool DeviceRank(const PlanBasis& basis, const config::OneDevice& d, uint32_t* rank, uint32_t* nranks) {
  if (d.nvidia == config::OneDevice::kSeveral || d.amd == config::OneDevice::kSeveral) return false;
  uint32_t found = 0;
  for (uint32_t s = 0; s < basis.slot_count; ++s) {
    const PlanSlot& slot = basis.slots[s];
    if (slot.device[0] == '\0' || slot.device_ordinal < 0) continue;
    bool is = Names(slot, kPciNvidia, d.nvidia, d.nvidia_uuid, d.nvidia_uuid_len) ||
              Names(slot, kPciAmd, d.amd, d.amd_uuid, d.amd_uuid_len);
    if (is && found++ == 0) *rank = s;
  }
  *nranks = basis.slot_count;
  return found == 1;
}

}  // namespace numabind::plan
