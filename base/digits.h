// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one reading of decimal and hex digits, for every context (the child side included): no allocation,
// no locale, no libc calls. Grammars of whole values (lists, ranks, bus ids) are built on these in config/.

#ifndef NUMABIND_BASE_DIGITS_H_
#define NUMABIND_BASE_DIGITS_H_

#include <stdint.h>

namespace numabind::base {

/// What ScanDecimal found.
enum class Digits : uint8_t {
  kNone,      ///< no digit at *p
  kOk,        ///< digits whose value is at most max
  kTooLarge,  ///< digits, but their value is above max (*out is then max + 1, saturated)
};

/// Reads the decimal digits at *p (max below 2^60), stopping at `end` (nullptr: at the first non-digit) and
/// advancing *p past every one of them, so that "99999999999x" ends at the 'x' whatever max is. Child-safe.
inline Digits ScanDecimal(const char** p, const char* end, uint64_t max, uint64_t* out) {
  const char* s = *p;
  uint64_t v = 0;
  bool large = false;
  for (; (end == nullptr || s < end) && *s >= '0' && *s <= '9'; ++s) {
    if (large) continue;
    v = v * 10 + static_cast<uint64_t>(*s - '0');
    if (v > max) large = true;
  }
  if (s == *p) return Digits::kNone;
  *p = s;
  *out = large ? max + 1 : v;
  return large ? Digits::kTooLarge : Digits::kOk;
}

/// The value of one hex digit (any case), or -1. Child-safe.
inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace numabind::base

#endif  // NUMABIND_BASE_DIGITS_H_
