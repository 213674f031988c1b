// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The child side of a spawn. Every function in this file may run between fork/vfork and exec: raw system
// calls (base/syscalls.h) on data the parent prepared, buffers on the caller's stack, and calls only to
// functions that say "Child-safe" (plan/plan_basis.h, shim/log/line.h).

#include "shim/child/child.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "config/rank_count.h"
#include "plan/apply_memory.h"
#include "plan/plan_auto.h"
#include "shim/child/absent.h"
#include "shim/child/bound_marker.h"
#include "shim/log/shared_mistake.h"

namespace numabind::shim {
namespace {

/// Child-safe: the unbound event of rank m (its rank known or not: a rank past the plan, a bad value).
UnboundEvent UnboundOf(const ChildArgs& a, const RankMatch& m, const char* path, bool rank_known) {
  UnboundEvent e;
  e.refused = g_startup.config.strict;
  e.rank_known = rank_known;
  e.rank = rank_known ? m.rank : 0;
  e.nranks = m.nranks;
  e.rank_var = m.var;
  e.command = path;
  e.launch = a.prepared->launch;
  return e;
}

/// Child-safe: says once for the ranks of a launcher (g_prepared.memory_said) that the kernel lacks the
/// memory policy they asked for and what they got instead.
__attribute__((noinline)) void SayMemoryFallback(const ChildArgs& a, const plan::MemoryOutcome& o) {
  bool first = false;
  if (!SaysSharedMistake(a.prepared->memory_said, &first)) return;
  Line l;
  l.Str("numabind: NUMABIND_MEMORY=").Str(config::MemoryName(g_startup.config.memory)).Str(": ").Str(o.why);
  if (first) l.Str(kSaidOnce);
  WriteLog(config::LogLevel::kWarn, &l);
}

/// Child-safe: whether two bit sets are equal (a missing word counts as zero).
bool SameBits(const uint64_t* a, uint32_t a_words, const uint64_t* b, uint32_t b_words) {
  for (uint32_t w = 0; w < a_words || w < b_words; ++w) {
    if ((w < a_words ? a[w] : 0) != (w < b_words ? b[w] : 0)) return false;
  }
  return true;
}

}  // namespace

// Child-safe: a line of its own, on the stack only on this path.
__attribute__((noinline)) BindResult Fail(const ChildArgs& a, const char* path, const RankMatch& m,
                                          const char* what, const char* why, int e, int* err, bool shared) {
  bool first = false;
  if (!shared || SaysSharedMistake(a.prepared->mistake_said, &first)) {
    Line line;
    Line* l = &line;
    RankHeading(&l->Str("numabind: "), m.rank, 0, m.var).Str(" ").Str(path);  // its count: in the JSON
    l->Str(g_startup.config.strict ? " not started: " : " runs unbound: ").Str(what).Str(why);
    if (first) l->Str(kSaidOnce);
    WriteUnbound(UnboundOf(a, m, path, true), l);
  }
  if (!g_startup.config.strict) return BindResult::kUnbound;
  *err = e;
  return BindResult::kRefused;
}

namespace {

/// Child-safe: a rank variable whose value is not a rank: one line naming both, then as Fail.
__attribute__((noinline)) BindResult FailValue(const ChildArgs& a, const char* path, const RankMatch& m,
                                               int* err) {
  Line l;
  l.Str("numabind: ").Str(m.var).Str("='");
  size_t shown = 0;
  for (const char* s = m.bad_value; *s != '\0' && shown < 40; ++s, ++shown) {
    char ch = *s >= ' ' && *s <= '~' ? *s : '?';  // one line, whatever the value holds
    l.Str(&ch, 1);
  }
  l.Str(shown == 40 ? "...'" : "'");
  uint32_t ignored = 0;
  bool large = config::ParseRankValue(m.bad_value, &ignored) == config::RankValue::kTooLarge;
  l.Str(large ? " is too large for a local rank (0 to " : " is not a local rank (a decimal number, 0 to ");
  l.Num(config::kMaxRanks - 1).Str("): ").Str(path);
  l.Str(g_startup.config.strict ? " not started" : " runs unbound");
  WriteUnbound(UnboundOf(a, m, path, false), &l);
  if (!g_startup.config.strict) return BindResult::kUnbound;
  *err = EINVAL;
  return BindResult::kRefused;
}

}  // namespace

// Child-safe: reads the facts and the prepared config.
NUMABIND_HOT bool FindRankVar(const config::EnvFacts& facts, uint32_t skip, RankMatch* out) {
  const config::Config& c = g_startup.config;
  const char* name = c.rank_var;
  const char* v = nullptr;
  int index = -1;  // the variable's built-in entry, for its rank count
  if (name != nullptr) {
    if ((skip & config::kRankVarBit) != 0) return false;
    for (int i = 0; i < config::kRankVarCount; ++i) {
      if (base::StrEq(name, config::kRankVarNames[i])) index = i;
    }
    v = index >= 0 ? facts.rank[index] : facts.named;
  } else if ((index = config::FirstRankVar(facts, skip)) >= 0) {
    name = config::kRankVarNames[index];
    v = facts.rank[index];
  }
  if (v == nullptr || *v == '\0') return false;
  out->var = name;
  out->entry = v - base::StrLen(name) - 1;
  // A value that is not a rank makes it a rank that cannot be bound, which BindRank reports.
  out->bad_value = config::ParseRankValue(v, &out->rank) == config::RankValue::kOk ? nullptr : v;
  out->nranks = c.nranks != 0 ? c.nranks : index >= 0 ? config::LocalRankCount(facts, index) : 0;
  return true;
}

// Child-safe: reads the facts, the prepared config and /proc, with raw system calls.
NUMABIND_HOT bool FindRank(char* const* argv, const config::EnvFacts& facts, pid_t parent, RankMatch* out) {
  out->env_entries = facts.count;
  out->kept = facts.kept;
  if (FindRankVar(facts, g_startup.rank_vars, out)) return true;
  if (g_startup.config.rank_var != nullptr && (g_startup.rank_vars & config::kRankVarBit) != 0) return false;
  // A child whose launcher was killed before its exec (init's now) belongs to no launch.
  if (parent <= 1 || !ArgvMatches(argv)) return false;
  out->var = nullptr;
  out->entry = nullptr;
  // The counter shared by the launcher's whole tree (order_counter.h); the launcher's own live children
  // where it cannot be had. A posix_spawn parent (parent is the caller) keeps its slot to give the child.
  bool spawning = parent == static_cast<pid_t>(base::Sys6(SYS_getpid));
  if (!ClaimOrderRank(parent, spawning, &out->rank, &out->order)) out->rank = CountMatchingChildren(parent);
  out->nranks = g_startup.config.nranks;
  if (out->nranks == 0) NoteUnknownCount(parent);
  return true;
}

// Child-safe: a length check.
bool NeedsMarker(const RankMatch& m) {
  return m.entry != nullptr && base::StrLen(m.entry) + sizeof(config::kBoundEntry) <= kMarkerMax;
}

// Child-safe: writes into the caller's buffer; raw sched_getaffinity and getpid.
void WriteMarker(const ChildArgs& a, const RankMatch& m, char* marker) {
  size_t len = 0;
  for (const char* s = config::kBoundEntry; *s != '\0'; ++s) marker[len++] = *s;
  for (const char* s = m.entry; *s != '\0' && len < kMarkerMax - 1; ++s) marker[len++] = *s;
  marker[len] = '\0';
  if (m.bound && a.prepared->basis != nullptr)
    AppendBoundProof(marker, len, kMarkerMax, a.prepared->basis->cpu_words, m.spawned);
}

namespace {

/// Child-safe: why the prepared basis cannot bind rank m, or nullptr.
const char* BasisProblem(const ChildArgs& a) {
  if (g_startup.config_error[0] != '\0') return g_startup.config_error;
  const plan::PlanBasis* basis = a.prepared->basis;
  if (basis == nullptr) {
    return a.prepared->done ? a.prepared->error
                            : "no plan was prepared before the launcher forked (docs/limits.md)";
  }
  if (basis->cpu_words > config::kMaxCpuWords || basis->node_words > config::kMaxNodeWords)
    return "the machine has more CPUs or nodes than numabind handles";
  return nullptr;
}

/// Child-safe: says that rank m is past its count (a stale NUMABIND_NRANKS, a launcher's local size that
/// leaves ranks out), with the count and what to change. Not inlined: its line is on the stack only here.
__attribute__((noinline)) void WarnPastCount(const char* path, const RankMatch& m) {
  if (g_startup.config.log < config::LogLevel::kWarn) return;
  bool stated = g_startup.config.nranks != 0;
  Line l;
  RankHeading(&l.Str("numabind: "), m.rank, 0, m.var).Str(" ").Str(path);
  l.Str(" is past the rank count, ").Num(m.nranks).Str(stated ? " (NUMABIND_NRANKS)" : " (its launcher's)");
  l.Str(", so it is planned as the last of ").Num(static_cast<long long>(m.rank) + 1).Str(" ranks: ");
  if (stated)
    l.Str("set NUMABIND_NRANKS to the number of ranks on this node, or unset it");
  else
    l.Str("its launcher counts ranks 0 to ").Num(static_cast<long long>(m.nranks) - 1).Str(" on this node");
  WriteLog(config::LogLevel::kWarn, &l);
}

/// Child-safe: saves the calling thread's binding into `saved`, then applies the plan's CPUs and memory
/// policy. Returns 0 or -errno with *what naming the call that failed; *memory_denied is why no memory
/// policy was set (the helper found set_mempolicy refused: the CPUs are bound all the same), or nullptr.
long ApplyPlan(const ChildArgs& a, const plan::RankPlan& plan, const plan::PlanBasis& basis,
               SavedBinding* saved, const char** what, const char** memory_denied,
               plan::MemoryOutcome* memory) {
  long r = base::Sys6(SYS_sched_getaffinity, 0, static_cast<long>(saved->cpu_words) * 8,
                      reinterpret_cast<long>(saved->cpus));
  saved->cpus_saved = r > 0;
  if (saved->cpus_saved) {
    for (long b = r / 8; b < static_cast<long>(saved->cpu_words); ++b) saved->cpus[b] = 0;
  }
  *what = "sched_setaffinity: ";
  r = base::Sys6(SYS_sched_setaffinity, 0, static_cast<long>(basis.cpu_words) * 8,
                 reinterpret_cast<long>(plan.cpus));
  if (r < 0) return r;
  const char* denied = a.prepared->memory_policy_denied;
  *memory_denied = denied[0] != '\0' ? denied : nullptr;
  if (*memory_denied != nullptr) return 0;
  saved->memory_saved =
      base::Sys6(SYS_get_mempolicy, reinterpret_cast<long>(&saved->mode),
                 reinterpret_cast<long>(saved->nodes), static_cast<long>(kSavedNodeWords) * 64, 0, 0) == 0;
  *what = "set_mempolicy: ";
  r = plan::ApplyMemory(plan, basis, memory);
  if (memory->why != nullptr && memory->refused == 0) SayMemoryFallback(a, *memory);
  // A container that forbids memory policies, a kernel without them, a policy the kernel refuses however
  // it is asked: keep the CPUs, say so in the line.
  if (r == -EPERM) *memory_denied = "EPERM";
  if (r == -ENOSYS) *memory_denied = "ENOSYS";
  if (r == -EINVAL) *memory_denied = "EINVAL";
  if (r == -EPERM || r == -ENOSYS || r == -EINVAL) return 0;  // every call failed: the policy it had
  if (r < 0) Restore(*saved);
  return r < 0 ? r : 0;
}

/// Child-safe: the binding rank m started with, and whether the plan replaced it (then e->replaced is set):
/// when it was one (other CPUs than its launcher's; at start-up, than the job's it widened to) and the
/// plan's differs from it.
void NoteReplaced(const ChildArgs& a, const RankMatch& m, const SavedBinding& saved, const uint64_t* cpus,
                  uint32_t cpu_words, BoundEvent* e) {
  bool widened = m.started_cpus != nullptr;
  const uint64_t* started = widened ? m.started_cpus : saved.cpus;
  uint32_t started_words = widened ? m.started_words : saved.cpu_words;
  bool was_bound = saved.cpus_saved &&
                   (widened ? !SameBits(started, started_words, saved.cpus, saved.cpu_words)
                            : a.launcher_cpu_words > 0 &&
                                  !SameBits(started, started_words, a.launcher_cpus, a.launcher_cpu_words));
  bool replaced = was_bound && !SameBits(started, started_words, cpus, cpu_words);
  bool slurm = m.var != nullptr && base::StrEq(m.var, config::kRankVarNames[config::kSlurmRankVar]);
  e->replaced = replaced ? started : nullptr;
  e->replaced_words = started_words;
  e->started = !widened ? StartedBinding::kLauncher : slurm ? StartedBinding::kSlurm : StartedBinding::kOwn;
}

}  // namespace

// Child-safe: reads the prepared state.
uint32_t SavedCpuWords(const ChildArgs& a) {
  uint32_t w = a.prepared->launcher_cpu_words;
  return w > 0 && w <= config::kMaxCpuWords ? w : config::kMaxCpuWords;
}

// Child-safe: reads the prepared basis.
uint32_t PlanWords(const ChildArgs& a, bool cpus) {
  const plan::PlanBasis* b = a.prepared->basis;
  if (b == nullptr || b->cpu_words > config::kMaxCpuWords || b->node_words > config::kMaxNodeWords) return 1;
  return cpus ? b->cpu_words : b->node_words;
}

// Child-safe: arithmetic on the prepared basis, then raw sched_setaffinity and set_mempolicy.
BindResult BindRank(const ChildArgs& a, Entry entry, const char* path, RankMatch* found, SavedBinding* saved,
                    BoundEvent* event, int* err, plan::RankPlan* planned) {
  RankMatch& m = *found;
  if (m.bad_value != nullptr) return FailValue(a, path, m, err);
  if (const char* why = BasisProblem(a)) return Fail(a, path, m, "", why, EINVAL, err, true);
  const plan::PlanBasis& basis = *a.prepared->basis;
  plan::RankPlan& plan = *planned;  // its sets are the caller's, of PlanWords: BasisProblem checked them
  const uint64_t* cpus = plan.cpus;
  const uint64_t* nodes = plan.nodes;
  if (m.nranks != 0 && m.rank >= m.nranks) WarnPastCount(path, m);
  if (!plan::ComputeRankPlan(basis, m.rank, m.nranks, &plan))
    return Fail(a, path, m, "", plan.error, EINVAL, err);
  BindResult absent;
  if (a.prepared->absent != nullptr && TakeOutAbsent(a, path, m, basis, &plan, err, &absent)) return absent;
  const char* what = "";
  const char* memory_denied = nullptr;
  plan::MemoryOutcome memory;
  long r = ApplyPlan(a, plan, basis, saved, &what, &memory_denied, &memory);
  if (r < 0) return Fail(a, path, m, what, base::ErrnoName(static_cast<int>(-r)), static_cast<int>(-r), err);
  m.bound = true;
  // A forked worker bound at setenv and bound again at its exec (hydra binds the child in between).
  bool again = entry != Entry::kSetenv && BoundAtSetenv(a, m);
  BoundEvent& e = *event;
  e = BoundEvent();
  // auto says what share it gave the rank (plan/plan_auto.h).
  if (basis.policy == config::PolicyKind::kAuto)
    plan::FormatAutoShare(basis, plan.share, e.share, sizeof(e.share));
  e.again = again;
  e.rank = m.rank, e.nranks = m.nranks, e.rank_var = m.var;
  e.command = path;
  e.cpus = cpus, e.cpu_words = basis.cpu_words;
  e.nodes = nodes, e.node_words = basis.node_words;
  e.memory = config::MemoryName(memory.applied), e.memory_denied = memory_denied;
  // What it asked for, when the kernel gave it another policy: "near" (refused: EINVAL), or why not.
  if (memory.applied != plan.memory && memory_denied == nullptr) {
    e.memory_asked = config::MemoryName(plan.memory);
    e.memory_why = memory.refused == 0 ? nullptr : memory.refused == -EPERM ? "EPERM" : "EINVAL";
  }
  e.device = plan.device;
  e.entry = entry;
  e.policy = basis.policy_text;
  e.launch = a.prepared->launch;
  e.stack = a.prepared->stack;
  if (plan.device[0] != '\0') e.device_nodes = basis.slot_nodes + size_t{plan.device_slot} * basis.node_words;
  NoteReplaced(a, m, *saved, cpus, basis.cpu_words, &e);
  m.replaced = e.replaced != nullptr;
  return BindResult::kBound;
}

// Child-safe: formats on the stack and writes with raw system calls.
BindResult FailEnvironment(const ChildArgs& a, const char* path, const RankMatch& m, int e, int* err) {
  return Fail(a, path, m, "no memory for its environment: ", base::ErrnoName(e), e, err);
}

// Child-safe: two raw system calls.
void Restore(const SavedBinding& saved) {
  if (saved.cpus_saved)
    base::Sys6(SYS_sched_setaffinity, 0, static_cast<long>(saved.cpu_words) * 8,
               reinterpret_cast<long>(saved.cpus));
  if (saved.memory_saved) {
    base::Sys6(SYS_set_mempolicy, saved.mode, reinterpret_cast<long>(saved.nodes),
               static_cast<long>(kSavedNodeWords) * 64);
  }
}

}  // namespace numabind::shim
