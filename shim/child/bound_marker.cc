// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_BOUND's proof (shim/child/bound_marker.h): written on the child side of a spawn, read in the
// constructor of a rank that binds itself. Raw system calls and stack buffers only.

#include "shim/child/bound_marker.h"

#include <fcntl.h>

#include "base/hot.h"
#include "base/proc_stat.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "config/bound_marker.h"
#include "plan/plan_basis.h"

namespace numabind::shim {
namespace {

/// Whether `pid` is this process or one of its ancestors.
bool SelfOrAncestor(pid_t pid) {
  pid_t p = static_cast<pid_t>(base::Sys6(SYS_getpid));
  base::ProcStat stat;
  for (int depth = 0; depth < 64 && p > 0;
       ++depth, p = base::ReadProcStat(p, &stat) ? static_cast<pid_t>(stat.ppid) : 0) {
    if (p == pid) return true;
  }
  return false;
}

}  // namespace

// Child-safe: compares characters.
NUMABIND_HOT bool BoundBy(const char* bound, const char* entry) {
  if (bound == nullptr || entry == nullptr) return false;
  while (*entry != '\0' && *entry == *bound) ++entry, ++bound;
  return *entry == '\0' && (*bound == '\0' || *bound == ' ');
}

// Child-safe: raw sched_getaffinity and getpid; the CPU array is sized by the machine (a small thread stack
// must do).
void AppendBoundProof(char* marker, size_t len, size_t cap, uint32_t words, bool spawned) {
  uint64_t cpus[words];
  for (uint32_t w = 0; w < words; ++w) cpus[w] = 0;  // the kernel writes only its own mask's size
  if (base::Sys6(SYS_sched_getaffinity, 0, static_cast<long>(words) * 8, reinterpret_cast<long>(cpus)) <= 0)
    return;
  size_t at = len;
  auto put = [&](const char* s) {
    for (; *s != '\0' && at < cap - 1; ++s) marker[at++] = *s;
  };
  put(" cpus=");
  size_t need = plan::FormatBitList(cpus, words, marker + at, cap - at);
  if (at + need >= cap - 1) return (void)(marker[len] = '\0');
  at += need;
  char pid[base::kDecimalMax];
  size_t digits = base::FormatDecimal(static_cast<uint64_t>(base::Sys6(SYS_getpid)), pid);
  constexpr char kSpawned[] = " spawned";
  put(" by=");
  if (at + digits + (spawned ? sizeof(kSpawned) - 1 : 0) > cap - 1)
    return (void)(marker[len] = '\0');  // whole or not at all
  put(pid);
  if (spawned) put(kSpawned);
  marker[at] = '\0';
}

bool InsideNumabindBinding(const char* bound) {
  config::BoundProof proof;
  if (bound == nullptr || !config::ParseBoundProof(bound, &proof)) return false;
  uint64_t current[config::kMaxCpuWords] = {0};
  if (base::Sys6(SYS_sched_getaffinity, 0, sizeof(current), reinterpret_cast<long>(current)) <= 0)
    return false;
  bool any = false;
  for (uint32_t w = 0; w < config::kMaxCpuWords; ++w) {
    if ((current[w] & ~proof.cpus[w]) != 0) return false;  // wider than numabind made it: not its binding
    any |= current[w] != 0;
  }
  return any && SelfOrAncestor(proof.by);
}

}  // namespace numabind::shim
