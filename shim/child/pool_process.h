// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Which processes' forks take ranks under NUMABIND_FORKS=ranks: the Python process whose pool it is, never
// a shell in front of it. A job script's background subshell (`( while sleep 1; do :; done ) &`) is a
// bare fork that never execs, as a pool's worker is, and a pyenv-style `python3` is a shell script whose
// command substitutions fork: taking ranks there pinned the subshell to rank 0's CPUs for the whole job and
// wrote two lines per command. What tells the pool's process is its program, a Python interpreter.

#ifndef NUMABIND_SHIM_CHILD_POOL_PROCESS_H_
#define NUMABIND_SHIM_CHILD_POOL_PROCESS_H_

#include <stdint.h>
#include <sys/types.h>

#include "shim/state/state.h"

namespace numabind::shim {

/// Child-safe (one readlink of /proc/PID/exe, a buffer on the stack): whether process `pid` (0: this one)
/// runs a Python interpreter (base::IsPythonName of the executable's path: python, python3, python3.11;
/// a venv's python is a link to one). Not a script whose #! names one, nor a shell that execs one later.
/// False when /proc cannot tell (no /proc, another user's process).
bool RunsPython(pid_t pid);

/// Parent side (not child-safe: writes g_prepared once): RunsPython(0), kept in g_prepared.forks_python.
bool FindForksPython();

/// Parent side of a fork: whether the children this process forks now take ranks by order:
/// NUMABIND_FORKS=ranks, the process is no rank, and it is a Python interpreter (RunsPython, read at the
/// first fork that asks and kept: fork children inherit the answer, an exec starts afresh). Inline: a fork
/// without NUMABIND_FORKS pays one flag test, and later ones of a pool's process three.
inline bool ForksTakeRanks() {
  if (!g_startup.config.fork_ranks || g_role.IsRank()) return false;
  uint8_t known = __atomic_load_n(&g_prepared.forks_python, __ATOMIC_ACQUIRE);
  return known == 0 ? FindForksPython() : known == 1;
}

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_POOL_PROCESS_H_
