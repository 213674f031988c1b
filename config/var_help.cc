// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The variables' texts for people, from config/vars.def: the command's --help, `numabind vars`, the man page
// and the README table. The library never refers to them (its linker drops this object's table).

#include "config/vars.h"

namespace numabind::config {

const VarInfo kVars[kVarCount] = {
#define NUMABIND_VAR(id, name, values, dflt, unset, meaning, reader, reads_empty) \
  {name, values, dflt, unset, meaning},
#include "config/vars.def"
#undef NUMABIND_VAR
};

}  // namespace numabind::config
