// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// LD_PRELOAD entries (base/preload.h): plain loops, no libc.

#include "base/preload.h"

namespace numabind::base {
namespace {

bool IsSeparator(char c) { return c == ' ' || c == ':'; }

/// Calls visit(start, length) for each non-empty entry of an LD_PRELOAD value.
template <typename Visit>
void ForEachEntry(const char* value, Visit visit) {
  const char* p = value;
  while (*p != '\0') {
    while (IsSeparator(*p)) ++p;
    const char* start = p;
    while (*p != '\0' && !IsSeparator(*p)) ++p;
    if (p > start) visit(start, static_cast<size_t>(p - start));
  }
}

}  // namespace

bool IsShimEntry(const char* s, size_t n) {
  constexpr size_t kLen = sizeof(kShimFileName) - 1;
  if (n < kLen || (n > kLen && s[n - kLen - 1] != '/')) return false;
  for (size_t i = 0; i < kLen; ++i) {
    if (s[n - kLen + i] != kShimFileName[i]) return false;
  }
  return true;
}

bool PreloadsShim(const char* value) {
  bool found = false;
  ForEachEntry(value, [&](const char* s, size_t n) { found = found || IsShimEntry(s, n); });
  return found;
}

size_t WithoutShim(const char* value, char* out) {
  size_t at = 0;
  ForEachEntry(value, [&](const char* s, size_t n) {
    if (IsShimEntry(s, n)) return;
    if (at > 0) out[at++] = ':';
    for (size_t i = 0; i < n; ++i) out[at++] = s[i];
  });
  out[at] = '\0';
  return at;
}

}  // namespace numabind::base
