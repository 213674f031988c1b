// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// DeviceRank (plan/device_rank.h): the rank of the one device a process sees, among a basis's device slots
// (built by hand: only the slots' devices matter).

#include <criterion/criterion.h>

#include "plan/device_rank.h"

using numabind::config::OneDevice;
using namespace numabind::plan;  // NOLINT: test brevity

namespace {

/// Four slots: NVIDIA 0 and 1, AMD 0, and a slot without a device (an explicit map's entry).
struct FourSlots {
  PlanSlot slots[4] = {};
  PlanBasis basis = {};
  FourSlots() {
    const char* ids[] = {"0000:03:00.0", "0000:07:00.0", "0000:83:00.0", ""};
    uint32_t vendors[] = {kPciNvidia, kPciNvidia, kPciAmd, 0};
    int32_t ordinals[] = {0, 1, 0, -1};
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; ids[i][k] != '\0'; ++k) slots[i].device[k] = ids[i][k];
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
