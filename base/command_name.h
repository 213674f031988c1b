// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// How a rank's program is named for people: in the log's lines (and so in `numabind report`) and in
// `numabind ps`. A Python rank is named by what it runs ("python3 train.py"), not by the interpreter alone,
// which every Python rank of a machine shares. Child-safe: the exec wrappers name the rank between fork
// and exec.

#ifndef NUMABIND_BASE_COMMAND_NAME_H_
#define NUMABIND_BASE_COMMAND_NAME_H_

#include <stddef.h>

namespace numabind::base {

/// Room a CommandName buffer needs for most names; longer ones are cut.
constexpr size_t kCommandNameMax = 256;

/// Child-safe: whether `name`'s last path component is a Python interpreter: python, python3, python3.11
/// ("python" then digits and dots only).
bool IsPythonName(const char* name);

/// Child-safe: the name of the program started as `path` (may be nullptr: argv[0]) with `argv` (may be
/// nullptr). For a Python interpreter (path's or argv[0]'s last component, IsPythonName), the interpreter's
/// last component and what it runs, from the first argument that is no option (skipping -u, -O, -X OPT,
/// -W ARG, --check-hash-based-pycs MODE, combined flags such as -uB): "python3 train.py", "python3 -m
/// pkg.mod", "python3 -c" (the code is left out), "python3 -" (standard input), or "python3" alone; written
/// into buf (cap bytes, cut at cap - 1) and returned. Any other program: `path` (else argv[0]) as it is.
const char* CommandName(const char* path, const char* const* argv, char* buf, size_t cap);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_COMMAND_NAME_H_
