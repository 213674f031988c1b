// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_EXPORT on the child side: the entries a bound rank's environment gets (core/rank_env.h), built
// on the caller's stack between fork/vfork and exec (a vfork child shares its parent's memory, and threads
// spawn at once: no buffer shared between spawns), and the rank's new environment around them.

#ifndef NUMABIND_SHIM_RANK_EXPORTS_H_
#define NUMABIND_SHIM_RANK_EXPORTS_H_

#include <stddef.h>

#include "core/rank_env.h"
#include "shim/child.h"

namespace numabind::shim {

/// Child-safe: the bytes rank m's exported entries need, 1 to core::kRankEnvMax (0 when NUMABIND_EXPORT is
/// none or the rank has no plan). `envp` is the environment the rank starts with.
size_t ExportBytes(const RankMatch& m, char* const* envp);

/// Child-safe: builds them into buf (cap bytes, from ExportBytes) and logs what was asked for and not
/// exported as one warn line naming the rank and `path`.
void BuildExports(const RankMatch& m, char* const* envp, const char* path, char* buf, size_t cap,
                  core::RankEnv* out);

/// Child-safe: fills out (room for EnvCount(envp) + 2 + exports.count pointers) with NUMABIND_BOUND first
/// (when `mark`: MarkEnvironment's marker), then the exported entries, then envp's entries other than
/// NUMABIND_BOUND and those the exports replace. Returns out.
char* const* RankEnvironment(char* const* envp, const RankMatch& m, bool mark, char* marker,
                             const core::RankEnv& exports, char** out);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_EXPORTS_H_
