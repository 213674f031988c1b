// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "config/visible_devices.h"

#include "config/config.h"
#include "config/grammar.h"

namespace numabind::config {

namespace {

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

/// One entry of a list, [*b, *e) from `s` to the next comma or `end`, without the blanks around it.
/// Returns where the entry ends (its comma or `end`).
const char* NextEntry(const char* s, const char* end, const char** b, const char** e) {
  const char* comma = s;
  while (comma < end && *comma != ',') ++comma;
  *b = s, *e = comma;
  while (*b < *e && Blank(**b)) ++*b;
  while (*e > *b && Blank((*e)[-1])) --*e;
  return comma;
}

/// Whether [b, e) is an index: decimal digits, at most 6 (a larger index is out of range on any machine).
bool IndexOf(const char* b, const char* e, uint32_t* index) {
  size_t len = static_cast<size_t>(e - b);
  return len <= 6 && ParseDecimal(b, len, 999999, index);
}

/// Whether [b, e) is a UUID entry (ParseDeviceUuid's forms); the GPU it names into [*id, *id_end).
bool UuidOf(const char* b, const char* e, const char** id, const char** id_end) {
  bool mig = e - b > 4 && b[0] == 'M' && b[1] == 'I' && b[2] == 'G' && b[3] == '-';
  // The old MIG form names its GPU first: "MIG-GPU-<uuid>/<gi>/<ci>".
  if (mig && e - b > 8 && b[4] == 'G' && b[5] == 'P' && b[6] == 'U' && b[7] == '-') {
    b += 4;
    const char* slash = b;
    while (slash < e && *slash != '/') ++slash;
    if (slash == e) return false;
    e = slash, mig = false;
  }
  bool gpu = e - b > 4 && b[0] == 'G' && b[1] == 'P' && b[2] == 'U' && b[3] == '-';
  if (!gpu && !mig) return false;
  for (const char* c = b + 4; c < e; ++c) {
    bool hex = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F');
    if (!hex && *c != '-' && !(mig && *c == '/')) return false;
  }
  *id = b, *id_end = e;
  return true;
}

/// Whether [b, e) is a valid entry: an index or a UUID.
bool Valid(const char* b, const char* e) {
  uint32_t index = 0;
  const char *id = nullptr, *id_end = nullptr;
  return IndexOf(b, e, &index) || UuidOf(b, e, &id, &id_end);
}

const char* EndOf(const char* s) {
  while (*s != '\0') ++s;
  return s;
}

}  // namespace

// Child-safe: reads `value`.
bool ParseVisibleDevices(const char* value, uint32_t* out, uint32_t cap, uint32_t* n) {
  *n = 0;
  if (value == nullptr) return false;
  const char* end = EndOf(value);
  for (const char* s = value;;) {
    const char *b = nullptr, *e = nullptr, *id = nullptr, *id_end = nullptr;
    s = NextEntry(s, end, &b, &e);
    uint32_t index = 0;
    if (!IndexOf(b, e, &index)) return !UuidOf(b, e, &id, &id_end);  // a UUID, or the list's end
    if (*n == cap) return true;
    out[(*n)++] = index;
    if (s == end) return true;
    ++s;  // the comma: another entry follows
  }
}

// Child-safe: reads `value`.
bool ParseDeviceUuid(const char* value, const char** id, uint32_t* len) {
  if (value == nullptr) return false;
  const char* end = EndOf(value);
  const char *b = nullptr, *e = nullptr, *id_end = nullptr;
  const char* s = NextEntry(value, end, &b, &e);
  if (!UuidOf(b, e, id, &id_end)) return false;
  if (s != end && (NextEntry(s + 1, end, &b, &e), Valid(b, e))) return false;  // another device follows
  *len = static_cast<uint32_t>(id_end - *id);
  return true;
}

VisibleVars LookupVisibleVars(const char* const* env) {
  EnvFacts facts;
  ScanEnvFacts(env, &facts);
  return VisibleVarsOf(facts.kept);
}

// Child-safe: reads three pointers.
VisibleVars VisibleVarsOf(const EnvKept& kept) {
  VisibleVars v;
  v.cuda = kept.cuda_visible_devices;
  v.rocr = kept.rocr_visible_devices;
  v.hip = kept.hip_visible_devices;
  if (v.hip != nullptr && *v.hip == '\0') v.hip = nullptr;
  return v;
}

namespace {

constexpr uint32_t kMaxIndexes = 64;

/// What `value` leaves of `from` (nullptr: every index, count `from_n` of them when known, else the
/// identity), by the runtimes' rule: an out-of-range or repeated index ends the list. Returns the one index
/// left, OneDevice::kUuid when `value` is one UUID (into *uuid and *uuid_len), or OneDevice::kSeveral.
int32_t OneOf(const char* value, const uint32_t* from, uint32_t from_n, const char** uuid,
              uint32_t* uuid_len) {
  if (ParseDeviceUuid(value, uuid, uuid_len)) return OneDevice::kUuid;
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
  EnvFacts facts;
  ScanEnvFacts(env, &facts);
  return FindOneDevice(facts);
}

OneDevice FindOneDevice(const EnvFacts& facts) {
  OneDevice d;
  const char* cuda_name = kEnvNames.cuda_visible_devices;
  const char* rocr_name = kEnvNames.rocr_visible_devices;
  const char* hip_name = kEnvNames.hip_visible_devices;
  VisibleVars vars = VisibleVarsOf(facts.kept);
  const char* cuda = vars.cuda;
  if (cuda != nullptr) d.nvidia = OneOf(cuda, nullptr, 0, &d.nvidia_uuid, &d.nvidia_uuid_len);
  if (cuda != nullptr) d.nvidia_var = cuda_name;
  const char* rocr = vars.rocr;
  const char* hip = vars.hip;
  if (hip == nullptr) {
    if (rocr != nullptr) d.amd = OneOf(rocr, nullptr, 0, &d.amd_uuid, &d.amd_uuid_len), d.amd_var = rocr_name;
    return d;
  }
  d.amd_var = hip_name;
  if (rocr == nullptr || ParseDeviceUuid(hip, &d.amd_uuid, &d.amd_uuid_len)) {
    d.amd = OneOf(hip, nullptr, 0, &d.amd_uuid, &d.amd_uuid_len);
    return d;
  }
  // ROCR left one device, by UUID: HIP's index 0 is that device.
  if (ParseDeviceUuid(rocr, &d.amd_uuid, &d.amd_uuid_len)) {
    const uint32_t only = 0;
    const char* unused = nullptr;
    uint32_t unused_len = 0;
    d.amd = OneOf(hip, &only, 1, &unused, &unused_len) == 0 ? OneDevice::kUuid : OneDevice::kSeveral;
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
  d.amd = OneOf(hip, left, kept, &d.amd_uuid, &d.amd_uuid_len);
  return d;
}

}  // namespace numabind::config
