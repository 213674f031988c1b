// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// GPUs' UUIDs in the form the runtimes' visibility variables take (CUDA_VISIBLE_DEVICES=GPU-8f3c...,
// ROCR_VISIBLE_DEVICES=GPU-<16 hex digits>), for NUMABIND_BY_DEVICE (plan/device_rank.h). A file made with
// hwloc's NVML or RSMI backend carries them (topology_load.cc reads those); the live machine is read without
// those backends (slow to start), so its GPUs' drivers are asked through /proc and sysfs instead.

#ifndef NUMABIND_PLANNER_GPU_UUIDS_H_
#define NUMABIND_PLANNER_GPU_UUIDS_H_

#include <string>

#include "planner/topology.h"

namespace numabind::planner {

/// ROCm's UUID for an AMD GPU whose unique id is `hex` (hwloc's AMDUUID drops leading zeros, sysfs keeps
/// them): "GPU-" and 16 lowercase hex digits; "" when `hex` is not 1 to 16 hex digits.
std::string AmdUuid(const std::string& hex);

/// Fills the empty PciDevice::uuid of the NVIDIA and AMD accelerators of `topo` from the drivers' files under
/// `root` (a directory holding proc/ and sys/; "/" for the live machine): NVIDIA's
/// proc/driver/nvidia/gpus/<bus id>/information ("GPU UUID: GPU-..."), amdgpu's
/// sys/bus/pci/devices/<bus id>/unique_id. A file that is missing leaves the UUID empty.
void ReadDriverUuids(const std::string& root, Topology* topo);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_GPU_UUIDS_H_
