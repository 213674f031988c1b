// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe text helpers any context may use (base/text.cc): no allocation, no locale, no libc calls.

#ifndef NUMABIND_BASE_TEXT_H_
#define NUMABIND_BASE_TEXT_H_

namespace numabind::shim {

/// Child-safe: fnmatch(3)-style glob (*, ?, [...], backslash escapes) without flags; fnmatch itself may
/// allocate for multibyte locales.
bool GlobMatch(const char* pattern, const char* text);

}  // namespace numabind::shim

#endif  // NUMABIND_BASE_TEXT_H_
