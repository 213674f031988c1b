// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_BOUND's proof (shim/child/bound_marker.h): written on the child side of a spawn, read in the
// constructor of a rank that binds itself. Raw system calls and stack buffers only.

#include "shim/child/bound_marker.h"

#include <fcntl.h>

#include "base/syscalls.h"
#include "base/text.h"
#include "plan/plan_basis.h"

namespace numabind::shim {
namespace {

/// Child-safe: a decimal number of 1 to 9 digits at *s (advanced past it).
bool ReadNumber(const char** s, uint64_t* out) {
  uint64_t v = 0;
  int digits = 0;
  for (; **s >= '0' && **s <= '9' && digits < 10; ++*s, ++digits)
    v = v * 10 + static_cast<uint64_t>(**s - '0');
  *out = v;
  return digits > 0 && digits < 10;
}

/// The parent of process `pid` (/proc/PID/stat's fourth field, after the command name in parentheses,
/// which may itself hold ") "), or 0 when it cannot be read.
pid_t ParentOf(pid_t pid) {
  if (pid <= 0) return 0;
  char path[6 + base::kDecimalMax + 5] = "/proc/";
  size_t at = 6 + base::FormatDecimal(static_cast<uint64_t>(pid), path + 6);
  for (const char* s = "/stat"; *s != '\0'; ++s) path[at++] = *s;
  path[at] = '\0';
  long fd = base::OpenAt(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[512];
  long got = base::Sys6(SYS_read, fd, reinterpret_cast<long>(buf), sizeof(buf) - 1);
  base::Sys6(SYS_close, fd);
  if (got <= 0) return 0;
  buf[got] = '\0';
  const char* close = nullptr;
  for (const char* s = buf; *s != '\0'; ++s) {
    if (*s == ')') close = s;
  }
  uint64_t ppid = 0;
  if (close == nullptr || close[1] != ' ' || close[2] == '\0' || close[3] != ' ') return 0;
  const char* s = close + 4;
  return ReadNumber(&s, &ppid) ? static_cast<pid_t>(ppid) : 0;
}

/// Whether `pid` is this process or one of its ancestors.
bool SelfOrAncestor(pid_t pid) {
  pid_t p = static_cast<pid_t>(base::Sys6(SYS_getpid));
  for (int depth = 0; depth < 64 && p > 0; ++depth, p = ParentOf(p)) {
    if (p == pid) return true;
  }
  return false;
}

}  // namespace

// Child-safe: compares characters.
bool BoundBy(const char* bound, const char* entry) {
  if (bound == nullptr || entry == nullptr) return false;
  while (*entry != '\0' && *entry == *bound) ++entry, ++bound;
  return *entry == '\0' && (*bound == '\0' || *bound == ' ');
}

// Child-safe: raw sched_getaffinity and getpid; the CPU array is sized by the machine (a small thread stack
// must do).
void AppendBoundProof(char* marker, size_t len, size_t cap) {
  if (g_state.basis == nullptr) return;
  uint32_t words = g_state.basis->cpu_words;
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
  put(" by=");
  if (at + digits > cap - 1) return (void)(marker[len] = '\0');  // whole or not at all
  put(pid);
  marker[at] = '\0';
}

// Child-safe: parses digits, commas and dashes.
bool ParseBoundProof(const char* bound, BoundProof* out) {
  const char* s = bound;
  while (*s != '\0' && *s != ' ') ++s;
  if (!base::StartsWith(s, " cpus=")) return false;
  s += 6;
  for (;;) {
    uint64_t first = 0, last = 0;
    if (!ReadNumber(&s, &first)) return false;
    last = first;
    if (*s == '-') {
      ++s;
      if (!ReadNumber(&s, &last)) return false;
    }
    if (last < first || last >= uint64_t{config::kMaxCpuWords} * 64) return false;
    for (uint64_t c = first; c <= last; ++c) out->cpus[c / 64] |= 1ull << (c % 64);
    if (*s != ',') break;
    ++s;
  }
  uint64_t by = 0;
  if (!base::StartsWith(s, " by=")) return false;
  s += 4;
  if (!ReadNumber(&s, &by) || *s != '\0' || by == 0) return false;
  out->by = static_cast<pid_t>(by);
  return true;
}

bool InsideNumabindBinding(const char* bound) {
  BoundProof proof;
  if (bound == nullptr || !ParseBoundProof(bound, &proof)) return false;
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
