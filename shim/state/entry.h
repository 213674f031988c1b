// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Which wrapped call a spawn came through: the entries of shim/state/wrapped.def, for the log.

#ifndef NUMABIND_SHIM_STATE_ENTRY_H_
#define NUMABIND_SHIM_STATE_ENTRY_H_

#include <stdint.h>

namespace numabind::shim {

/// One per NUMABIND_ENTRY of shim/state/wrapped.def, in its order, then the start-up.
enum class Entry : uint8_t {
#define NUMABIND_ENTRY(symbol, id, ret, params) id,
#define NUMABIND_ENTRY_ONLY(symbol, id) id,
#define NUMABIND_EXPORT_ONLY(symbol, ret, params)
#define NUMABIND_EXPORT_LAZY(symbol, ret, params)
#define NUMABIND_EXPORT_SPECIAL(symbol)
#define NUMABIND_EXPORT_EXIT(symbol)
#include "shim/state/wrapped.def"
  kStartup,  ///< a rank binding itself in the library's constructor
  kFork,     ///< a fork child of a non-rank under NUMABIND_FORKS=ranks, binding before fork returns
};

/// Child-safe: the C name of an entry point ("execve"; "start-up" for kStartup).
const char* EntryName(Entry entry);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_STATE_ENTRY_H_
