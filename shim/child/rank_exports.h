// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_EXPORT on the child side: the entries a bound rank's environment gets (plan/rank_env.h), and the
// rank's new environment around them, built between fork/vfork and exec (or in posix_spawn's caller) in a
// mapping of their own: their size follows the environment and the rank's CPUs, and the caller's thread may
// have a 16 KiB stack. No buffer is shared between spawns: threads spawn at once.

#ifndef NUMABIND_SHIM_CHILD_RANK_EXPORTS_H_
#define NUMABIND_SHIM_CHILD_RANK_EXPORTS_H_

#include <stddef.h>

#include "plan/rank_env.h"
#include "shim/child/child.h"

namespace numabind::shim {

/// Child-safe: the bytes rank m's exported entries need, 1 to plan::kRankEnvMax (0 when NUMABIND_EXPORT is
/// none or the rank has no plan). `env`: what the environment the rank starts with sets (RankMatch::kept).
size_t ExportBytes(const ChildArgs& a, const plan::RankPlan& plan, const config::EnvKept& env);

/// Child-safe: builds them into buf (cap bytes, from ExportBytes) and logs what was asked for and not
/// exported as one warn line naming the rank and `path`, written in `line` (empty).
void BuildExports(const ChildArgs& a, const RankMatch& m, const plan::RankPlan& plan,
                  const config::EnvKept& env, const char* path, char* buf, size_t cap, plan::RankEnv* out,
                  Line* line);

/// Child-safe: fills out (room for m.env_entries + 2 + exports.count pointers) with NUMABIND_BOUND first
/// (when `mark`: WriteMarker's marker), then the exported entries, then envp's entries other than
/// NUMABIND_BOUND and those the exports replace. Returns out.
char* const* RankEnvironment(const ChildArgs& a, char* const* envp, const RankMatch& m, bool mark, char* marker,
                             const plan::RankEnv& exports, char** out);

/// A rank's environment in memory of its own (raw mmap: this may be a vfork child, where malloc is not
/// safe): the pointer array, the NUMABIND_BOUND marker and NUMABIND_EXPORT's entries.
struct RankBlock {
  char* const* env = nullptr;  ///< the environment to start the rank with (envp itself when unchanged)
  char* map = nullptr;         ///< the mapping, nullptr when none was needed
  size_t map_size = 0;
};

/// Child-safe: builds rank m's environment (envp is the one m was found in: m.env_entries counts it, and
/// m.kept holds what it sets of what NUMABIND_EXPORT sets):
/// NUMABIND_BOUND first (when NeedsMarker), NUMABIND_EXPORT's entries from the plan BindRank computed (when
/// `bound` is not nullptr: the rank is bound to it; a warn line naming `path` for what is not exported), then
/// envp's other entries. Maps nothing when there is nothing to add. Returns 0, or the errno of a failed mmap
/// (out->env is then envp). `keep`, on the parent side of a spawn only (never between fork/vfork and exec):
/// takes the mapping FreeRankBlock kept, when it is large enough.
int BuildRankBlock(const ChildArgs& a, char* const* envp, const RankMatch& m, const plan::RankPlan* bound,
                   const char* path, RankBlock* out, bool keep = false);

/// Child-safe without `keep`: unmaps out->map, if any. With `keep` (parent side only): keeps it for the next
/// spawn of a rank instead, which saves each an mmap, a munmap and the fault of a fresh page; threads that
/// spawn at once map their own.
void FreeRankBlock(RankBlock* block, bool keep = false);

/// The mapping of the rank block an exec wrapper is starting a rank with on this thread ({nullptr, 0} when
/// none), and of the environment it built for a container runtime (shim/child/container.h). A vfork child
/// shares its parent's memory: after a successful exec the mappings are still the parent's, and
/// numabind_after_vfork unmaps them there. Written by the child of a vfork, on the thread the vfork
/// suspends, read by that thread only once vfork returns.
struct ExecMapping {
  char* map;
  size_t size;
  char* container_map;
  size_t container_size;
};
extern __thread ExecMapping t_exec_mapping __attribute__((tls_model("initial-exec")));

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_RANK_EXPORTS_H_
