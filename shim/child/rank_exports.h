// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_EXPORT on the child side: the entries a bound rank's environment gets (plan/rank_env.h), and the
// rank's new environment around them, built between fork/vfork and exec (or in posix_spawn's caller) in a
// mapping of their own: their size follows the environment and the rank's CPUs, and the caller's thread may
// have a 16 KiB stack. No buffer is shared between spawns: threads spawn at once. How long a mapping lives
// follows from who may still point into it once the rank has started (BlockUse).

#ifndef NUMABIND_SHIM_CHILD_RANK_EXPORTS_H_
#define NUMABIND_SHIM_CHILD_RANK_EXPORTS_H_

#include <stddef.h>
#include <stdint.h>

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

/// Child-safe: fills out (room for `room` pointers, the NULL included) with NUMABIND_BOUND first (when
/// `mark`: WriteMarker's marker), then the exported entries, then envp's entries other than NUMABIND_BOUND
/// and those the exports replace, as many as fit: envp may be `environ`, which another thread's setenv may
/// lengthen after FindRank counted it (m.env_entries). Returns out.
char* const* RankEnvironment(const ChildArgs& a, char* const* envp, const RankMatch& m, bool mark,
                             char* marker, const plan::RankEnv& exports, char** out, size_t room);

/// What a rank's environment is for, which decides how long its mapping lives.
enum class BlockUse : uint8_t {
  /// An exec's (between fork/vfork and exec, or a process exec'ing itself): a successful exec drops the
  /// mapping, a vfork parent unmaps it (t_exec_mapping), FreeRankBlock unmaps it after a failed exec.
  kExec,
  /// posix_spawn's environment argument, in its caller: the C library has copied it into the child when
  /// the call returns, and nothing else ever saw it, so the mapping is kept for the launcher's next spawn.
  kSpawn,
  /// `environ` (system and popen, which take no environment, and a rank's own at start-up): another thread
  /// may be reading it, or have copied its pointers into an array of its own (a setenv of a new name), which
  /// becomes the process's environment. It is never reused or unmapped: blocks are carved one after another
  /// from chunks of 64 KiB that stay mapped.
  kEnviron,
};

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
/// (out->env is then envp). BlockUse::kSpawn (on the parent side of a spawn only, never between fork/vfork
/// and exec) takes the mapping FreeRankBlock kept, when it is large enough; kEnviron carves its block from
/// memory that stays mapped; kExec maps afresh.
int BuildRankBlock(const ChildArgs& a, char* const* envp, const RankMatch& m, const plan::RankPlan* bound,
                   const char* path, RankBlock* out, BlockUse use = BlockUse::kExec);

/// Child-safe for kExec: unmaps block->map, if any. kSpawn (parent side only): keeps it for the next spawn
/// of a rank instead, which saves each an mmap, a munmap and the fault of a fresh page; threads that spawn
/// at once map their own. kEnviron: leaves it mapped for good.
void FreeRankBlock(RankBlock* block, BlockUse use);

/// Parent side only (never between fork/vfork and exec): a private mapping of at least `bytes` into *map
/// and *size, the one KeepMapping kept when it is large enough (no mmap, no fresh page), else a new one.
/// Returns 0 or the errno of a failed mmap. For memory nothing but the caller ever points into.
int TakeKeptMapping(size_t bytes, char** map, size_t* size);

/// Parent side only: keeps the mapping (nothing when map is nullptr) for the next TakeKeptMapping; a mapping
/// kept meanwhile by another thread (threads that spawn at once map their own) is unmapped.
void KeepMapping(char* map, size_t size);

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
