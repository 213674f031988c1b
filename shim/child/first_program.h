// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A configured launch whose programs are no ranks binds nothing, and used to say nothing: a user who ran
// `numabind run --policy node -- python3 train.py` whose workers carry no rank variable saw every CPU used
// and no line. At NUMABIND_LOG=info the first program the launch's root starts, when it is no rank, is named
// once with what would make it one.

#ifndef NUMABIND_SHIM_CHILD_FIRST_PROGRAM_H_
#define NUMABIND_SHIM_CHILD_FIRST_PROGRAM_H_

#include "shim/child/child.h"

namespace numabind::shim {

/// Parent side, before a fork or a spawn of a configured launcher at NUMABIND_LOG=info that is the root of
/// its configured tree (no configured parent: the launch the user started, not each shell inside it) and
/// has a good configuration: maps the word g_prepared.first_program (the shared mistake page's,
/// shim/log/shared_mistake.h), once; nothing otherwise.
void ShareFirstProgramWord();

/// Child-safe: the program at `path` is being started by the launcher (an exec in its child, or a spawn);
/// when it is the first (the word's one claim) and no rank (`rank` false), one info line names it, says it
/// had no rank variable and matched no NUMABIND_MATCH, and the options that make such programs ranks.
void NoteFirstProgram(const ChildArgs& a, bool rank, const char* path);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_FIRST_PROGRAM_H_
