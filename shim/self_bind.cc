// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank binding itself before main, while it has one thread: the same plan and the same raw system calls
// as a launcher's child side, then NUMABIND_BOUND in its environment so that its children and a taskset
// inside it keep what they have.

#include "shim/self_bind.h"

#include <errno.h>
#include "config/rank_count.h"
#include "shim/child.h"
#include "shim/rank_exports.h"
#include "shim/syscalls.h"

extern char** environ;

namespace numabind::shim {
namespace {

bool Same(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return false;
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

/// The Slurm step task that is the only task of its step on this node: torchrun, Open MPI's orted or
/// hydra's proxy under `srun --ntasks-per-node=1`, which starts ranks rather than being one.
bool OnlyTaskOfStep(const RankMatch& m, const char* const* env) {
  int slurm = config::kRankVarCount - 1;
  return g_state.config.rank_var == nullptr && Same(m.var, config::kRankVars[slurm].rank) &&
         config::LocalRankCount(env, slurm) == 1;
}

void LogLauncher(const char* program, const char* const* env) {
  if (g_state.config.log < config::LogLevel::kInfo) return;
  const char* source = config::LocalRankCountSource(env, config::kRankVarCount - 1);
  Line l;
  l.Str("numabind: ").Str(program).Str(" not bound: the only task of its Slurm step on this node (");
  l.Str(source).Str("=").Str(config::Lookup(env, source)).Str(") is a launcher, never narrowed ");
  l.Str("(NUMABIND_RANK_VAR=SLURM_LOCALID binds it as a rank) pid ").Num(Sys6(SYS_getpid));
  WriteLog(config::LogLevel::kInfo, &l);
}

/// Makes `environ` the start-up environment with NUMABIND_BOUND first, in pages of its own (this runs
/// before main: no malloc). glibc passes environ, read after the constructors, to main.
/// NUMABIND_EXPORT's entries (when `bound`) go in after it: they reach this process's getenv from now on,
/// its children, and runtimes loaded later (Python importing torch); a runtime linked into the program
/// (libgomp) has read its variables already, in its own constructor, which runs before this library's.
void MarkOwnEnvironment(const RankMatch& m, bool bound, const char* program) {
  RankBlock block;
  // On failure the children bind themselves again: the same plan. The block stays: it is environ now.
  if (BuildRankBlock(environ, m, bound, program, &block) == 0) environ = const_cast<char**>(block.env);
}

void BindSelf(const char* program, RankMatch* m) {
  // Plan inside the job's cpuset, not inside the binding the rank started with (Slurm's task/affinity, a
  // launcher's bind-to-core): widen first; the kernel clips the request to the cgroup's CPUs.
  uint64_t started[kMaxCpuWords] = {0}, widened[kMaxCpuWords];
  long got = Sys6(SYS_sched_getaffinity, 0, sizeof(started), reinterpret_cast<long>(started));
  for (uint32_t w = 0; w < kMaxCpuWords; ++w) widened[w] = ~0ull;
  bool widen =
      got > 0 && Sys6(SYS_sched_setaffinity, 0, sizeof(widened), reinterpret_cast<long>(widened)) == 0;
  EnsurePrepared();
  if (widen) m->started_cpus = started, m->started_words = static_cast<uint32_t>(got / 8);
  SavedBinding saved;
  Line line;
  int err = 0;
  BindResult r = BindRank(Entry::kStartup, program, m, &saved, &line, &err);
  if (r == BindResult::kRefused) Sys6(SYS_exit_group, kStrictExitStatus);
  g_state.rank_bound = r == BindResult::kBound;
  if (r != BindResult::kBound) {
    if (widen) Sys6(SYS_sched_setaffinity, 0, got, reinterpret_cast<long>(started));
  } else {
    FinishBoundLine(&line, static_cast<pid_t>(Sys6(SYS_getpid)));  // says whether it replaced `started`
  }
  MarkOwnEnvironment(*m, r == BindResult::kBound, program);
}

}  // namespace

bool StartAsRank(const char* const* env) {
  const config::Config& c = g_state.config;
  char** envp = const_cast<char**>(env);
  if (c.rank_var != nullptr)
    g_state.startup_rank_vars = config::Lookup(env, c.rank_var) != nullptr ? 1u << 31 : 0;
  RankMatch m;
  // The built-in variables the start-up scan did not see are skipped rather than looked up again.
  uint32_t absent = ~g_state.startup_rank_vars & ((1u << config::kRankVarCount) - 1);
  // No rank variable: a launcher, or a worker found by order (NUMABIND_MATCH), which its launcher binds.
  // The command line is read from /proc only then (start-up has no argv under musl).
  if (!FindRankVar(envp, absent, &m)) return g_state.rank_bound = CmdlineMatches("/proc/self/cmdline");
  // Set by glibc and musl before constructors run.
  const char* program = program_invocation_name != nullptr ? program_invocation_name : "(program)";
  if (OnlyTaskOfStep(m, env)) {
    LogLauncher(program, env);
    return false;
  }
  // Bound by a numabind launcher, or a child of a rank (or a taskset inside one): keep what it has.
  if (Same(c.bound, m.entry)) return g_state.rank_bound = true;
  g_state.pid = static_cast<pid_t>(Sys6(SYS_getpid));
  BindSelf(program, &m);
  return true;
}

}  // namespace numabind::shim
