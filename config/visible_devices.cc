// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "config/visible_devices.h"

#include "config/config.h"
#include "config/grammar.h"

namespace numabind::config {

namespace {

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

}  // namespace

// Child-safe: reads `value`.
bool ParseVisibleDevices(const char* value, uint32_t* out, uint32_t cap, uint32_t* n) {
  *n = 0;
  if (value == nullptr) return false;
  const char* end = value;
  while (*end != '\0') ++end;
  for (const char* s = value;;) {
    const char* part = s;
    while (s < end && *s != ',') ++s;
    const char* b = part;
    const char* e = s;
    while (b < e && Blank(*b)) ++b;
    while (e > b && Blank(e[-1])) --e;
    uint32_t index = 0;
    size_t len = static_cast<size_t>(e - b);
    if (len > 6 || *n == cap || !ParseDecimal(b, len, 999999, &index)) return false;
    out[(*n)++] = index;
    if (s == end) return true;
    ++s;  // the comma: another index follows
  }
}

namespace {

constexpr uint32_t kMaxIndexes = 64;

/// What `value` leaves of `from` (nullptr: every index, count `from_n` of them when known, else the
/// identity), by the runtimes' rule: an out-of-range or repeated index ends the list. Returns the one index
/// left, or OneDevice::kSeveral.
int32_t OneOf(const char* value, const uint32_t* from, uint32_t from_n) {
  uint32_t idx[kMaxIndexes], n = 0;
  if (!ParseVisibleDevices(value, idx, kMaxIndexes, &n)) return OneDevice::kSeveral;
  uint32_t kept = 0, first = 0;
  for (uint32_t i = 0; i < n; ++i) {
    bool repeated = false;
    for (uint32_t j = 0; j < i; ++j) repeated = repeated || idx[j] == idx[i];
    if (repeated || (from != nullptr && idx[i] >= from_n)) break;
    if (kept++ == 0) first = from != nullptr ? from[idx[i]] : idx[i];
  }
  return kept == 1 ? static_cast<int32_t>(first) : OneDevice::kSeveral;
}

}  // namespace

OneDevice FindOneDevice(const char* const* env) {
  OneDevice d;
  const char* cuda_name = kPlannerVars[kCudaVisibleDevices];
  const char* rocr_name = kPlannerVars[kRocrVisibleDevices];
  const char* hip_name = kPlannerVars[kHipVisibleDevices];
  const char* cuda = base::Lookup(env, cuda_name);
  if (cuda != nullptr) d.nvidia = OneOf(cuda, nullptr, 0), d.nvidia_var = cuda_name;
  const char* rocr = base::Lookup(env, rocr_name);
  const char* hip = base::Lookup(env, hip_name);
  if (hip == nullptr) {
    if (rocr != nullptr) d.amd = OneOf(rocr, nullptr, 0), d.amd_var = rocr_name;
    return d;
  }
  d.amd_var = hip_name;
  if (rocr == nullptr) {
    d.amd = OneOf(hip, nullptr, 0);
    return d;
  }
  // HIP indexes the devices ROCR left: keep ROCR's list (up to its first out-of-order end, which only the
  // machine's device count could tell; indexes are taken as given) and index it.
  uint32_t left[kMaxIndexes], n = 0;
  if (!ParseVisibleDevices(rocr, left, kMaxIndexes, &n)) {
    d.amd = OneDevice::kSeveral;
    return d;
  }
  uint32_t kept = 0;
  for (; kept < n; ++kept) {
    bool repeated = false;
    for (uint32_t j = 0; j < kept; ++j) repeated = repeated || left[j] == left[kept];
    if (repeated) break;
  }
  d.amd = OneOf(hip, left, kept);
  return d;
}

}  // namespace numabind::config
