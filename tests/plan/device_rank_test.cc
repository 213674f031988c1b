// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// DeviceRank (plan/device_rank.h): the rank of the one device a process sees, among a basis's device slots
// (built by hand: only the slots' devices matter).

#include <criterion/criterion.h>

#include "plan/device_rank.h"

using numabind::config::OneDevice;
using namespace numabind::plan;  // NOLINT: test brevity

namespace {

constexpr const char* kUuid0 = "GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f8";
constexpr const char* kUuid1 = "GPU-8f3c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e";
constexpr const char* kAmdUuid = "GPU-5a3c8f2e1d4b6a79";

/// Four slots: NVIDIA 0 and 1, AMD 0 (each with its UUID), and a slot without a device (an explicit map's
/// entry).
struct FourSlots {
  PlanSlot slots[4] = {};
  PlanBasis basis = {};
  FourSlots() {
    const char* ids[] = {"0000:03:00.0", "0000:07:00.0", "0000:83:00.0", ""};
    const char* uuids[] = {kUuid0, kUuid1, kAmdUuid, ""};
    uint32_t vendors[] = {kPciNvidia, kPciNvidia, kPciAmd, 0};
    int32_t ordinals[] = {0, 1, 0, -1};
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; ids[i][k] != '\0'; ++k) slots[i].device[k] = ids[i][k];
      for (int k = 0; uuids[i][k] != '\0'; ++k) slots[i].uuid[k] = uuids[i][k];
      slots[i].device_vendor = vendors[i];
      slots[i].device_ordinal = ordinals[i];
    }
    basis.slots = slots;
    basis.slot_count = 4;
  }
};

OneDevice Nvidia(int32_t i) {
  OneDevice d;
  d.nvidia = i;
  return d;
}

/// A process whose CUDA_VISIBLE_DEVICES (or, with `amd`, ROCR_VISIBLE_DEVICES) is the UUID `id`.
OneDevice ByUuid(const char* id, bool amd = false) {
  OneDevice d;
  uint32_t len = 0;
  while (id[len] != '\0') ++len;
  (amd ? d.amd : d.nvidia) = OneDevice::kUuid;
  (amd ? d.amd_uuid : d.nvidia_uuid) = id;
  (amd ? d.amd_uuid_len : d.nvidia_uuid_len) = len;
  return d;
}

}  // namespace

Test(device_rank, the_slot_of_the_device_is_the_rank) {
  FourSlots f;
  uint32_t rank = 99, nranks = 0;
  cr_assert(DeviceRank(f.basis, Nvidia(1), &rank, &nranks));
  cr_expect_eq(rank, 1u);
  cr_expect_eq(nranks, 4u);
  OneDevice amd;
  amd.amd = 0;
  cr_assert(DeviceRank(f.basis, amd, &rank, &nranks));
  cr_expect_eq(rank, 2u);
}

Test(device_rank, no_device_or_an_unknown_one_is_no_rank) {
  FourSlots f;
  uint32_t rank = 0, nranks = 0;
  cr_expect_not(DeviceRank(f.basis, OneDevice{}, &rank, &nranks), "nothing named");
  cr_expect_not(DeviceRank(f.basis, Nvidia(2), &rank, &nranks), "no NVIDIA device 2");
  cr_expect_not(DeviceRank(f.basis, Nvidia(OneDevice::kSeveral), &rank, &nranks), "several");
  OneDevice both = Nvidia(0);
  both.amd = 0;
  cr_expect_not(DeviceRank(f.basis, both, &rank, &nranks), "one of each vendor: two devices");
}

Test(device_rank, a_uuid_or_its_unique_prefix_names_the_device_and_no_other) {
  FourSlots f;
  uint32_t rank = 99, nranks = 0;
  for (const char* id : {kUuid1, "GPU-8f3c9", "GPU-8F3C9D0E", "GPU-8f3c9d0e-1f2a"}) {
    rank = 99;
    cr_assert(DeviceRank(f.basis, ByUuid(id), &rank, &nranks), "%s", id);
    cr_expect_eq(rank, 1u, "%s", id);
    cr_expect_eq(nranks, 4u);
  }
  cr_assert(DeviceRank(f.basis, ByUuid(kUuid0), &rank, &nranks));
  cr_expect_eq(rank, 0u);
  cr_assert(DeviceRank(f.basis, ByUuid("GPU-5a3c8f2e1d4b6a79", true), &rank, &nranks));
  cr_expect_eq(rank, 2u);
  // An ambiguous prefix, or a UUID of no device of the vendor, is no rank.
  cr_expect_not(DeviceRank(f.basis, ByUuid("GPU-8f3c"), &rank, &nranks), "a prefix of both NVIDIA GPUs");
  cr_expect_not(DeviceRank(f.basis, ByUuid("GPU-0000"), &rank, &nranks), "no such GPU");
  cr_expect_not(DeviceRank(f.basis, ByUuid("GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f80"), &rank, &nranks),
                "longer than the UUID");
  cr_expect_not(DeviceRank(f.basis, ByUuid("MIG-8f3c1a2b"), &rank, &nranks), "a MIG instance's own UUID");
  cr_expect_not(DeviceRank(f.basis, ByUuid("GPU-5a3c8f2e1d4b6a79"), &rank, &nranks),
                "the AMD GPU's UUID in CUDA_VISIBLE_DEVICES");
  // Without UUIDs in the basis (a live machine's topology), no UUID names a device.
  for (PlanSlot& s : f.slots) s.uuid[0] = '\0';
  cr_expect_not(DeviceRank(f.basis, ByUuid(kUuid1), &rank, &nranks));
}
