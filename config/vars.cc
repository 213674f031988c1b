// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "config/vars.h"

#include "base/hot.h"
#include "config/config.h"

namespace numabind::config {

const char kDefaultMatch[] = "*-c from multiprocessing.spawn import spawn_main*--multiprocessing-fork*";

const char kVarNames[kVarCount][kVarNameMax] = {
#define NUMABIND_VAR(id, name, ...) name,
#include "config/vars.def"
#undef NUMABIND_VAR
};

namespace {

inline unsigned FlagsOf(int id) {
  switch (id) {
#define NUMABIND_VAR(id, name, values, dflt, unset, meaning, reader, flags) \
  case id:                                                                  \
    return flags;
#include "config/vars.def"
#undef NUMABIND_VAR
  }
  return 0;
}

}  // namespace

// Hot: the configuration's parse asks both of each variable set (in cold text, a page fault more per start).
NUMABIND_HOT bool ReadsEmpty(int id) { return (FlagsOf(id) & kReadsEmpty) != 0; }

NUMABIND_HOT bool WarnsOnly(int id) { return (FlagsOf(id) & kWarnsOnly) != 0; }

// A switch of direct calls, not a table of function pointers: no relocation at load.
NUMABIND_HOT bool ReadVar(int id, const char* value, Config* out, char* why, size_t cap) {
  switch (id) {
#define NUMABIND_VAR(id, name, values, dflt, unset, meaning, reader, flags) \
  case id:                                                                  \
    return reader(value, out, why, cap);
#include "config/vars.def"
#undef NUMABIND_VAR
  }
  return false;
}

NUMABIND_HOT int FindVar(const char* name, size_t len) {
  for (int i = 0; i < kVarCount; ++i) {
    const char* v = kVarNames[i];
    size_t j = 0;
    while (j < len && v[j] != '\0' && v[j] == name[j]) ++j;
    if (j == len && v[j] == '\0') return i;
  }
  return -1;
}

}  // namespace numabind::config
