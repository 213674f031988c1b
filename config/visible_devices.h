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

#include "config/env_facts.h"

namespace numabind::config {

/// Child-safe: the device indexes of a visibility value ("0,2"; blanks around each index are ignored; each
/// index has at most 6 digits), at most `cap` of them into `out`, their count in *n. An entry that is no
/// index ends the list, by the runtimes' rule (CUDA's documented one, which ROCm's ROCR_ and HIP_ follow):
/// "0,2,-1,1" is 0 and 2, "1,-1" is 1. False when the first entry is none (unset or empty, a UUID
/// "GPU-8e4f...", "-1", which hides every device) or for more than `cap` indexes. The rule that an
/// out-of-range or repeated index ends the list too is applied by whoever knows the devices.
bool ParseVisibleDevices(const char* value, uint32_t* out, uint32_t cap, uint32_t* n);

/// Child-safe: the one device a visibility value names by UUID, as the runtimes accept it: "GPU-" and the
/// UUID or a prefix of it (CUDA's "GPU-8f3c1a2b"; ROCm's "GPU-" and 16 hex digits), or a MIG instance
/// ("MIG-GPU-<uuid>/<gi>/<ci>", whose GPU is *id: its "GPU-<uuid>"; or "MIG-<uuid>", which names no GPU a
/// topology carries). Blanks around it are ignored. *id points into `value`, *len bytes. False for
/// anything else: an index, a list, a bare "GPU-".
bool ParseDeviceUuid(const char* value, const char** id, uint32_t* len);

/// The one device a process's visibility variables leave it, per vendor.
struct OneDevice {
  /// Its index among the vendor's accelerators in PCI bus order (what the runtimes number), or kNone
  /// (the vendor's variables are unset), kUuid (one device named by UUID: the vendor's *_uuid) or kSeveral
  /// (several devices, none, or a value that is neither a list of indexes nor one UUID: not one device).
  int32_t nvidia = kNone;
  int32_t amd = kNone;
  const char* nvidia_var = nullptr;  ///< "CUDA_VISIBLE_DEVICES" when nvidia is one device
  const char* amd_var = nullptr;     ///< the variable that chose amd: HIP_ when set, else ROCR_
  /// With kUuid: the UUID or its prefix (ParseDeviceUuid), pointing into the environment, not terminated.
  const char* nvidia_uuid = nullptr;
  const char* amd_uuid = nullptr;
  uint32_t nvidia_uuid_len = 0, amd_uuid_len = 0;
  static constexpr int32_t kNone = -1;
  static constexpr int32_t kSeveral = -2;
  static constexpr int32_t kUuid = -3;
  /// Whether the vendor's variables name one device (by index or UUID).
  static bool One(int32_t v) { return v >= 0 || v == kUuid; }
};

/// The one device `env` leaves each vendor: CUDA_VISIBLE_DEVICES for NVIDIA; for AMD,
/// ROCR_VISIBLE_DEVICES selects first and HIP_VISIBLE_DEVICES indexes what it left (ROCm's rule; a UUID
/// in HIP_VISIBLE_DEVICES names its device whatever ROCR left).
OneDevice FindOneDevice(const char* const* env);
/// The same, from an environment's one pass (config/env_facts.h). Child-safe.
OneDevice FindOneDevice(const EnvFacts& facts);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_VISIBLE_DEVICES_H_
