// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_BOUND's grammar (config/bound_marker.h). Child-safe: reads characters.

#include "config/bound_marker.h"

#include "base/digits.h"
#include "base/text.h"
#include "config/grammar.h"

namespace numabind::config {

// Child-safe: parses digits, commas and dashes.
bool ParseBoundProof(const char* bound, BoundProof* out) {
  const char* s = bound;
  while (*s != '\0' && *s != ' ') ++s;
  if (!base::StartsWith(s, " cpus=")) return false;
  s += 6;
  const char* list = s;
  while (*s != '\0' && *s != ' ') ++s;
  Ranges ranges(list, s, uint32_t{kMaxCpuWords} * 64 - 1);
  uint32_t first, last;
  bool any = false;
  while (ranges.Next(&first, &last)) {
    for (uint32_t c = first; c <= last; ++c) out->cpus[c / 64] |= 1ull << (c % 64);
    any = true;
  }
  if (!any || ranges.fault() != ListFault::kNone) return false;
  uint64_t by = 0;
  if (!base::StartsWith(s, " by=")) return false;
  s += 4;
  if (base::ScanDecimal(&s, nullptr, 0x7fffffff, &by) != base::Digits::kOk || by == 0) return false;
  out->spawned = base::StrEq(s, " spawned");
  if (*s != '\0' && !out->spawned) return false;
  out->by = static_cast<pid_t>(by);
  return true;
}

// Child-safe: reads characters.
bool ParseBoundMarker(const char* bound, BoundMarker* out) {
  if (bound == nullptr) return false;
  const char* s = bound;
  for (; (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'; ++s) {
  }
  if (s == bound || *s != '=') return false;
  out->var = bound;
  out->var_len = static_cast<size_t>(s - bound);
  out->value = ++s;
  while (*s != '\0' && *s != ' ') ++s;
  out->value_len = static_cast<size_t>(s - out->value);
  out->proof = BoundProof();
  out->has_proof = ParseBoundProof(bound, &out->proof);
  return true;
}

}  // namespace numabind::config
