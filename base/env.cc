// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Environment lookup (base/env.h): plain loops, no libc.

#include "base/env.h"

#include "base/hot.h"

namespace numabind::base {

NUMABIND_HOT const char* ValueOf(const char* entry, const char* name) {
  while (*name != '\0' && *entry == *name) ++entry, ++name;
  return *name == '\0' && *entry == '=' ? entry + 1 : nullptr;
}

NUMABIND_HOT const char* Lookup(const char* const* env, const char* name) {
  if (env == nullptr || name == nullptr) return nullptr;
  for (; *env != nullptr; ++env) {
    if (const char* v = ValueOf(*env, name)) return v;
  }
  return nullptr;
}

}  // namespace numabind::base
