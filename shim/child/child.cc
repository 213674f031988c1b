// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The child side of a spawn. Every function in this file may run between fork/vfork and exec: raw system
// calls (base/syscalls.h) on data the parent prepared, buffers on the caller's stack, and calls only to
// functions that say "Child-safe" (plan/plan_basis.h, shim/log/line.h).

#include "shim/child/child.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <string.h>
#include <sys/stat.h>

#include "base/syscalls.h"
#include "config/rank_count.h"
#include "plan/plan_auto.h"
#include "shim/child/bound_marker.h"
#include "shim/log/json_log.h"

namespace numabind::shim {
namespace {

constexpr int kMpolPreferredMany = 5;  // MPOL_PREFERRED_MANY, Linux 5.15; older headers lack it

/// Child-safe: strlen.
size_t StrLen(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

/// Child-safe: strcmp(a, b) == 0.
bool StrEq(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

/// Child-safe: the name of an errno value, for one-line messages (strerror may allocate).
const char* ErrnoName(int e) {
  switch (e) {
    case EPERM: return "Operation not permitted (EPERM)";
    case EINVAL: return "Invalid argument (EINVAL)";
    case ESRCH: return "No such process (ESRCH)";
    case EFAULT: return "Bad address (EFAULT)";
    case ENOSYS: return "Function not implemented (ENOSYS)";
    case ENOMEM: return "Cannot allocate memory (ENOMEM)";
    case EXDEV: return "Cross-device link (EXDEV)";
    case ENOENT: return "No such file or directory (ENOENT)";
    case EACCES: return "Permission denied (EACCES)";
    case ELOOP: return "Too many levels of symbolic links (ELOOP)";
    case EISDIR: return "Is a directory (EISDIR)";
    case EROFS: return "Read-only file system (EROFS)";
    default: return "error";
  }
}

/// Child-safe: sets the calling thread's memory policy for `plan`; returns 0 or -errno.
long ApplyMemory(const core::RankPlan& plan, uint32_t node_words) {
  long maxnode = static_cast<long>(node_words) * 64 + 1;  // the kernel drops one bit of maxnode, historically
  switch (plan.memory) {
    case core::MemoryKind::kLocal: return Sys6(SYS_set_mempolicy, MPOL_DEFAULT, 0, 0);
    case core::MemoryKind::kBind:
      return Sys6(SYS_set_mempolicy, MPOL_BIND, reinterpret_cast<long>(plan.nodes), maxnode);
    case core::MemoryKind::kInterleave:
      return Sys6(SYS_set_mempolicy, MPOL_INTERLEAVE, reinterpret_cast<long>(plan.nodes), maxnode);
    case core::MemoryKind::kPreferred:
      if (core::CountBits(plan.nodes, node_words) > 1) {
        long r = Sys6(SYS_set_mempolicy, kMpolPreferredMany, reinterpret_cast<long>(plan.nodes), maxnode);
        if (r != -EINVAL) return r;
      }
      uint64_t first[kMaxNodeWords] = {0};
      for (uint32_t w = 0; w < node_words; ++w) {
        if (plan.nodes[w] != 0) {
          first[w] = plan.nodes[w] & (~plan.nodes[w] + 1);
          break;
        }
      }
      return Sys6(SYS_set_mempolicy, MPOL_PREFERRED, reinterpret_cast<long>(first), maxnode);
  }
  return -EINVAL;
}

/// Child-safe: whether two bit sets are equal (a missing word counts as zero).
bool SameBits(const uint64_t* a, uint32_t a_words, const uint64_t* b, uint32_t b_words) {
  for (uint32_t w = 0; w < a_words || w < b_words; ++w) {
    if ((w < a_words ? a[w] : 0) != (w < b_words ? b[w] : 0)) return false;
  }
  return true;
}

/// Child-safe: logs why a rank is not bound (in `l`, the caller's line, unused on this path: one line
/// buffer on the stack, not two) and decides between running unbound and refusing (strict).
BindResult Fail(Line* l, const char* path, const RankMatch& m, const char* what, const char* why, int e,
                int* err) {
  l->Str("numabind: rank ").Num(m.rank).Str(" (").Str(m.var ? m.var : "NUMABIND_MATCH").Str(") ").Str(path);
  l->Str(g_state.config.strict ? " not started: " : " runs unbound: ").Str(what).Str(why);
  WriteLog(config::LogLevel::kWarn, l);
  if (!g_state.config.strict) return BindResult::kUnbound;
  *err = e;
  return BindResult::kRefused;
}

/// Child-safe: a rank variable whose value is not a rank: one line naming both, then as Fail.
BindResult FailValue(Line* line, const char* path, const RankMatch& m, int* err) {
  Line& l = *line;
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
  l.Str(g_state.config.strict ? " not started" : " runs unbound");
  WriteLog(config::LogLevel::kWarn, &l);
  if (!g_state.config.strict) return BindResult::kUnbound;
  *err = EINVAL;
  return BindResult::kRefused;
}

}  // namespace

// Child-safe: reads envp and the prepared config.
bool FindRankVar(char* const* envp, uint32_t skip, RankMatch* out) {
  const config::Config& c = g_state.config;
  const char* const* env = const_cast<const char* const*>(envp);
  const char* name = c.rank_var;
  const char* v = nullptr;
  int index = -1;  // the variable's built-in entry, for its rank count
  if (name != nullptr) {
    if ((skip & config::kRankVarBit) != 0) return false;
    for (int i = 0; i < config::kRankVarCount; ++i) {
      if (StrEq(name, config::kRankVars[i].rank)) index = i;
    }
    v = config::Lookup(env, name);
  } else {
    // The first rank variable the program's environment carries (non-empty) decides.
    for (int i = 0; i < config::kRankVarCount && name == nullptr; ++i) {
      if ((skip & (1u << i)) != 0) continue;
      const char* value = config::Lookup(env, config::kRankVars[i].rank);
      if (value == nullptr || *value == '\0') continue;
      // A batch script has SLURM_LOCALID=0 but no SLURM_STEP_ID: only a step's tasks are Slurm's ranks.
      if (i == config::kSlurmRankVar && config::Lookup(env, "SLURM_STEP_ID") == nullptr) continue;
      name = config::kRankVars[i].rank;
      index = i;
      v = value;
    }
  }
  if (v == nullptr || *v == '\0') return false;
  out->var = name;
  out->entry = v - StrLen(name) - 1;
  // A value that is not a rank makes it a rank that cannot be bound, which BindRank reports.
  out->bad_value = config::ParseRankValue(v, &out->rank) == config::RankValue::kOk ? nullptr : v;
  out->nranks = c.nranks != 0 ? c.nranks : index >= 0 ? config::LocalRankCount(env, index) : 0;
  return true;
}

// Child-safe: reads envp, the prepared config and /proc, with raw system calls.
bool FindRank(char* const* argv, char* const* envp, pid_t parent, RankMatch* out) {
  if (FindRankVar(envp, g_state.startup_rank_vars, out)) return true;
  if (g_state.config.rank_var != nullptr && (g_state.startup_rank_vars & config::kRankVarBit) != 0)
    return false;
  if (!ArgvMatches(argv)) return false;
  out->var = nullptr;
  out->entry = nullptr;
  out->rank = CountMatchingChildren(parent);
  out->nranks = g_state.config.nranks;
  return true;
}

// Child-safe: a pointer count.
size_t EnvCount(char* const* envp) {
  size_t n = 0;
  while (envp != nullptr && envp[n] != nullptr) ++n;
  return n;
}

// Child-safe: a length check.
bool NeedsMarker(const RankMatch& m) {
  return m.entry != nullptr && StrLen(m.entry) + sizeof("NUMABIND_BOUND=") <= kMarkerMax;
}

// Child-safe: copies pointers into the caller's arrays; raw sched_getaffinity and getpid.
char* const* MarkEnvironment(char* const* envp, const RankMatch& m, char* marker, char** out) {
  size_t len = 0;
  for (const char* s = "NUMABIND_BOUND="; *s != '\0'; ++s) marker[len++] = *s;
  for (const char* s = m.entry; *s != '\0' && len < kMarkerMax - 1; ++s) marker[len++] = *s;
  marker[len] = '\0';
  if (m.bound) AppendBoundProof(marker, len, kMarkerMax);
  size_t n = 0;
  out[n++] = marker;  // first: the first entry of a name is the one getenv finds
  for (size_t i = 0; envp != nullptr && envp[i] != nullptr; ++i) {
    if (config::ValueOf(envp[i], "NUMABIND_BOUND") == nullptr) out[n++] = envp[i];
  }
  out[n] = nullptr;
  return out;
}

// Child-safe: arithmetic on the prepared basis, then raw sched_setaffinity and set_mempolicy.
BindResult BindRank(Entry entry, const char* path, RankMatch* found, SavedBinding* saved, Line* line,
                    int* err) {
  RankMatch& m = *found;
  if (m.bad_value != nullptr) return FailValue(line, path, m, err);
  if (g_state.config_error[0] != '\0') return Fail(line, path, m, "", g_state.config_error, EINVAL, err);
  const core::PlanBasis* basis = g_state.basis;
  if (basis == nullptr) {
    const char* why = g_state.prepared ? g_state.prepare_error
                                       : "no plan was prepared before the launcher forked (see README)";
    return Fail(line, path, m, "", why, EINVAL, err);
  }
  if (basis->cpu_words > kMaxCpuWords || basis->node_words > kMaxNodeWords) {
    return Fail(line, path, m, "", "the machine has more CPUs or nodes than numabind handles", EINVAL, err);
  }
  // Sized by the machine (at most kMaxCpuWords and kMaxNodeWords): a small thread stack must do.
  uint64_t cpus[basis->cpu_words], nodes[basis->node_words];
  core::RankPlan plan;
  plan.cpus = cpus;
  plan.nodes = nodes;
  if (!core::ComputeRankPlan(*basis, m.rank, m.nranks, &plan))
    return Fail(line, path, m, "", plan.error, EINVAL, err);

  long r = Sys6(SYS_sched_getaffinity, 0, sizeof(saved->cpus), reinterpret_cast<long>(saved->cpus));
  saved->cpus_saved = r > 0;
  if (saved->cpus_saved) {
    for (long b = r / 8; b < static_cast<long>(kMaxCpuWords); ++b) saved->cpus[b] = 0;
  }
  r = Sys6(SYS_sched_setaffinity, 0, static_cast<long>(basis->cpu_words) * 8, reinterpret_cast<long>(cpus));
  if (r < 0)
    return Fail(line, path, m, "sched_setaffinity: ", ErrnoName(static_cast<int>(-r)), static_cast<int>(-r),
                err);
  const char* memory_denied =
      g_state.memory_policy_denied[0] != '\0' ? g_state.memory_policy_denied : nullptr;
  if (memory_denied == nullptr) {
    saved->memory_saved =
        Sys6(SYS_get_mempolicy, reinterpret_cast<long>(&saved->mode), reinterpret_cast<long>(saved->nodes),
             static_cast<long>(kMaxNodeWords) * 64, 0, 0) == 0;
    r = ApplyMemory(plan, basis->node_words);
    // A container that forbids memory policies, a kernel without them: keep the CPUs, say so in the line.
    if (r == -EPERM) {
      memory_denied = "EPERM";
    } else if (r == -ENOSYS) {
      memory_denied = "ENOSYS";
    } else if (r < 0) {
      Restore(*saved);
      return Fail(line, path, m, "set_mempolicy: ", ErrnoName(static_cast<int>(-r)), static_cast<int>(-r),
                  err);
    }
  }
  // A forked worker bound at setenv and bound again at its exec (hydra binds the child in between).
  bool again = entry != Entry::kSetenv && g_state.fork_child && m.rank == g_state.worker_rank &&
               m.nranks == g_state.worker_nranks;
  // The binding the rank started with is replaced when it was one (other CPUs than its launcher's; at
  // start-up, than the job's it widened to) and the plan's differs from it.
  bool widened = m.started_cpus != nullptr;
  const uint64_t* started = widened ? m.started_cpus : saved->cpus;
  uint32_t started_words = widened ? m.started_words : kMaxCpuWords;
  bool was_bound =
      saved->cpus_saved &&
      (widened ? !SameBits(started, started_words, saved->cpus, kMaxCpuWords)
               : g_state.launcher_cpu_words > 0 &&
                     !SameBits(started, started_words, g_state.launcher_cpus, g_state.launcher_cpu_words));
  bool replaced = was_bound && !SameBits(started, started_words, cpus, basis->cpu_words);
  m.replaced = replaced;
  m.bound = true;
  // auto says what share it gave the rank (plan/plan_auto.h).
  char share[96] = "";
  if (basis->policy == core::PolicyKind::kAuto)
    core::FormatAutoShare(*basis, plan.share, share, sizeof(share));
  if (g_state.config.log_format == config::LogFormat::kJson) {
    JsonBound(line, {again, &m, path, cpus, basis->cpu_words, nodes, basis->node_words,
                     memory_denied ? "unchanged" : core::MemoryName(plan.memory), plan.device, entry,
                     replaced ? started : nullptr, started_words, share});
    return BindResult::kBound;
  }
  line->Str(again ? "numabind: rebound rank " : "numabind: bound rank ").Num(m.rank);
  if (m.nranks != 0) line->Str(" of ").Num(m.nranks);
  line->Str(" (").Str(m.var ? m.var : "order, NUMABIND_MATCH").Str(") ").Str(path).Str(": cpus ");
  line->Bits(cpus, basis->cpu_words).Str(" nodes ").Bits(nodes, basis->node_words).Str(" memory ");
  if (memory_denied != nullptr)
    line->Str("unchanged (set_mempolicy: ").Str(memory_denied).Str(")");
  else
    line->Str(core::MemoryName(plan.memory));
  if (plan.device != nullptr && plan.device[0] != '\0') line->Str(" device ").Str(plan.device);
  if (share[0] != '\0') line->Str(" (auto: ").Str(share).Str(")");
  if (entry == Entry::kStartup)
    line->Str(" at start-up");
  else
    line->Str(" via ").Str(EntryName(entry));
  if (replaced) {
    bool slurm = m.var != nullptr && StrEq(m.var, config::kRankVars[config::kSlurmRankVar].rank);
    line->Str(!widened ? " (replaced the launcher's binding to cpus "
              : slurm  ? " (replaced Slurm's binding to cpus "
                       : " (replaced the binding it started with, cpus ");
    line->Bits(started, started_words).Str(")");
  }
  return BindResult::kBound;
}

// Child-safe: formats on the stack and writes with raw system calls.
BindResult FailEnvironment(Line* line, const char* path, const RankMatch& m, int e, int* err) {
  line->Reset();
  return Fail(line, path, m, "no memory for its environment: ", ErrnoName(e), e, err);
}

// Child-safe: formats on the stack and writes with raw system calls.
void FinishBoundLine(Line* line, pid_t pid) {
  if (g_state.config.log_format == config::LogFormat::kJson) {
    bool debug = g_state.config.log == config::LogLevel::kDebug && g_state.stack[0] != '\0';
    return JsonFinishBound(*line, pid, debug ? g_state.stack : nullptr);
  }
  if (pid > 0)
    line->Str(" pid ").Num(pid);
  else
    line->Str(" pid unknown");
  if (g_state.config.log == config::LogLevel::kDebug && g_state.stack[0] != '\0')
    line->Str("\n").Str(g_state.stack);
  size_t len = line->Finish();
  WriteLog(config::LogLevel::kInfo, line->data(), len);
}

// Child-safe: two raw system calls.
void Restore(const SavedBinding& saved) {
  if (saved.cpus_saved)
    Sys6(SYS_sched_setaffinity, 0, sizeof(saved.cpus), reinterpret_cast<long>(saved.cpus));
  if (saved.memory_saved) {
    Sys6(SYS_set_mempolicy, saved.mode, reinterpret_cast<long>(saved.nodes),
         static_cast<long>(kMaxNodeWords) * 64);
  }
}

namespace {

/// Child-safe: opens NUMABIND_LOG_FILE for one line, or returns -1 with *why set. Never blocks: a FIFO
/// without a reader would hang open() (O_NONBLOCK makes it ENXIO), and a FIFO, terminal or device at a
/// shared log path is refused (O_NOCTTY: never our controlling terminal).
long OpenLogFile(const char* file, const char** why) {
  long fd = Sys6(SYS_openat, AT_FDCWD, reinterpret_cast<long>(file),
                 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
  if (fd < 0) {
    *why = fd == -ENXIO ? "is not a regular file" : ErrnoName(static_cast<int>(-fd));
    return -1;
  }
  struct stat st;
  if (Sys6(SYS_fstat, fd, reinterpret_cast<long>(&st)) != 0 || !S_ISREG(st.st_mode)) {
    Sys6(SYS_close, fd);
    *why = "is not a regular file";
    return -1;
  }
  return fd;
}

/// Child-safe: says why the log goes to standard error: a JSON line of its own, or the text line's start.
/// Not inlined: its line is on the stack only on this path.
__attribute__((noinline)) void NoteLogFileFallback(const char* file, const char* why) {
  if (g_state.config.log_format == config::LogFormat::kJson) return WriteJsonLogFileNote(file, why);
  Line note;
  note.Str("numabind: NUMABIND_LOG_FILE=").Str(file).Str(" ").Str(why).Str(" (logging to standard error): ");
  Sys6(SYS_write, 2, reinterpret_cast<long>(note.data()), static_cast<long>(note.size()));
}

}  // namespace

// Child-safe: a JSON line of its own in JSON mode, else one raw write.
void WriteLog(config::LogLevel level, const char* text, size_t len) {
  if (g_state.config.log < level) return;
  if (g_state.config.log_format == config::LogFormat::kJson) return WriteJsonLog(level, text, len, false);
  WriteLogRaw(text, len);
}

// Child-safe: as above, saying in JSON when the line was cut short.
void WriteLog(config::LogLevel level, Line* line) {
  if (g_state.config.log < level) return;
  if (g_state.config.log_format == config::LogFormat::kJson)
    return WriteJsonLog(level, line->CStr(), line->size(), line->truncated());
  size_t len = line->Finish();
  WriteLogRaw(line->data(), len);
}

// Child-safe: raw open, write and close; one write per line, so lines from many ranks stay whole.
void WriteLogRaw(const char* text, size_t len) {
  const char* file = g_state.config.log_file;
  long fd = 2;
  if (file != nullptr && *file != '\0') {
    const char* why = nullptr;
    fd = OpenLogFile(file, &why);
    if (fd < 0) {
      fd = 2;
      NoteLogFileFallback(file, why);  // on every line that falls back: a vfork child must not remember it
    }
  }
  Sys6(SYS_write, fd, reinterpret_cast<long>(text), static_cast<long>(len));
  if (fd != 2) Sys6(SYS_close, fd);
}

// Child-safe: returns a string literal.
const char* EntryName(Entry entry) {
  // Arrays, not pointers: no relocations for the loader.
  static const char kNames[][13] = {"execve",       "execv",       "execvp",       "execvpe",  "execl",
                                    "execle",       "execlp",      "fexecve",      "execveat", "posix_spawn",
                                    "posix_spawnp", "pidfd_spawn", "pidfd_spawnp", "system",   "popen",
                                    "setenv",       "start-up"};
  return kNames[static_cast<int>(entry)];
}

}  // namespace numabind::shim
