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

/// The runtimes' rule for a visibility value, which every reading here follows: a comma list of device
/// identifiers, each an index (decimal digits, blanks around it ignored) or a UUID (ParseDeviceUuid), in
/// which the first entry that is neither ends the list: NVIDIA documents that "0,2,-1,1" makes devices 0
/// and 2 visible, ROCm's ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES stop at it alike. So an empty value,
/// "-1" or "none" leaves no device. An index that is out of range or repeated also ends the list, which
/// whoever knows the devices applies (planner/devices.cc, FindOneDevice).

/// Child-safe: the indexes a visibility value lists before its first invalid entry, at most `cap` of them
/// into `out` (a machine with at most `cap` devices ends the list there anyway: a further index repeats one
/// or is out of range), their count in *n (0 for "", "-1", "x,0"). False when the value is unset or an
/// entry before the list's end is a UUID: which devices those are only their UUIDs tell.
bool ParseVisibleDevices(const char* value, uint32_t* out, uint32_t cap, uint32_t* n);

/// Child-safe: the one device a visibility value names by UUID, as the runtimes accept it: "GPU-" and the
/// UUID or a prefix of it (CUDA's "GPU-8f3c1a2b"; ROCm's "GPU-" and 16 hex digits), or a MIG instance
/// ("MIG-GPU-<uuid>/<gi>/<ci>", whose GPU is *id: its "GPU-<uuid>"; or "MIG-<uuid>", which names no GPU a
/// topology carries). It is the list's first entry, and an invalid entry or nothing follows it
/// ("GPU-8f3c,-1" is one device; "GPU-8f3c,GPU-9a1d" may be two). Blanks around it are ignored. *id points
/// into `value`, *len bytes. False for anything else: an index, a list, a bare "GPU-".
bool ParseDeviceUuid(const char* value, const char** id, uint32_t* len);

/// The visibility variables of an environment as the runtimes take them: each nullptr when unset, and HIP's
/// also when empty (HIP reads an empty HIP_VISIBLE_DEVICES as unset, its default; CUDA and ROCr see no
/// device in an empty value). The planner and FindOneDevice read them by this.
struct VisibleVars {
  const char* cuda = nullptr;
  const char* rocr = nullptr;
  const char* hip = nullptr;
};
VisibleVars LookupVisibleVars(const char* const* env);
/// The same, from an environment's one pass (config/env_facts.h). Child-safe.
VisibleVars VisibleVarsOf(const EnvKept& kept);

/// The one device a process's visibility variables leave it, per vendor.
struct OneDevice {
  /// Its index among the vendor's accelerators in PCI bus order (what the runtimes number), or kNone
  /// (the vendor's variables are unset), kUuid (one device named by UUID: the vendor's *_uuid) or kSeveral
  /// (several devices, none, or a value that is neither a list of indexes nor one UUID: not one device).
  int32_t nvidia = kNone;
  int32_t amd = kNone;
  const char* nvidia_var = nullptr;  ///< "CUDA_VISIBLE_DEVICES" when nvidia is one device
  const char* amd_var = nullptr;     ///< the variable that chose amd: HIP_ when set (not empty), else ROCR_
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
