// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The device visibility variables' one grammar (config/visible_devices.h), which the planner selects
// devices by and NUMABIND_BY_DEVICE reads.

#include <criterion/criterion.h>

#include "config/visible_devices.h"

using numabind::config::FindOneDevice;
using numabind::config::OneDevice;
using numabind::config::ParseVisibleDevices;

Test(visible_devices, index_lists) {
  uint32_t idx[4], n = 0;
  cr_assert(ParseVisibleDevices("3", idx, 4, &n));
  cr_expect_eq(n, 1u);
  cr_expect_eq(idx[0], 3u);
  cr_assert(ParseVisibleDevices(" 0, 2 ,1\n", idx, 4, &n));
  cr_expect_eq(n, 3u);
  cr_expect(idx[0] == 0 && idx[1] == 2 && idx[2] == 1);
  cr_assert(ParseVisibleDevices("999999", idx, 4, &n));
  for (const char* bad :
       {"", " ", "GPU-8e4f1a2b", "0,", ",0", "0,,1", "-1", "+1", "1000000", "1 2", "0,1,2,3,4"})
    cr_expect_not(ParseVisibleDevices(bad, idx, 4, &n), "'%s' parsed", bad);
  cr_expect_not(ParseVisibleDevices(nullptr, idx, 4, &n));
}

Test(visible_devices, one_device_per_vendor) {
  const char* cuda[] = {"CUDA_VISIBLE_DEVICES=5", nullptr};
  OneDevice d = FindOneDevice(cuda);
  cr_expect_eq(d.nvidia, 5);
  cr_expect_eq(d.amd, OneDevice::kNone);
  cr_expect_str_eq(d.nvidia_var, "CUDA_VISIBLE_DEVICES");
  const char* several[] = {"CUDA_VISIBLE_DEVICES=0,1", nullptr};
  cr_expect_eq(FindOneDevice(several).nvidia, OneDevice::kSeveral);
  // A repeated index ends the list, as the runtimes read it: "2,2" is device 2 alone.
  const char* repeated[] = {"CUDA_VISIBLE_DEVICES=2,2", nullptr};
  cr_expect_eq(FindOneDevice(repeated).nvidia, 2);
  const char* none[] = {"PATH=/bin", nullptr};
  d = FindOneDevice(none);
  cr_expect(d.nvidia == OneDevice::kNone && d.amd == OneDevice::kNone);
}

Test(visible_devices, hip_indexes_what_rocr_left) {
  const char* both[] = {"ROCR_VISIBLE_DEVICES=2,3", "HIP_VISIBLE_DEVICES=1", nullptr};
  OneDevice d = FindOneDevice(both);
  cr_expect_eq(d.amd, 3);
  cr_expect_str_eq(d.amd_var, "HIP_VISIBLE_DEVICES");
  const char* rocr[] = {"ROCR_VISIBLE_DEVICES=4", nullptr};
  cr_expect_eq(FindOneDevice(rocr).amd, 4);
  const char* past[] = {"ROCR_VISIBLE_DEVICES=2", "HIP_VISIBLE_DEVICES=1", nullptr};
  cr_expect_eq(FindOneDevice(past).amd, OneDevice::kSeveral, "HIP's index 1 is past ROCR's one device");
}
