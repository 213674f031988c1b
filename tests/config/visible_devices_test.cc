// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The device visibility variables' one grammar (config/visible_devices.h), which the planner selects
// devices by and NUMABIND_BY_DEVICE reads.

#include <criterion/criterion.h>

#include <string>

#include "config/visible_devices.h"

using numabind::config::FindOneDevice;
using numabind::config::OneDevice;
using numabind::config::ParseDeviceUuid;
using numabind::config::ParseVisibleDevices;

namespace {

std::string Uuid(const char* value) {
  const char* id = nullptr;
  uint32_t len = 0;
  if (!ParseDeviceUuid(value, &id, &len)) return "(none)";
  return std::string(id, len);
}

}  // namespace

Test(visible_devices, index_lists) {
  uint32_t idx[4], n = 0;
  cr_assert(ParseVisibleDevices("3", idx, 4, &n));
  cr_expect_eq(n, 1u);
  cr_expect_eq(idx[0], 3u);
  cr_assert(ParseVisibleDevices(" 0, 2 ,1\n", idx, 4, &n));
  cr_expect_eq(n, 3u);
  cr_expect(idx[0] == 0 && idx[1] == 2 && idx[2] == 1);
  cr_assert(ParseVisibleDevices("999999", idx, 4, &n));
  for (const char* bad : {"", " ", "GPU-8e4f1a2b", ",0", "-1", "+1", "1000000", "1 2", "0,1,2,3,4"})
    cr_expect_not(ParseVisibleDevices(bad, idx, 4, &n), "'%s' parsed", bad);
  // An entry that is no index ends the list (NVIDIA's documented rule): what comes before it stands.
  struct {
    const char* value;
    uint32_t n, first, second;
  } ends[] = {{"0,2,-1,1", 2, 0, 2}, {"1,-1", 1, 1, 0},         {"0,", 1, 0, 0},
              {"0,,1", 1, 0, 0},     {"3,GPU-8e4f,0", 1, 3, 0}, {"2,1000000", 1, 2, 0}};
  for (const auto& e : ends) {
    cr_assert(ParseVisibleDevices(e.value, idx, 4, &n), "'%s' not parsed", e.value);
    cr_expect_eq(n, e.n, "'%s': %u indexes", e.value, n);
    cr_expect(idx[0] == e.first && (e.n < 2 || idx[1] == e.second), "'%s'", e.value);
  }
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
  // An invalid entry ends the list: "1,-1" is device 1 alone, a device rank (issue 38).
  const char* ended[] = {"CUDA_VISIBLE_DEVICES=1,-1", "ROCR_VISIBLE_DEVICES=3,x,0", nullptr};
  d = FindOneDevice(ended);
  cr_expect_eq(d.nvidia, 1);
  cr_expect_eq(d.amd, 3);
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

// The runtimes' UUID forms: a GPU by its UUID or a prefix of it, a MIG instance (the old form names its
// GPU first). Anything else is no UUID.
Test(visible_devices, uuids) {
  cr_expect_eq(Uuid("GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f8"), "GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f8");
  cr_expect_eq(Uuid(" GPU-8f3c \n"), "GPU-8f3c");
  cr_expect_eq(Uuid("GPU-5A3C8F2E1D4B6A79"), "GPU-5A3C8F2E1D4B6A79");
  cr_expect_eq(Uuid("MIG-GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f8/1/0"),
               "GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f8");
  cr_expect_eq(Uuid("MIG-c7384736-a75d-5afc-978f-d2f1294409fd"), "MIG-c7384736-a75d-5afc-978f-d2f1294409fd");
  for (const char* bad : {"3", "", "GPU-", "GPU-xyz", "gpu-8f3c", "GPU-8f3c,GPU-8f3d", "GPU-8f3c 1",
                          "MIG-GPU-8f3c", "MIG-", "8f3c1a2b"})
    cr_expect_eq(Uuid(bad), "(none)", "'%s' parsed", bad);
  cr_expect_eq(Uuid(nullptr), "(none)");
}

Test(visible_devices, one_device_by_uuid) {
  const char* cuda[] = {"CUDA_VISIBLE_DEVICES=GPU-8f3c9d0e", nullptr};
  OneDevice d = FindOneDevice(cuda);
  cr_expect_eq(d.nvidia, OneDevice::kUuid);
  cr_expect_eq(std::string(d.nvidia_uuid, d.nvidia_uuid_len), "GPU-8f3c9d0e");
  cr_expect_str_eq(d.nvidia_var, "CUDA_VISIBLE_DEVICES");
  const char* two[] = {"CUDA_VISIBLE_DEVICES=GPU-8f3c9d0e,GPU-8f3c1a2b", nullptr};
  cr_expect_eq(FindOneDevice(two).nvidia, OneDevice::kSeveral);
  const char* rocr[] = {"ROCR_VISIBLE_DEVICES=GPU-5a3c8f2e1d4b6a79", nullptr};
  d = FindOneDevice(rocr);
  cr_expect_eq(d.amd, OneDevice::kUuid);
  cr_expect_eq(std::string(d.amd_uuid, d.amd_uuid_len), "GPU-5a3c8f2e1d4b6a79");
  cr_expect_str_eq(d.amd_var, "ROCR_VISIBLE_DEVICES");
  // HIP indexes what ROCR left: index 0 of one device is that device, index 1 is past it.
  const char* hip0[] = {"ROCR_VISIBLE_DEVICES=GPU-5a3c8f2e1d4b6a79", "HIP_VISIBLE_DEVICES=0", nullptr};
  d = FindOneDevice(hip0);
  cr_expect_eq(d.amd, OneDevice::kUuid);
  cr_expect_eq(std::string(d.amd_uuid, d.amd_uuid_len), "GPU-5a3c8f2e1d4b6a79");
  const char* hip1[] = {"ROCR_VISIBLE_DEVICES=GPU-5a3c8f2e1d4b6a79", "HIP_VISIBLE_DEVICES=1", nullptr};
  cr_expect_eq(FindOneDevice(hip1).amd, OneDevice::kSeveral);
  // A UUID in HIP_VISIBLE_DEVICES names its device whatever ROCR left.
  const char* hip_uuid[] = {"ROCR_VISIBLE_DEVICES=0,1", "HIP_VISIBLE_DEVICES=GPU-00a3c8f2e1d4b6a7", nullptr};
  d = FindOneDevice(hip_uuid);
  cr_expect_eq(d.amd, OneDevice::kUuid);
  cr_expect_eq(std::string(d.amd_uuid, d.amd_uuid_len), "GPU-00a3c8f2e1d4b6a7");
  cr_expect_str_eq(d.amd_var, "HIP_VISIBLE_DEVICES");
}
