// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// LD_PRELOAD values and numabind's entry in them (base/preload.cc): the one reading of which entry is the
// library's, for `numabind run` (which adds it) and the library (which leaves it out of a container
// runtime's environment, shim/child/container.h). Plain loops, no libc: child-safe.

#ifndef NUMABIND_BASE_PRELOAD_H_
#define NUMABIND_BASE_PRELOAD_H_

#include <stddef.h>

namespace numabind::base {

/// The library's file name: every path that preloads it ends with it (the package's "/usr/$LIB/..." too).
constexpr char kShimFileName[] = "libnumabind.so";

/// Child-safe: whether the LD_PRELOAD entry s[0..n) (one path, no separator) names the library: its base
/// name is kShimFileName.
bool IsShimEntry(const char* s, size_t n);

/// Child-safe: whether an LD_PRELOAD value (entries separated by spaces or colons, as the dynamic loader
/// splits it) has an entry IsShimEntry accepts.
bool PreloadsShim(const char* value);

/// Child-safe: writes `value` without the entries IsShimEntry accepts into out (room for StrLen(value) + 1
/// bytes), the other entries kept in order, separated by colons, NUL-terminated. Returns the length written
/// (0: nothing left to preload).
size_t WithoutShim(const char* value, char* out);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_PRELOAD_H_
