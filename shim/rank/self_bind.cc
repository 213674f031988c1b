// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank binding itself before main: the same plan and the same raw system calls as a launcher's child
// side, then every thread that libraries' constructors started before (shim/rank/process_threads.h), then
// NUMABIND_BOUND in its environment so that its children and a taskset inside it keep what they have, and
// a launcher inside it plans within its CPUs (shim/child/bound_marker.h).

#include "shim/rank/self_bind.h"

#include <errno.h>

#include "base/command_name.h"
#include "base/hot.h"
#include "base/syscalls.h"
#include "config/rank_count.h"
#include "config/visible_devices.h"
#include "plan/device_rank.h"
#include "shim/child/bound_marker.h"
#include "shim/child/child.h"
#include "shim/launcher/launch_id.h"
#include "shim/launcher/prepare.h"
#include "shim/log/json_log.h"
#include "shim/rank/become_rank.h"
#include "shim/rank/mistake_note.h"

extern char** environ;

namespace numabind::shim {
namespace {

bool Same(const char* a, const char* b) { return a != nullptr && b != nullptr && base::StrEq(a, b); }

/// The Slurm step task that is the only task of its step on this node: torchrun, Open MPI's orted or
/// hydra's proxy under `srun --ntasks-per-node=1`, which starts ranks rather than being one.
bool OnlyTaskOfStep(const RankMatch& m, const config::EnvFacts& facts) {
  constexpr int slurm = config::kSlurmRankVar;
  const config::Config& c = g_startup.config;
  if (c.rank_var != nullptr || !Same(m.var, config::kRankVarNames[slurm])) return false;
  // FindRankVar counted this node's tasks already, unless NUMABIND_NRANKS stood in for them.
  return (c.nranks == 0 ? m.nranks : config::LocalRankCount(facts, slurm)) == 1;
}

void LogLauncher(const char* program, const config::EnvFacts& facts) {
  if (g_startup.config.log < config::LogLevel::kInfo) return;
  const char* value = nullptr;
  const char* source = config::LocalRankCountSource(facts, config::kSlurmRankVar, &value);
  Line l;
  l.Str("numabind: ").Str(program).Str(" not bound: the only task of its Slurm step on this node (");
  l.Str(source).Str("=").Str(value).Str(") is a launcher, never narrowed ");
  l.Str("(NUMABIND_RANK_VAR=SLURM_LOCALID binds it as a rank) pid ").Num(base::Sys6(SYS_getpid));
  WriteLog(config::LogLevel::kInfo, &l);
}

/// NUMABIND_BY_DEVICE: the rank of the one device `d` names, once the basis is prepared over every device.
/// False (not a rank) when it names none of the basis's devices; a basis that could not be prepared is said
/// once, as a rank's would be.
bool ResolveDeviceRank(const char* program, const config::OneDevice& d, RankMatch* m) {
  const plan::PlanBasis* basis = g_prepared.basis;
  if (basis != nullptr && plan::DeviceRank(*basis, d, &m->rank, &m->nranks)) return true;
  config::LogLevel level = basis == nullptr ? config::LogLevel::kWarn : config::LogLevel::kDebug;
  if (g_startup.config.log < level) return false;
  Line l;
  l.Str("numabind: ").Str(program).Str(" (").Str(m->entry).Str(") not bound by its device: ");
  if (basis == nullptr) {
    l.Str(g_prepared.error);
  } else {
    l.Str("no one device of the plan (").Str(basis->policy_text).Str(") is the one it names");
  }
  l.Str(" pid ").Num(base::Sys6(SYS_getpid));
  size_t len = l.Finish();
  WriteLog(level, l.data(), len);
  return false;
}

/// A rank that will say a mistake every rank of its job shares (a bad configuration, no plan) at warn or
/// info, where one line is enough: whether another rank of its node and job said it (shim/rank/
/// mistake_note.h). At debug, and into a JSON log file that records every rank, each rank says it.
void NoteMistake(const RankMatch& m) {
  const config::Config& c = g_startup.config;
  if (m.bad_value != nullptr || c.log < config::LogLevel::kWarn || c.log >= config::LogLevel::kDebug ||
      RecordsRanks())
    return;
  if (g_startup.config_error[0] != '\0')
    NoteSharedMistake(g_startup.config_error);
  else if (g_prepared.basis == nullptr)
    NoteSharedMistake(g_prepared.error);
}

/// Binds this process as rank *m (by device when `device` is not nullptr: the rank is found once the basis
/// is prepared). False when it turned out to be no rank.
bool BindSelf(const char* program, RankMatch* m, const config::OneDevice* device) {
  // Plan inside the job's cpuset, not inside the binding the rank started with (Slurm's task/affinity, a
  // launcher's bind-to-core): widen first; the kernel clips the request to the cgroup's CPUs.
  // A launcher inside a rank numabind bound (its NUMABIND_BOUND's proof holds) is not widened: its ranks
  // share that rank's CPUs out, and the ranks of the rank next to it do the same with its own.
  uint64_t started[config::kMaxCpuWords] = {0}, widened[config::kMaxCpuWords];
  long got = base::Sys6(SYS_sched_getaffinity, 0, sizeof(started), reinterpret_cast<long>(started));
  bool nested = got > 0 && InsideNumabindBinding(g_startup.config.bound);
  for (uint32_t w = 0; w < config::kMaxCpuWords; ++w) widened[w] = ~0ull;
  bool widen = got > 0 && !nested &&
               base::Sys6(SYS_sched_setaffinity, 0, sizeof(widened), reinterpret_cast<long>(widened)) == 0;
  if (widen) base::Sys6(SYS_sched_getaffinity, 0, sizeof(widened), reinterpret_cast<long>(widened));
  // Its launch is its parent's (slurmstepd, torchrun, a launcher's daemon), which started its siblings;
  // before EnsurePrepared, which would name this process's own.
  FormatLaunch(static_cast<pid_t>(base::Sys6(SYS_getppid)), g_startup.facts, g_prepared.launch);
  EnsurePrepared(&g_startup.facts, device != nullptr);
  if (device != nullptr && !ResolveDeviceRank(program, *device, m)) {
    if (widen) base::Sys6(SYS_sched_setaffinity, 0, got, reinterpret_cast<long>(started));
    // No rank after all: the ranks it may start are a launch of its own.
    FormatLaunch(static_cast<pid_t>(base::Sys6(SYS_getpid)), g_startup.facts, g_prepared.launch);
    return false;
  }
  if (widen) m->started_cpus = started, m->started_words = static_cast<uint32_t>(got / 8);
  if (nested) m->inside_cpus = started, m->inside_words = static_cast<uint32_t>(got / 8);
  NoteMistake(*m);
  if (!BecomeRank(ChildArgsNow(), device != nullptr ? Role::kDevice : Role::kSelf, program, m) && widen)
    base::Sys6(SYS_sched_setaffinity, 0, got, reinterpret_cast<long>(started));
  return true;
}

/// Whether the visibility variables of `facts` leave this process one device (*d), and then its match
/// (*m: the variable, its entry). No device or several is no rank, silently (debug says why): most
/// processes of a machine are such.
bool OneDeviceMatch(const config::EnvFacts& facts, const char* program, config::OneDevice* d, RankMatch* m) {
  *d = config::FindOneDevice(facts);
  bool nvidia = config::OneDevice::One(d->nvidia) && d->amd == config::OneDevice::kNone;
  bool amd = config::OneDevice::One(d->amd) && d->nvidia == config::OneDevice::kNone;
  if (!nvidia && !amd) {
    if (g_startup.config.log >= config::LogLevel::kDebug && (d->nvidia != d->kNone || d->amd != d->kNone)) {
      Line l;
      l.Str("numabind: ").Str(program).Str(" is no device's rank: its visibility variables name no one ");
      l.Str("device pid ").Num(base::Sys6(SYS_getpid));
      size_t len = l.Finish();
      WriteLog(config::LogLevel::kDebug, l.data(), len);
    }
    return false;
  }
  m->var = nvidia ? d->nvidia_var : d->amd_var;
  const char* value = nvidia ? facts.kept.cuda_visible_devices
                      : base::StrEq(m->var, config::kEnvNames.hip_visible_devices)
                          ? facts.kept.hip_visible_devices
                          : facts.kept.rocr_visible_devices;
  m->entry = config::EntryOf(value, base::StrLen(m->var));
  m->env_entries = facts.count;
  m->kept = facts.kept;
  return true;
}

/// NUMABIND_BY_DEVICE=1 in a process that nothing else made a rank at start-up: its binding as its one
/// device's rank.
bool StartAsDeviceRank(const config::EnvFacts& facts, const char* program) {
  config::OneDevice d;
  RankMatch m;
  if (!OneDeviceMatch(facts, program, &d, &m)) return false;
  // Bound by a numabind launcher, or a child of a rank (or a taskset inside one): keep what it has.
  if (BoundBy(g_startup.config.bound, m.entry)) {
    BecomeBoundRank(Role::kByLauncher);
    return true;
  }
  return BindSelf(program, &m, &d);
}

/// Whether this process's own command line matches NUMABIND_MATCH (a worker its launcher binds by order).
/// Read from memory, not /proc/self/cmdline (an open, two reads and a close in every configured process that
/// is not a rank): the kernel lays out the argument strings and then the environment's one after the
/// other (/proc/self/cmdline is the first area), and before main program_invocation_name and environ still
/// point at the first of each (glibc and musl set them before constructors run). /proc is read when the
/// memory is not laid out so (no environment, a replaced name) or the line is longer than /proc's read.
NUMABIND_HOT bool OwnCmdlineMatches(const config::EnvFacts& facts) {
  const char* match = g_startup.config.match;
  if (match == nullptr || *match == '\0') return false;
  const char* start = program_invocation_name;
  const char* end = facts.first;
  char cmd[4096];
  if (start == nullptr || end == nullptr || end <= start || end - start >= static_cast<long>(sizeof(cmd)) ||
      end[-1] != '\0') {
    return CmdlineMatches("/proc/self/cmdline");
  }
  return ArgsMatch(start, end - start, cmd, 0);
}

/// This process's arguments, read from memory as OwnCmdlineMatches reads them, into argv (at most cap - 1,
/// NULL-terminated): argv[0] alone when the memory is not laid out so. For the rank's name (a Python rank's
/// script: base/command_name.h).
void OwnArgs(const config::EnvFacts& facts, const char** argv, int cap) {
  const char* start = program_invocation_name;
  const char* end = facts.first;
  int n = 0;
  if (start != nullptr) argv[n++] = start;
  if (start != nullptr && end != nullptr && end > start && end[-1] == '\0') {
    for (const char* s = start; n < cap - 1; ++s) {
      while (*s != '\0') ++s;
      if (s + 1 >= end) break;
      argv[n++] = s + 1;
    }
  }
  argv[n] = nullptr;
}

}  // namespace

NUMABIND_HOT bool StartAsRank() {
  const config::Config& c = g_startup.config;
  const config::EnvFacts& facts = g_startup.facts;
  if (c.rank_var != nullptr) g_startup.rank_vars = facts.named != nullptr ? config::kRankVarBit : 0;
  RankMatch m;
  m.env_entries = facts.count;
  m.kept = facts.kept;
  // The built-in variables the start-up scan did not see are skipped rather than looked up again.
  uint32_t absent = ~g_startup.rank_vars & ((1u << config::kRankVarCount) - 1);
  // No rank variable: a launcher, or a worker found by order (NUMABIND_MATCH), which its launcher binds.
  // The program's name for its lines (python3 train.py), made only on a path that writes one: most
  // configured processes are no rank. program_invocation_name is set by glibc and musl before constructors.
  char name[base::kCommandNameMax];
  auto program = [&] {
    const char* args[16];
    OwnArgs(g_startup.facts, args, 16);
    return base::CommandName(program_invocation_name, args, name, sizeof(name));
  };
  if (!FindRankVar(facts, absent, &m)) {
    if (OwnCmdlineMatches(facts)) {
      BecomeBoundRank(Role::kByOrder);
      return true;
    }
    return c.by_device && StartAsDeviceRank(facts, program());
  }
  if (OnlyTaskOfStep(m, facts)) {
    LogLauncher(program(), facts);
    return false;
  }
  // Bound by a numabind launcher, or a child of a rank (or a taskset inside one): keep what it has.
  if (BoundBy(c.bound, m.entry)) {
    BecomeBoundRank(Role::kByLauncher);
    return true;
  }
  BindSelf(program(), &m, nullptr);
  return true;
}

NUMABIND_HOT bool AssignedDevice(const char* name, size_t name_len) {
  if (!g_startup.config.by_device) return false;
  bool visibility = false;
  const char* const lists[] = {config::kEnvNames.cuda_visible_devices, config::kEnvNames.rocr_visible_devices,
                               config::kEnvNames.hip_visible_devices};
  for (const char* var : lists) {
    visibility = visibility || (base::StrLen(var) == name_len && base::StartsWith(name, var));
  }
  if (!visibility) return false;
  // Its environment now, in one pass: the list it set, and the planner's variables.
  config::EnvFacts facts;
  config::ScanEnvFacts(const_cast<const char* const*>(environ), &facts, nullptr, 0, nullptr, nullptr);
  const char* program = "(device assigned)";
  config::OneDevice d;
  RankMatch m;
  if (!OneDeviceMatch(facts, program, &d, &m)) return false;
  EnsurePrepared(&facts, true);
  if (!ResolveDeviceRank(program, d, &m)) return false;
  if (g_role.IsRank() && m.rank == g_role.rank && m.nranks == g_role.nranks) return false;  // the same one
  // Planned within the CPUs this process had before any device made it a rank, not within the last rank's.
  ChildArgs a = ChildArgsNow();
  a.launcher_cpus = g_prepared.launcher_cpus, a.launcher_cpu_words = g_prepared.launcher_cpu_words;
  return BecomeRank(a, Role::kSetDevice, program, &m, SetMarkerNow);
}

}  // namespace numabind::shim
