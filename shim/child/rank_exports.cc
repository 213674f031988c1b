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
/// The mapping KeepMapping kept (parent side only): its address, and its size in pages in the low 12 bits
/// (a mapping is page-aligned); 0 when none. One word, so that taking and giving back are one atomic
/// exchange each.
uintptr_t g_kept_block;

/// Child-safe: a fresh private mapping of `bytes` into *map and *size; 0 or mmap's errno.
int MapFresh(size_t bytes, char** map, size_t* size) {
  long p = base::Sys6(SYS_mmap, 0, static_cast<long>(bytes), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(p)) return static_cast<int>(-p);
  *map = reinterpret_cast<char*>(p);
  *size = bytes;
  return 0;
}

constexpr size_t kChunk = size_t{64} << 10;
/// The chunk kEnviron blocks are carved from, one after another, none ever given back: its address, and in
/// the low 12 bits the 16-byte units carved; 0 when none. Taken and given back by atomic exchange, as the
/// kept mapping: threads that carve at once map a chunk each, and one's remainder is never used.
uintptr_t g_pinned_chunk;

/// Parent side, or a rank's start-up: `bytes` that stay mapped and are never handed out again (a large
/// block is a mapping of its own). Memory and faults, per system or popen call: a sixth of a page for a
/// small environment, not a page.
int CarvePinned(size_t bytes, char** map, size_t* size) {
  size_t need = (bytes + 15) & ~size_t{15};
  if (need > kChunk / 4) return MapFresh(bytes, map, size);
  uintptr_t chunk = __atomic_exchange_n(&g_pinned_chunk, 0, __ATOMIC_ACQ_REL);
  uintptr_t at = chunk & ~(kPage - 1);
  size_t used = (chunk & (kPage - 1)) * 16;
  if (chunk == 0 || used + need > kChunk) {
    char* fresh = nullptr;
    size_t got = 0;
    if (int e = MapFresh(kChunk, &fresh, &got); e != 0) return e;
    at = reinterpret_cast<uintptr_t>(fresh);
    used = 0;
  }
  *map = reinterpret_cast<char*>(at + used);
  *size = need;
  used += need;
  if (used < kChunk) __atomic_exchange_n(&g_pinned_chunk, at | (used / 16), __ATOMIC_ACQ_REL);
  return 0;
}

}  // namespace

// Parent side only: atomic exchanges, and an mmap or munmap when the kept mapping is missing or too small.
int TakeKeptMapping(size_t bytes, char** map, size_t* size) {
  uintptr_t kept = __atomic_exchange_n(&g_kept_block, 0, __ATOMIC_ACQ_REL);
  if (kept != 0) {
    char* at = reinterpret_cast<char*>(kept & ~(kPage - 1));
    size_t have = (kept & (kPage - 1)) * kPage;
    if (have >= bytes) {
      *map = at;
      *size = have;
      return 0;
    }
    base::Sys6(SYS_munmap, reinterpret_cast<long>(at), static_cast<long>(have));
  }
  return MapFresh(bytes, map, size);
}

// Parent side only: an atomic exchange, and a munmap of what it replaces.
void KeepMapping(char* map, size_t size) {
  if (map == nullptr) return;
  size_t pages = (size + kPage - 1) / kPage;
  if (pages >= kPage) {  // too large to note in the word's low bits
    base::Sys6(SYS_munmap, reinterpret_cast<long>(map), static_cast<long>(size));
    return;
  }
  uintptr_t mine = reinterpret_cast<uintptr_t>(map) | pages;
  uintptr_t old = __atomic_exchange_n(&g_kept_block, mine, __ATOMIC_ACQ_REL);
  if (old != 0)  // another thread's, given back meanwhile
    base::Sys6(SYS_munmap, static_cast<long>(old & ~(kPage - 1)),
               static_cast<long>((old & (kPage - 1)) * kPage));
}

// Child-safe: arithmetic on the basis and the plan.
size_t ExportBytes(const ChildArgs& a, const plan::RankPlan& plan, const config::EnvKept& env) {
  if (g_startup.config.exports == 0 || a.prepared->basis == nullptr) return 0;
  plan::RankEnv built;
  size_t need =
      plan::BuildRankEnv(*a.prepared->basis, plan, g_startup.config.exports, env, nullptr, 0, &built);
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
  RankHeading(&l.Str("numabind: "), m.rank, 0, m.var).Str(" ").Str(path);
  l.Str(": NUMABIND_EXPORT: ").Str(out->note).Str(" (the rank is bound as planned)");
  WriteLog(config::LogLevel::kWarn, &l);
}

__thread ExecMapping t_exec_mapping __attribute__((tls_model("initial-exec")));

// Child-safe: copies pointers into the caller's array.
char* const* RankEnvironment(const ChildArgs& a, char* const* envp, const RankMatch& m, bool mark,
                             char* marker, const plan::RankEnv& exports, char** out, size_t room) {
  size_t n = 0;
  if (mark) {
    WriteMarker(a, m, marker);
    out[n++] = marker;  // first: the first entry of a name is the one getenv finds
  }
  for (int i = 0; i < exports.count; ++i) out[n++] = const_cast<char*>(exports.entries[i]);
  for (size_t i = 0; envp != nullptr && envp[i] != nullptr && n + 1 < room; ++i) {
    if (mark && config::ValueOf(envp[i], config::kVarNames[config::kVarBound]) != nullptr) continue;
    if (plan::RankEnvReplaces(exports, envp[i])) continue;
    out[n++] = envp[i];
  }
  out[n] = nullptr;
  return out;
}

// Child-safe for kExec: a raw mmap, then arithmetic and copies into it.
int BuildRankBlock(const ChildArgs& a, char* const* envp, const RankMatch& m, const plan::RankPlan* bound,
                   const char* path, RankBlock* out, BlockUse use) {
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
  int e = use == BlockUse::kSpawn     ? TakeKeptMapping(bytes, &out->map, &out->map_size)
          : use == BlockUse::kEnviron ? CarvePinned(bytes, &out->map, &out->map_size)
                                      : MapFresh(bytes, &out->map, &out->map_size);
  if (e != 0) return e;
  long p = reinterpret_cast<long>(out->map);
  char** array = reinterpret_cast<char**>(p + static_cast<long>(line_bytes));
  char* marker = reinterpret_cast<char*>(array + pointers);
  plan::RankEnv exports;
  exports.count = 0;
  if (need > 0)
    BuildExports(a, m, *bound, m.kept, path, marker + kMarkerMax, need, &exports, new (out->map) Line);
  if (mark || exports.count > 0)
    out->env = RankEnvironment(a, envp, m, mark, marker, exports, array, pointers);
  return 0;
}

// Child-safe for kExec: a raw munmap.
void FreeRankBlock(RankBlock* block, BlockUse use) {
  if (use == BlockUse::kSpawn) {
    KeepMapping(block->map, block->map_size);
  } else if (use == BlockUse::kExec && block->map != nullptr) {
    base::Sys6(SYS_munmap, reinterpret_cast<long>(block->map), static_cast<long>(block->map_size));
  }  // kEnviron: `environ`, or an array another thread's setenv copied from it, may point into it for good
  block->map = nullptr;
  block->map_size = 0;
}

}  // namespace numabind::shim
