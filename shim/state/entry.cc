// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The entries' names, from the one list of wrapped functions (shim/state/wrapped.def).

#include "shim/state/entry.h"

#include <stddef.h>

namespace numabind::shim {

// Child-safe: returns a string literal.
const char* EntryName(Entry entry) {
  // Arrays, not pointers: no relocations for the loader.
  static const char kNames[][13] = {
#define NUMABIND_ENTRY(symbol, id, ret, params) #symbol,
#define NUMABIND_ENTRY_ONLY(symbol, id) #symbol,
#define NUMABIND_EXPORT_ONLY(symbol, ret, params)
#define NUMABIND_EXPORT_LAZY(symbol, ret, params)
#define NUMABIND_EXPORT_SPECIAL(symbol)
#define NUMABIND_EXPORT_EXIT(symbol)
#include "shim/state/wrapped.def"
      "start-up", "fork"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Entry::kFork) + 1,
                "one name per entry");
  return kNames[static_cast<int>(entry)];
}

}  // namespace numabind::shim
