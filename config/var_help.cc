// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The variables' texts for people, from config/vars.def: the command's --help, `numabind vars`, the man page
// and the README table. The library never refers to them (its linker drops this object's table).

#include "config/vars.h"

#include "config/choices.h"

namespace numabind::config {

const VarInfo kVars[kVarCount] = {
#define NUMABIND_VAR(id, name, values, dflt, unset, meaning, reader, flags) \
  {name, values, dflt, unset, meaning},
#include "config/vars.def"
#undef NUMABIND_VAR
};

size_t VarValues(int id, char* out, size_t cap) {
  const char* values = kVars[id].values;
  if (values == nullptr) return JoinChoices(*ChoicesOfVar(id), "|", "|", out, cap);
  size_t n = 0;
  for (; values[n] != '\0' && n + 1 < cap; ++n) out[n] = values[n];
  if (cap > 0) out[n] = '\0';
  return n;
}

size_t VarChoicesText(int id, char* out, size_t cap) {
  const Choices* c = ChoicesOfVar(id);
  if (c == nullptr) {
    if (cap > 0) out[0] = '\0';
    return 0;
  }
  return JoinChoices(*c, ", ", " or ", out, cap);
}

}  // namespace numabind::config
