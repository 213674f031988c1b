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

namespace {

/// ParseVisibleDevices's indexes of `value` (cap 4), " "-joined, or "(no list)" when it returns false.
std::string Indexes(const char* value) {
  uint32_t idx[4], n = 0;
  if (!ParseVisibleDevices(value, idx, 4, &n)) return "(no list)";
  std::string s;
  for (uint32_t i = 0; i < n; ++i) s += (i == 0 ? "" : " ") + std::to_string(idx[i]);
  return s;
}

}  // namespace

Test(visible_devices, index_lists) {
  cr_expect_eq(Indexes("3"), "3");
  cr_expect_eq(Indexes(" 0, 2 ,1\n"), "0 2 1");
  cr_expect_eq(Indexes("999999"), "999999");
  cr_expect_eq(Indexes("0,1,2,3,4"), "0 1 2 3", "past `cap`: a machine of 4 devices ends the list there");
  // By UUID: which devices only their UUIDs tell.
  for (const char* uuids : {"GPU-8e4f1a2b", "0,GPU-8e4f1a2b", "MIG-GPU-8e4f/1/0,1"})
    cr_expect_eq(Indexes(uuids), "(no list)", "'%s'", uuids);
  cr_expect_eq(Indexes(nullptr), "(no list)");
}

// NVIDIA's documented rule, which ROCm's variables follow alike: the first invalid entry ends the list
// ("0,2,-1,1" makes devices 0 and 2 visible); a first entry that is invalid leaves no device.
Test(visible_devices, an_invalid_entry_ends_the_list) {
  cr_expect_eq(Indexes("0,2,-1,1"), "0 2");
  cr_expect_eq(Indexes("1,-1"), "1");
  for (const char* none : {"-1", "", " ", ",0", "+1", "1000000", "1 2", "x,0", "-1,GPU-8e4f1a2b"})
    cr_expect_eq(Indexes(none), "", "'%s' lists a device", none);
  for (const char* zero : {"0,", "0,,1", "0,x,1", "0,+1", "0,1000000,1", "0, 1 2", "0,GPU-,1"})
    cr_expect_eq(Indexes(zero), "0", "'%s'", zero);
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
  // The list ends at its first invalid entry: "1,-1" is device 1 alone, "0,2,-1,1" two devices, "-1" none.
  const char* ended[] = {"CUDA_VISIBLE_DEVICES=1,-1", nullptr};
  cr_expect_eq(FindOneDevice(ended).nvidia, 1);
  const char* two[] = {"CUDA_VISIBLE_DEVICES=0,2,-1,1", nullptr};
  cr_expect_eq(FindOneDevice(two).nvidia, OneDevice::kSeveral);
  const char* no_device[] = {"CUDA_VISIBLE_DEVICES=-1", nullptr};
  cr_expect_eq(FindOneDevice(no_device).nvidia, OneDevice::kSeveral);
  const char* rocr_ended[] = {"ROCR_VISIBLE_DEVICES=3,none", nullptr};
  cr_expect_eq(FindOneDevice(rocr_ended).amd, 3);
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
  // Each list ends at its first invalid entry: ROCR leaves 2 and 3, HIP's index 1 of those is 3.
  const char* ended[] = {"ROCR_VISIBLE_DEVICES=2,3,-1,0", "HIP_VISIBLE_DEVICES=1,x,0", nullptr};
  cr_expect_eq(FindOneDevice(ended).amd, 3);
  // HIP takes an empty HIP_VISIBLE_DEVICES for unset (its default): ROCR's one device stays.
  const char* hip_empty[] = {"ROCR_VISIBLE_DEVICES=4", "HIP_VISIBLE_DEVICES=", nullptr};
  d = FindOneDevice(hip_empty);
  cr_expect_eq(d.amd, 4);
  cr_expect_str_eq(d.amd_var, "ROCR_VISIBLE_DEVICES");
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
  // One UUID, then an entry that ends the list: one device.
  cr_expect_eq(Uuid("GPU-8f3c,-1"), "GPU-8f3c");
  cr_expect_eq(Uuid("GPU-8f3c, ,GPU-9a1d"), "GPU-8f3c");
  for (const char* bad : {"3", "", "GPU-", "GPU-xyz", "gpu-8f3c", "GPU-8f3c,GPU-8f3d", "GPU-8f3c 1",
                          "MIG-GPU-8f3c", "MIG-", "8f3c1a2b", "GPU-8f3c,0", "-1,GPU-8f3c"})
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
