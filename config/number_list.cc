// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Decimal numbers and lists of numbers and ranges (config/grammar.h): the one reading of each, for the
// variables and for the kernel's lists. Compiled into the shim (libc alone, may run before main): no
// allocation, no stdio, no library state.

#include "base/digits.h"
#include "config/grammar.h"

namespace numabind::config {

bool ParseDecimal(const char* s, size_t n, uint32_t max, uint32_t* out) {
  const char* p = s;
  uint64_t v = 0;
  if (base::ScanDecimal(&p, s + n, max, &v) != base::Digits::kOk || p != s + n) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

Ranges::Ranges(const char* list, const char* end, uint32_t max, bool spaces)
    : p_(list), end_(end), start_(list), max_(max), spaces_(spaces) {
  SkipSpaces();
}

void Ranges::SkipSpaces() {
  while (spaces_ && p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
}

bool Ranges::Fail(ListFault f) {
  fault_ = f;
  return false;
}

bool Ranges::Next(uint32_t* lo, uint32_t* hi) {
  if (fault_ != ListFault::kNone || p_ >= end_) return false;
  if (!first_) {  // after a range: the end, or ',' and another
    if (*p_ != ',') return Fail(ListFault::kBadChar);
    ++p_;
    if (p_ >= end_) return Fail(ListFault::kTrailingComma);
    SkipSpaces();
  }
  first_ = false;
  start_ = p_;
  uint64_t a = 0, b = 0;
  base::Digits da = base::ScanDecimal(&p_, end_, max_, &a);
  if (da == base::Digits::kNone) return Fail(ListFault::kNoNumber);
  SkipSpaces();
  b = a;
  base::Digits db = da;
  if (p_ < end_ && *p_ == '-') {
    ++p_;
    SkipSpaces();
    db = base::ScanDecimal(&p_, end_, max_, &b);
    if (db == base::Digits::kNone) return Fail(ListFault::kNoNumberAfterDash);
  }
  const char* range_end = p_;
  SkipSpaces();
  if (p_ < end_ && *p_ != ',') return Fail(ListFault::kBadChar);
  // A range that goes down is that, whatever its size ("70000-1" in a CPU map goes down).
  if (b < a && db == base::Digits::kOk) {
    p_ = range_end;
    return Fail(ListFault::kGoesDown);
  }
  if (da != base::Digits::kOk || db != base::Digits::kOk) return Fail(ListFault::kTooLarge);
  *lo = static_cast<uint32_t>(a);
  *hi = static_cast<uint32_t>(b);
  return true;
}

}  // namespace numabind::config
