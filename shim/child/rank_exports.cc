// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every function in this file may run between fork/vfork and exec: arithmetic on the prepared basis, the
// caller's stack (a few small arrays) and a raw mmap, one raw write for the log.

#include "shim/child/rank_exports.h"

#include <sys/mman.h>

#include <new>

#include "base/syscalls.h"
#include "config/config.h"

namespace numabind::shim {
namespace {

constexpr uintptr_t kPage = 4096;
/// The mapping FreeRankBlock kept (parent side only): its address, and its size in pages in the low 12
/// bits (a mapping is page-aligned); 0 when none. One word, so that taking and giving back are one atomic
/// exchange each.
uintptr_t g_kept_block;

/// Parent side: the kept mapping into *map and *size when it holds `bytes`; a smaller one is unmapped.
void TakeKeptBlock(size_t bytes, char** map, size_t* size) {
  uintptr_t kept = __atomic_exchange_n(&g_kept_block, 0, __ATOMIC_ACQ_REL);
  if (kept == 0) return;
  char* at = reinterpret_cast<char*>(kept & ~(kPage - 1));
  size_t have = (kept & (kPage - 1)) * kPage;
  if (have >= bytes) {
    *map = at;
    *size = have;
    return;
  }
  base::Sys6(SYS_munmap, reinterpret_cast<long>(at), static_cast<long>(have));
}

}  // namespace

// Child-safe: arithmetic on the basis and the plan.
size_t ExportBytes(const ChildArgs& a, const plan::RankPlan& plan, const config::EnvKept& env) {
  if (g_startup.config.exports == 0 || a.prepared->basis == nullptr) return 0;
  plan::RankEnv built;
  size_t need = plan::BuildRankEnv(*a.prepared->basis, plan, g_startup.config.exports, env, nullptr, 0, &built);
  // At least 1: with nothing to export, BuildExports still has to say why.
  return need == 0 ? 1 : need < plan::kRankEnvMax ? need : plan::kRankEnvMax;
}

// Child-safe: arithmetic on the basis, writes into buf and *out, one raw write for the log.
void BuildExports(const ChildArgs& a, const RankMatch& m, const plan::RankPlan& plan,
                  const config::EnvKept& env, const char* path, char* buf, size_t cap, plan::RankEnv* out,
                  Line* line) {
  out->count = 0;
  out->note[0] = '\0';
  if (g_startup.config.exports == 0 || a.prepared->basis == nullptr) return;
  plan::BuildRankEnv(*a.prepared->basis, plan, g_startup.config.exports, env, buf, cap, out);
  if (out->note[0] == '\0') return;
  Line& l = *line;
  l.Str("numabind: rank ").Num(m.rank).Str(" (").Str(m.var ? m.var : "NUMABIND_MATCH").Str(") ").Str(path);
  l.Str(": NUMABIND_EXPORT: ").Str(out->note).Str(" (the rank is bound as planned)");
  WriteLog(config::LogLevel::kWarn, &l);
}

__thread ExecMapping t_exec_mapping __attribute__((tls_model("initial-exec")));

// Child-safe: copies pointers into the caller's array.
char* const* RankEnvironment(const ChildArgs& a, char* const* envp, const RankMatch& m, bool mark, char* marker,
                             const plan::RankEnv& exports, char** out) {
  size_t n = 0;
  if (mark) {
    WriteMarker(a, m, marker);
    out[n++] = marker;  // first: the first entry of a name is the one getenv finds
  }
  for (int i = 0; i < exports.count; ++i) out[n++] = const_cast<char*>(exports.entries[i]);
  for (size_t i = 0; envp != nullptr && envp[i] != nullptr; ++i) {
    if (mark && config::ValueOf(envp[i], "NUMABIND_BOUND") != nullptr) continue;
    if (plan::RankEnvReplaces(exports, envp[i])) continue;
    out[n++] = envp[i];
  }
  out[n] = nullptr;
  return out;
}

// Child-safe: a raw mmap, then arithmetic and copies into it.
int BuildRankBlock(const ChildArgs& a, char* const* envp, const RankMatch& m, const plan::RankPlan* bound,
                   const char* path, RankBlock* out, bool keep) {
  out->env = envp;
  out->map = nullptr;
  out->map_size = 0;
  bool mark = NeedsMarker(m);
  size_t need = bound != nullptr ? ExportBytes(a, *bound, m.kept) : 0;
  if (!mark && need == 0) return 0;
  // The line that says what was not exported (here rather than on the stack: 2 KiB), the pointers
  // (NUMABIND_BOUND, the exports, envp's entries, the NULL), the marker, the exports' text.
  size_t line_bytes = need > 0 ? sizeof(Line) : 0;
  static_assert(sizeof(Line) % sizeof(char*) == 0, "the pointers follow the line");
  size_t pointers = m.env_entries + 2 + plan::kRankEnvEntries;
  size_t bytes = line_bytes + pointers * sizeof(char*) + kMarkerMax + need;
  if (keep) TakeKeptBlock(bytes, &out->map, &out->map_size);
  if (out->map == nullptr) {
    long p = base::Sys6(SYS_mmap, 0, static_cast<long>(bytes), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base::SysFailed(p)) return static_cast<int>(-p);
    out->map = reinterpret_cast<char*>(p);
    out->map_size = bytes;
  }
  long p = reinterpret_cast<long>(out->map);
  char** array = reinterpret_cast<char**>(p + static_cast<long>(line_bytes));
  char* marker = reinterpret_cast<char*>(array + pointers);
  plan::RankEnv exports;
  exports.count = 0;
  if (need > 0)
    BuildExports(a, m, *bound, m.kept, path, marker + kMarkerMax, need, &exports, new (out->map) Line);
  if (mark || exports.count > 0) out->env = RankEnvironment(a, envp, m, mark, marker, exports, array);
  return 0;
}

// Child-safe without `keep`: a raw munmap.
void FreeRankBlock(RankBlock* block, bool keep) {
  size_t pages = (block->map_size + kPage - 1) / kPage;
  if (keep && block->map != nullptr && pages < kPage) {
    uintptr_t mine = reinterpret_cast<uintptr_t>(block->map) | pages;
    uintptr_t old = __atomic_exchange_n(&g_kept_block, mine, __ATOMIC_ACQ_REL);
    if (old != 0)  // another thread's, given back meanwhile
      base::Sys6(SYS_munmap, static_cast<long>(old & ~(kPage - 1)),
                 static_cast<long>((old & (kPage - 1)) * kPage));
  } else if (block->map != nullptr) {
    base::Sys6(SYS_munmap, reinterpret_cast<long>(block->map), static_cast<long>(block->map_size));
  }
  block->map = nullptr;
  block->map_size = 0;
}

}  // namespace numabind::shim
