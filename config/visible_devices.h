// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The device runtimes' visibility variables (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
// HIP_VISIBLE_DEVICES): one grammar for the planner, which selects a job's devices by them, and for
// NUMABIND_BY_DEVICE, which takes a process that sees one device for that device's rank. libc only, no
// allocation.

#ifndef NUMABIND_CONFIG_VISIBLE_DEVICES_H_
#define NUMABIND_CONFIG_VISIBLE_DEVICES_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::config {

/// Child-safe: the device indexes of a visibility value ("0,2"; blanks around each index are ignored; each
/// index has at most 6 digits), at most `cap` of them into `out`, their count in *n. False for anything
/// else: unset or empty, a UUID ("GPU-8e4f..."), a sign, more than `cap` indexes. The runtimes' own rule
/// that an out-of-range or repeated index ends the list is applied by whoever knows the devices.
bool ParseVisibleDevices(const char* value, uint32_t* out, uint32_t cap, uint32_t* n);

/// The one device a process's visibility variables leave it, per vendor.
struct OneDevice {
  /// Its index among the vendor's accelerators in PCI bus order (what the runtimes number), or kNone
  /// (the vendor's variables are unset) or kSeveral (several devices, none, or a value that is not a list
  /// of indexes: not one device).
  int32_t nvidia = kNone;
  int32_t amd = kNone;
  const char* nvidia_var = nullptr;  ///< "CUDA_VISIBLE_DEVICES" when nvidia >= 0
  const char* amd_var = nullptr;     ///< the variable that chose amd: HIP_ when set, else ROCR_
  static constexpr int32_t kNone = -1;
  static constexpr int32_t kSeveral = -2;
};

/// The one device `env` leaves each vendor: CUDA_VISIBLE_DEVICES for NVIDIA; for AMD,
/// ROCR_VISIBLE_DEVICES selects first and HIP_VISIBLE_DEVICES indexes what it left (ROCm's rule).
OneDevice FindOneDevice(const char* const* env);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_VISIBLE_DEVICES_H_
