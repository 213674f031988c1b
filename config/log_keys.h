// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The members of the library's JSON log lines by id (config/log_keys.def spells each once): the library
// writes them, `numabind report` reads them, neither with a string of its own. Header only, child-safe.

#ifndef NUMABIND_CONFIG_LOG_KEYS_H_
#define NUMABIND_CONFIG_LOG_KEYS_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::config {

enum class LogKey : uint8_t {
#define NUMABIND_LOG_KEY(id, name, meaning) id,
#include "config/log_keys.def"
#undef NUMABIND_LOG_KEY
};

inline constexpr size_t kLogKeyCount = 0
#define NUMABIND_LOG_KEY(id, name, meaning) +1
#include "config/log_keys.def"
#undef NUMABIND_LOG_KEY
    ;

/// The keys by LogKey, in rows of one width: no pointers for the loader to relocate in every process.
inline constexpr char kLogKeyNames[][16] = {
#define NUMABIND_LOG_KEY(id, name, meaning) name,
#include "config/log_keys.def"
#undef NUMABIND_LOG_KEY
};

/// Child-safe: the key's spelling.
constexpr const char* LogKeyName(LogKey key) { return kLogKeyNames[static_cast<size_t>(key)]; }

/// Child-safe: the key spelled by the n bytes at `name`; false when the table has none (a newer library's).
inline bool FindLogKey(const char* name, size_t n, LogKey* key) {
  for (size_t k = 0; k < kLogKeyCount; ++k) {
    const char* row = kLogKeyNames[k];
    size_t i = 0;
    while (i < n && row[i] != '\0' && row[i] == name[i]) ++i;
    if (i == n && row[i] == '\0') {
      *key = static_cast<LogKey>(k);
      return true;
    }
  }
  return false;
}

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_LOG_KEYS_H_
