// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Environment lookup without libc (base/env.cc): the one copy for every context (the library between fork and
// exec, the configuration, the rank environment, the planner), reading any "NAME=value" array, not only
// environ.

#ifndef NUMABIND_BASE_ENV_H_
#define NUMABIND_BASE_ENV_H_

namespace numabind::base {

/// Child-safe: the value in `entry` ("NAME=value") when NAME is `name`, else nullptr.
const char* ValueOf(const char* entry, const char* name);

/// Child-safe: the value of `name` in `env` (NULL-terminated; nullptr counts as empty), the first entry of
/// that name, or nullptr.
const char* Lookup(const char* const* env, const char* name);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_ENV_H_
