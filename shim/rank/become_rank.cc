// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one way into the rank role (shim/rank/become_rank.h).

#include "shim/rank/become_rank.h"

#include <sys/mman.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "config/bound_marker.h"
#include "shim/child/rank_exports.h"
#include "shim/log/log.h"
#include "shim/rank/affinity_guard.h"
#include "shim/rank/locality.h"
#include "shim/rank/page_move.h"
#include "shim/rank/process_threads.h"

extern char** environ;

namespace numabind::shim {

/// What a rank that became one in a running launcher keeps (kFork, kSetenv), in a page mapped when it first
/// binds: a static one would add a page to every process's writable data (a mapping and a fault at each
/// start of every program). A fork child's slot of the shared counter and the binding it had, for
/// GiveBackForkRank; the CPUs it was bound to (g_role.cpus). Its own fork and vfork children see them too (a
/// copy, the same memory): `taker` is the process that took the slot, the only one that gives it back.
struct RankPage {
  pid_t taker;
  OrderClaim claim;
  SavedBinding saved;
  uint64_t saved_cpus[config::kMaxCpuWords];
  uint64_t cpus[config::kMaxCpuWords];
  uint32_t planned_words;  ///< words of `cpus` KeepPlannedCpus kept (a rank that writes its end)
};
static_assert(sizeof(RankPage) <= 4096, "one page");

namespace {

/// The page, mapped at the first call; nullptr when it cannot be.
RankPage* TakeRankPage() {
  if (g_role.page != nullptr) return g_role.page;
  long page = base::Sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(page)) return nullptr;
  g_role.page = reinterpret_cast<RankPage*>(page);  // zeroed: no claim, nothing saved
  return g_role.page;
}

/// The role `how` with rank m, written last by its kind (a signal handler's wrapper reads it).
NUMABIND_HOT void SetRank(Role::How how, const RankMatch& m, pid_t pid, bool ends) {
  g_role.how = how;
  g_role.rank = m.rank;
  g_role.nranks = m.nranks;
  g_role.pid = pid;
  g_role.ends = ends;
  __atomic_store_n(&g_role.kind, Role::kRank, __ATOMIC_RELEASE);
}

/// A rank its launcher bound (Role::kByLauncher): whether its exit is the rank's end, when a JSON log file
/// records it (the end line's one reader), read before the parent can have exited. Its NUMABIND_BOUND proof
/// names it when it bound itself before its exec (by=its pid), or its parent started it bound (by=its parent,
/// " spawned"); any other is a child of a rank, or further down.
NUMABIND_HOT bool ProofNamesSelf(pid_t self) {
  config::BoundProof proof;
  if (!RecordsRanks() || !config::ParseBoundProof(g_startup.config.bound, &proof)) return false;
  return proof.by == self || (proof.spawned && proof.by == static_cast<pid_t>(base::Sys6(SYS_getppid)));
}

/// Makes `environ` the start-up environment with NUMABIND_BOUND first, in pages of its own (this runs
/// before main: no malloc). glibc passes environ, read after the constructors, to main.
/// NUMABIND_EXPORT's entries (when `bound`) go in after it: they reach this process's getenv from now on,
/// its children, and runtimes loaded later (Python importing torch); a runtime linked into the program
/// (libgomp) has read its variables already, in its own constructor, which runs before this library's.
void MarkOwnEnvironment(const ChildArgs& a, const RankMatch& m, const plan::RankPlan* bound,
                        const char* program) {
  RankBlock block;
  // On failure the children bind themselves again: the same plan. The block stays: it is environ now.
  if (BuildRankBlock(a, environ, m, bound, program, &block, BlockUse::kEnviron) == 0)
    environ = const_cast<char**>(block.env);
}

/// A forked worker's NUMABIND_BOUND, through `set_marker`: its own children (and an exec of it) must not
/// bind themselves again.
void MarkBySetenv(const ChildArgs& a, const RankMatch& m, SetMarker set_marker) {
  if (set_marker == nullptr || !NeedsMarker(m)) return;
  char marker[kMarkerMax];
  WriteMarker(a, m, marker);
  set_marker(marker + sizeof(config::kBoundEntry) - 1);
}

/// Whether a forked worker's rank count is known, so that its line is worth writing: torch sets LOCAL_RANK
/// before LOCAL_WORLD_SIZE, and it binds at each.
bool Sized(const RankMatch& m) {
  if (m.nranks != 0 || m.var == nullptr || g_startup.config.rank_var != nullptr) return true;
  for (int i = 0; i < config::kRankVarCount; ++i) {
    if (m.var == config::kRankVarNames[i] && config::kRankSizeNames[i][0] == '\0') return true;
  }
  return false;
}

/// The entry that names a way in the bound line.
Entry EntryOf(Role::How how) {
  return how == Role::kFork ? Entry::kFork : how >= Role::kSetenv ? Entry::kSetenv : Entry::kStartup;
}

}  // namespace

NUMABIND_HOT ChildArgs ChildArgsNow() {
  ChildArgs a;
  a.prepared = &g_prepared;
  bool own = g_role.IsRank() && g_role.cpus != nullptr;  // a rank it became in a running launcher
  a.launcher_cpus = own ? g_role.cpus : g_prepared.launcher_cpus;
  a.launcher_cpu_words = own ? g_role.cpu_words : g_prepared.launcher_cpu_words;
  a.taken = t_fork_child && g_role.IsRank() && g_role.how >= Role::kFork;
  a.rank = g_role.rank;
  a.nranks = g_role.nranks;
  return a;
}

NUMABIND_HOT void BecomeBoundRank(Role::How how) {
  pid_t self = static_cast<pid_t>(base::Sys6(SYS_getpid));
  SetRank(how, RankMatch(), self, how == Role::kByLauncher && ProofNamesSelf(self));
  if (g_role.ends) KeepPlannedCpus();
  ArmAffinityGuard();
}

void KeepPlannedCpus() {
  if (!g_startup.config.locality || !RecordsRanks()) return;
  RankPage* page = TakeRankPage();
  if (page == nullptr) return;
  long got = base::Sys6(SYS_sched_getaffinity, 0, sizeof(page->cpus), reinterpret_cast<long>(page->cpus));
  page->planned_words = got > 0 ? static_cast<uint32_t>(got / 8) : 0;
}

const uint64_t* PlannedCpus(uint32_t* words) {
  RankPage* page = g_role.page;
  *words = page != nullptr ? page->planned_words : 0;
  return *words != 0 ? page->cpus : nullptr;
}

bool BecomeRank(const ChildArgs& a, Role::How how, const char* program, RankMatch* m, SetMarker set_marker) {
  bool late = how >= Role::kFork;  // in a running process: kFork, kSetenv, kSetDevice
  RankPage* page = late ? TakeRankPage() : nullptr;
  if (how == Role::kFork) {
    if (page == nullptr) {  // cannot undo a binding it could not save: take no rank
      FinishOrderClaim(&m->order, 0);
      return false;
    }
    page->taker = static_cast<pid_t>(base::Sys6(SYS_getpid));
    page->claim = m->order;
    m->order = OrderClaim();
  }
  // The binding it had: a fork child's in its page, kept for GiveBackForkRank; else on the stack.
  uint64_t here_cpus[SavedCpuWords(a)];
  SavedBinding here;
  here.cpus = here_cpus, here.cpu_words = sizeof(here_cpus) / 8;
  SavedBinding* saved = &here;
  if (how == Role::kFork) {
    saved = &page->saved;
    *saved = SavedBinding();
    saved->cpus = page->saved_cpus, saved->cpu_words = config::kMaxCpuWords;
  }
  NUMABIND_PLAN_STORAGE(a, plan);
  BoundEvent event;
  int err = 0;
  BindResult r = BindRank(a, EntryOf(how), program, m, saved, &event, &err, &plan);
  // Strict mode cannot refuse a process that is already running: it stops it, as a failed exec would.
  if (r == BindResult::kRefused) base::Sys6(SYS_exit_group, kStrictExitStatus);
  bool bound = r == BindResult::kBound;
  if (how >= Role::kSetenv) MarkBySetenv(a, *m, set_marker);
  if (bound) {
    pid_t self = static_cast<pid_t>(base::Sys6(SYS_getpid));
    SetRank(how, *m, self, true);
    if (page != nullptr) {  // what a later exec of the same rank compares with, as a launcher's CPUs
      long got = base::Sys6(SYS_sched_getaffinity, 0, sizeof(page->cpus), reinterpret_cast<long>(page->cpus));
      g_role.cpus = got > 0 ? page->cpus : nullptr;
      g_role.cpu_words = got > 0 ? static_cast<uint32_t>(got / 8) : 0;
    }
    if (m->inside_cpus != nullptr) {  // the rank it planned inside: NUMABIND_BOUND's "VAR=value"
      const char* b = g_startup.config.bound;
      size_t n = 0;
      while (b[n] != '\0' && b[n] != ' ') ++n;
      event.inside = b, event.inside_len = n;
      event.inside_cpus = m->inside_cpus, event.inside_words = m->inside_words;
    }
    bool sized = how != Role::kSetenv || Sized(*m);
    if (sized) FinishBound(event, self);  // says whether it replaced the binding it started with
    // Threads started before (a library's constructor, a Callable worker's pools) join the rank's CPUs, as
    // torchrun binds a Callable's; threads started from now on inherit the calling thread's binding. A fork
    // child has one thread.
    if (how != Role::kFork) {
      OtherThreads threads = BindOtherThreads();
      if (sized) LogOtherThreads(program, threads, late ? ThreadsFrom::kBecameRank : ThreadsFrom::kStartup);
    }
    // Then the memory it already has, when it became a rank while it ran (shim/rank/page_move.h).
    if (late && sized && g_startup.config.move_bytes > 0) {
      uint32_t words = PlanWords(a, false);
      bool spread =
          plan.memory == config::MemoryKind::kInterleave || plan.memory == config::MemoryKind::kWeighted;
      base::PagesMoved moved =
          base::MovePrivatePages(0, plan.nodes, words, spread, g_startup.config.move_bytes);
      LogPagesMoved(program, moved, plan.nodes, words);
    }
    KeepPlannedCpus();   // what its end event compares its threads with (shim/rank/locality.h)
    ArmAffinityGuard();  // after the binding: the rank's CPUs are the calling thread's
  }
  if (!late) MarkOwnEnvironment(a, *m, bound ? &plan : nullptr, program);
  return bound;
}

// Child-safe: raw system calls on this fork child's own memory. Only the process that took the rank gives it
// back: a worker's fork children inherit its page, and a program the worker runs keeps the worker's binding,
// as a rank's children do; a vfork child runs in the worker's memory and must leave its page and role as
// they are.
NUMABIND_HOT void GiveBackForkRank(const char* path) {
  RankPage* page = g_role.page;
  if (page == nullptr || page->claim.map == nullptr ||
      page->taker != static_cast<pid_t>(base::Sys6(SYS_getpid)))
    return;
  FinishOrderClaim(&page->claim, 0);
  bool bound = g_role.IsRank() && (g_role.how == Role::kFork || g_role.how == Role::kSetenv);
  if (bound) Restore(page->saved);
  if (bound) WriteGaveBack(g_role.rank, g_role.nranks, path, g_prepared.launch);
  g_role.page = nullptr;
  base::Sys6(SYS_munmap, reinterpret_cast<long>(page), 4096);
  g_role.cpus = nullptr, g_role.cpu_words = 0;
  g_role.ends = false;
  __atomic_store_n(&g_role.kind, Role::kLauncher, __ATOMIC_RELEASE);  // the launcher it was
}

}  // namespace numabind::shim
