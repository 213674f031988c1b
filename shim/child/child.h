// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The child side of a spawn: deciding whether the program about to start is a rank, binding the calling
// thread to its plan, and putting the old binding back when the exec fails. Everything here may run between
// fork/vfork and exec: raw system calls on data the parent prepared, no allocation, locks, stdio or dlsym,
// and no writes to memory a vfork parent could see other than the caller's own stack (and an exec
// wrapper's mapping of the rank's environment, shim/child/rank_exports.h, which the parent unmaps).
// Stack budget (gcc -O2, the frames objdump shows): BindAndCall (shim/child/bind_call.h) holds 0.75 KiB and
// its CPU and node sets (the kernel's mask and the machine's: 1.5 KiB at 8192 CPUs) across the call it
// wraps, under which popen and system run the C library's own spawn; the lines are made in frames of their
// own when written (FinishBound 2.1 KiB, then 2.1 KiB more for JSON; Fail 2.1 KiB, then 2.1 KiB for JSON); a
// Python rank's name adds 256 bytes to BindAndCall's frame.

#ifndef NUMABIND_SHIM_CHILD_CHILD_H_
#define NUMABIND_SHIM_CHILD_CHILD_H_

#include <stdint.h>
#include <sys/types.h>

#include "base/text.h"
#include "config/rank_count.h"
#include "shim/child/order_counter.h"
#include "shim/log/line.h"
#include "shim/log/log.h"
#include "shim/state/entry.h"
#include "shim/state/state.h"

namespace numabind::shim {

/// How a spawn was recognised as a rank.
struct RankMatch {
  const char* var = nullptr;    ///< the rank variable, or nullptr when found by order (NUMABIND_MATCH)
  const char* entry = nullptr;  ///< the rank variable's "NAME=value" in the environment, or nullptr
  uint32_t rank = 0;
  uint32_t nranks = 0;  ///< 0 = unknown
  /// The entries of the environment it was found in (config::EnvFacts::count): room for its new one.
  size_t env_entries = 0;
  /// What that environment sets of what NUMABIND_EXPORT sets (config::EnvFacts::kept): kept as it is.
  config::EnvKept kept;
  bool replaced = false;  ///< set by BindRank: the binding the rank started with was another, now replaced
  /// The CPUs the rank started with, when its caller widened them before BindRank (a rank binding itself,
  /// in shim/rank/self_bind.cc), else nullptr: then it started with the binding BindRank finds.
  const uint64_t* started_cpus = nullptr;
  uint32_t started_words = 0;
  /// A rank binding itself that planned inside the CPUs of the rank its NUMABIND_BOUND names (a launcher
  /// inside a rank): the CPUs it started on, that rank's, which its line names; else nullptr.
  const uint64_t* inside_cpus = nullptr;
  uint32_t inside_words = 0;
  bool bound = false;  ///< set by BindRank: the calling thread is on the rank's CPUs
  /// The rank variable's value when it is not a usable rank (" 1", "1x", "4294967295"): BindRank then
  /// warns with one line naming the variable and value, and the program runs unbound (strict: refused).
  const char* bad_value = nullptr;
  /// Set by the caller before BindRank: the rank is started bound by this process, its parent (a spawn:
  /// posix_spawn, system, popen), not bound in its own process (before its exec, or at its start-up); its
  /// NUMABIND_BOUND proof says " spawned" (config/bound_marker.h).
  bool spawned = false;
  /// A rank found by order in a posix_spawn parent: its slot of the shared counter, which holds the
  /// parent's pid until FinishOrderClaim gives it the child's (shim/child/order_counter.h).
  OrderClaim order;
};

/// Words of a saved node mask: 1,024 nodes, the most any Linux allows (NODES_SHIFT at most 10), which
/// get_mempolicy needs at least (nr_node_ids).
constexpr uint32_t kSavedNodeWords = 16;

/// The calling thread's binding before the shim changed it. Its CPU mask is the caller's array of
/// SavedCpuWords() words: a thread's stack may be 16 KiB, and kMaxCpuWords would take 1 KiB of it.
struct SavedBinding {
  bool cpus_saved = false;
  bool memory_saved = false;
  int mode = 0;
  uint32_t cpu_words = 0;
  uint64_t* cpus = nullptr;
  uint64_t nodes[kSavedNodeWords];
};

/// What the child side of a spawn gets from the process that starts it, as musl's posix_spawn hands its
/// child `struct args`: made by ChildArgsNow (shim/rank/become_rank.h) on the parent side, or in the child
/// of a fork or vfork from the memory it shares with its parent, and handed down. Nothing in shim/child/
/// reads g_prepared or g_role; the configuration (g_startup) is the process-wide part every side reads, as
/// musl's `struct __libc`.
struct ChildArgs {
  /// The launcher's preparation (shim/launcher/prepare.h): the basis, why there is none, whether ranks get a
  /// memory policy, the launch the lines name, the shared mistake's word, the debug call stack.
  const Prepared* prepared;
  /// The CPUs of the process that starts the rank: a rank that started with others was bound by it between
  /// fork and exec (its launcher's, or a forked worker's own once it is a rank).
  const uint64_t* launcher_cpus;
  uint32_t launcher_cpu_words;
  /// A fork child that became rank `rank` of `nranks` already (NUMABIND_FORKS, or setenv) and said so.
  bool taken;
  uint32_t rank;
  uint32_t nranks;
};

/// Child-safe: the words of the kernel's CPU mask as sched_getaffinity gave the launcher's (at least what it
/// needs: nr_cpu_ids), or kMaxCpuWords before any was read.
uint32_t SavedCpuWords(const ChildArgs& a);

/// Declares, in the calling function's frame, a plan::RankPlan `plan` whose sets have this machine's size
/// (PlanWords of ChildArgs `args`), for BindRank. A macro: the arrays have variable length and must live as
/// long as the caller.
#define NUMABIND_PLAN_STORAGE(args, plan)                          \
  uint64_t plan##_cpus[::numabind::shim::PlanWords(args, true)];   \
  uint64_t plan##_nodes[::numabind::shim::PlanWords(args, false)]; \
  ::numabind::plan::RankPlan plan;                                 \
  plan.cpus = plan##_cpus, plan.nodes = plan##_nodes

/// As NUMABIND_PLAN_STORAGE, with a SavedBinding `saved` whose CPU mask has the kernel's size
/// (SavedCpuWords): what BindRank needs.
#define NUMABIND_BIND_STORAGE(args, saved, plan)                         \
  uint64_t saved##_cpus[::numabind::shim::SavedCpuWords(args)];          \
  ::numabind::shim::SavedBinding saved;                                  \
  saved.cpus = saved##_cpus, saved.cpu_words = sizeof(saved##_cpus) / 8; \
  NUMABIND_PLAN_STORAGE(args, plan)

enum class BindResult : uint8_t {
  kBound,    ///< the thread is bound; Restore(saved) undoes it
  kUnbound,  ///< a rank that could not be bound; warned, the spawn goes ahead unbound
  kRefused,  ///< NUMABIND_STRICT=1 and the rank could not be bound: fail the spawn with *err
};

/// Child-safe: whether a program started with argv (may be nullptr) and an environment whose one pass is
/// `facts` is a rank, and which (ScanSpawn, shim/entry/configure.h: facts.named is NUMABIND_RANK_VAR's
/// variable's value); nothing after the pass reads the environment but the rank's new environment's copy.
/// `parent` is the launcher, whose live children count for ranks found by order.
bool FindRank(char* const* argv, const config::EnvFacts& facts, pid_t parent, RankMatch* out);

/// Child-safe: the local-rank variable and its rank count, from `facts` (one ScanEnvFacts of the program's
/// environment; facts.named holds NUMABIND_RANK_VAR's variable's value), leaving out the built-in variables
/// whose bit is set in `skip` (config::kRankVarBit: NUMABIND_RANK_VAR). SLURM_LOCALID counts only in a
/// Slurm step task (SLURM_STEP_ID set): a batch script has it too, and starts no ranks of its own.
bool FindRankVar(const config::EnvFacts& facts, uint32_t skip, RankMatch* out);

/// Longest NUMABIND_BOUND entry WriteMarker writes.
constexpr size_t kMarkerMax = 512;

/// Child-safe: whether `envp` must be given a NUMABIND_BOUND entry for rank `m` (it has a variable, and
/// the entry fits).
bool NeedsMarker(const RankMatch& m);

/// Child-safe: writes the entry "NUMABIND_BOUND=<m.entry>" into marker (kMarkerMax bytes), which goes
/// first in the rank's environment (shim/child/rank_exports.h) or to a forked worker's setenv. When m.bound,
/// the value goes on with the proof that numabind made the binding: " cpus=LIST by=PID", the calling thread's
/// CPUs (the basis's words of a) and the process that bound them (the rank itself, or the launcher whose
/// posix_spawn it is: an ancestor of the rank either way, the launcher with " spawned" after: m.spawned);
/// left out when it does not fit.
void WriteMarker(const ChildArgs& a, const RankMatch& m, char* marker);

/// Child-safe: the 64-bit words of a plan's CPU set (`cpus`) or node set: the prepared basis's, or 1 when
/// there is no usable basis. For the caller's arrays of a RankPlan, on its stack (a small thread's too:
/// at most kMaxCpuWords and kMaxNodeWords).
uint32_t PlanWords(const ChildArgs& a, bool cpus);

/// Child-safe: binds the calling thread to the plan of rank `m` (found by FindRank), computed once into
/// *plan, whose cpus and nodes the caller points at arrays of PlanWords words; on kBound the caller hands it
/// on (NUMABIND_EXPORT's entries, shim/child/rank_exports.h). Failures are logged at once; a successful
/// binding is described by *event (its facts, pointing into *plan, *saved and the basis), which the caller
/// keeps and logs with FinishBound (before the exec, or after posix_spawn returns the child's pid).
/// `path` names the program. Sets m->replaced. On kRefused, *err is the errno to fail with.
BindResult BindRank(const ChildArgs& a, Entry entry, const char* path, RankMatch* m, SavedBinding* saved,
                    BoundEvent* event, int* err, plan::RankPlan* plan);

/// Child-safe: logs why rank m is not bound ("... runs unbound: WHAT WHY") and decides between running
/// unbound (kUnbound) and refusing (NUMABIND_STRICT=1: kRefused, *err = e). A `shared` mistake (every rank
/// of the launch has it) is said by one rank (shim/log/shared_mistake.h).
BindResult Fail(const ChildArgs& a, const char* path, const RankMatch& m, const char* what, const char* why,
                int e, int* err, bool shared = false);

/// Child-safe: rank m's new environment could not be built (errno `e`, from mmap), after BindRank bound it
/// (the caller has Restore'd it): one warn line. kUnbound: start it with the environment it has; kRefused
/// (NUMABIND_STRICT=1): fail the spawn with *err = e.
BindResult FailEnvironment(const ChildArgs& a, const char* path, const RankMatch& m, int e, int* err);

/// Child-safe: whether this fork child became rank m already, at fork or setenv (and logged it).
inline bool BoundAtSetenv(const ChildArgs& a, const RankMatch& m) {
  return a.taken && m.rank == a.rank && m.nranks == a.nranks;
}

/// Child-safe: puts back the binding BindRank saved.
void Restore(const SavedBinding& saved);

/// Child-safe (raw reads of /proc): how many live children of `parent` (all its threads) match
/// NUMABIND_MATCH. Ranks found by order are numbered by it when the shared counter (order_counter.h) cannot
/// be had.
uint32_t CountMatchingChildren(pid_t parent);

/// Child-safe: whether the command line in `path` (/proc/PID/cmdline: arguments ending in NULs) matches
/// NUMABIND_MATCH as ArgsMatch says. False when it cannot be read (no /proc; a zombie's is empty).
bool CmdlineMatches(const char* path);

/// Child-safe: whether the arguments of running process `pid` (0: the caller), from_args[0..len) (each
/// ending in a NUL, the last one perhaps not), joined with single spaces, match NUMABIND_MATCH: the whole
/// line, or, when the process runs a script, the line from the script's path on (the kernel runs
/// "/path/worker.sh 1" as "/bin/sh /path/worker.sh 1"). The line is joined into args (room for len + 1
/// bytes), which may be from_args itself.
bool ArgsMatch(const char* from_args, long len, char* args, long pid);

/// Child-safe: called when a rank found by order (g_role, Role::kByOrder) starts `path` with argv, from
/// `launcher` (that rank). When argv matches NUMABIND_MATCH too, the glob matches the launcher's own command
/// line (xargs, a shell script) and no worker is bound: says so in one warn line with the fix, once per
/// tree (FirstInOrderTree).
void WarnOrderRankSpawn(const char* path, char* const* argv, pid_t launcher);

/// Child-safe: at info, says once per tree of `launcher` that ranks found by order have no count, the rule
/// their plans follow (plan::ComputeRankPlan) and how to give the count.
void NoteUnknownCount(pid_t launcher);

/// Parent side of a fork or spawn (not child-safe: it writes g_prepared): once per process that starts ranks
/// by order (a NUMABIND_MATCH other than the default, or a process whose forks take ranks: ForksTakeRanks),
/// checks that the tree's shared counter (order_counter.h) can be had and, when not, says at warn in one line
/// what that costs and the fix (the root of the tree says it, or the topmost Python process of a pool; their
/// configured descendants do not). Inline: a fork after the first pays one flag test.
void CheckOrderCounter();
inline void NoteNoOrderCounter() {
  if (!__atomic_load_n(&g_prepared.order_counter_checked, __ATOMIC_ACQUIRE)) CheckOrderCounter();
}

/// Child-safe: whether argv (may be nullptr), joined with single spaces, matches NUMABIND_MATCH.
bool ArgvMatches(char* const* argv);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_CHILD_H_
