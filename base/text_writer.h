// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Appending text to a fixed buffer without libc, for the child side (plan_basis.cc, plan_auto.cc) and the
// launcher's async-signal-safe code (helper_launch.cc): no snprintf, as a vfork child shares its parent's
// memory and must not take locks.

#ifndef NUMABIND_BASE_TEXT_WRITER_H_
#define NUMABIND_BASE_TEXT_WRITER_H_

#include <stddef.h>
#include <stdint.h>

#include "base/text.h"

namespace numabind::base {

/// Appends to buf[0..cap), always NUL-terminated, counting what it would need (like snprintf). Child-safe:
/// writes only into the caller's buffer.
struct TextWriter {
  char* buf;
  size_t cap;
  size_t len;

  // Child-safe: writes one character into the caller's buffer.
  void Put(char c) {
    if (cap > 0 && len + 1 < cap) {
      buf[len] = c;
      buf[len + 1] = '\0';
    }
    ++len;
  }
  // Child-safe: copies a NUL-terminated string through Put.
  TextWriter& Str(const char* s) {
    while (s && *s) Put(*s++);
    return *this;
  }
  // Child-safe: decimal digits on the stack (base/text.h's FormatDecimal), no snprintf.
  TextWriter& Uint(uint64_t v) {
    char digits[base::kDecimalMax];
    base::FormatDecimal(v, digits);
    return Str(digits);
  }
  // Child-safe: a signed decimal.
  TextWriter& Int(int64_t v) {
    if (v < 0) Put('-');
    return Uint(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  }
};

}  // namespace numabind::base

#endif  // NUMABIND_BASE_TEXT_WRITER_H_
