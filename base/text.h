// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe text helpers any context may use (base/text.cc): no allocation, no locale, no libc calls.
// The library's one copy of each: string equality and length, decimal digits, errno names, UTF-8.

#ifndef NUMABIND_BASE_TEXT_H_
#define NUMABIND_BASE_TEXT_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::base {

/// Child-safe: strcmp(a, b) == 0.
inline bool StrEq(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

/// Child-safe: whether s begins with prefix.
inline bool StartsWith(const char* s, const char* prefix) {
  while (*prefix != '\0' && *s == *prefix) ++s, ++prefix;
  return *prefix == '\0';
}

/// Child-safe: strlen.
inline size_t StrLen(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

/// Child-safe: the last component of a path ("python3" for "/usr/bin/python3"; the path when it has no '/').
inline const char* LastComponent(const char* path) {
  const char* last = path;
  for (const char* s = path; *s != '\0'; ++s) {
    if (*s == '/') last = s + 1;
  }
  return last;
}

/// Room FormatDecimal needs: 20 digits of a uint64_t and the NUL.
constexpr size_t kDecimalMax = 21;

/// Child-safe: writes v in decimal at out (kDecimalMax bytes), NUL-terminated; returns the digit count.
size_t FormatDecimal(uint64_t v, char* out);

/// Child-safe: the name of an errno value for one-line messages, "Operation not permitted (EPERM)", for
/// the values a binding or a log file meets; "error" for others (strerror may allocate).
const char* ErrnoName(int e);

/// Room ErrnoSymbol's buffer needs: "errno -2147483648" and the NUL.
constexpr size_t kErrnoSymbolMax = 24;

/// Child-safe: the symbol of an errno value ("ENOENT"), or "errno N" written into buf (kErrnoSymbolMax
/// bytes).
const char* ErrnoSymbol(int e, char* buf);

/// Child-safe: the name of a signal ("SIGSEGV"), or "signal N" written into buf (kErrnoSymbolMax bytes).
const char* SignalName(int sig, char* buf);

/// Child-safe: the length of the well-formed UTF-8 sequence at s (n > 0 bytes; Unicode's table 3-7: no
/// overlong forms, surrogates or code points past U+10FFFF), or 0 when there is none, with *used the bytes
/// of its maximal subpart, at least 1: what one U+FFFD replaces (Unicode 15, section 3.9).
size_t Utf8Sequence(const unsigned char* s, size_t n, size_t* used);

/// Child-safe: fnmatch(3)-style glob (*, ?, [...], backslash escapes) without flags; fnmatch itself may
/// allocate for multibyte locales.
bool GlobMatch(const char* pattern, const char* text);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_TEXT_H_
