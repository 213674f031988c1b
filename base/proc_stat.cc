// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "base/proc_stat.h"

#include <errno.h>

#include "base/digits.h"
#include "base/syscalls.h"
#include "base/text.h"

namespace numabind::base {

// Child-safe: reads characters.
bool ParseProcStat(const char* text, size_t len, ProcStat* out) {
  const char* end = text + len;
  const char* close = nullptr;  // the last ')': COMM may hold ')'
  for (const char* s = text; s < end; ++s) {
    if (*s == ')') close = s;
  }
  if (close == nullptr || end - close < 4 || close[1] != ' ' || close[3] != ' ') return false;
  ProcStat stat;
  stat.state = close[2];
  const char* p = close + 4;
  for (int field = 4; field <= 22; ++field) {
    uint64_t value = 0;
    if (field == 4 || field == 22) {
      if (ScanDecimal(&p, end, uint64_t{1} << 59, &value) != Digits::kOk) return false;
      if (field == 4) stat.ppid = static_cast<long>(value);
      if (field == 22) stat.start = value;
    }
    while (p < end && *p != ' ') ++p;  // another field (tpgid may be -1)
    if (field < 22 && p++ == end) return false;
  }
  *out = stat;
  return true;
}

namespace {

/// Child-safe: opens /proc/PID/LEAF ("stat", "environ") read-only; -errno when it cannot.
long OpenProcFile(long pid, const char* leaf) {
  if (pid <= 0) return -ENOENT;
  char path[6 + kDecimalMax + 1 + 8] = "/proc/";
  size_t at = 6 + FormatDecimal(static_cast<uint64_t>(pid), path + 6);
  path[at++] = '/';
  for (; *leaf != '\0' && at + 1 < sizeof(path); ++leaf) path[at++] = *leaf;
  path[at] = '\0';
  return OpenAt(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
}

}  // namespace

// Child-safe: raw open, read and close into a stack buffer.
bool ReadProcStat(long pid, ProcStat* out) {
  long fd = OpenProcFile(pid, "stat");
  if (fd < 0) return false;
  char buf[512] = {0};  // filled by a raw call the analyzer cannot see into
  long got = Sys6(SYS_read, fd, reinterpret_cast<long>(buf), sizeof(buf));
  Sys6(SYS_close, fd);
  return got > 0 && ParseProcStat(buf, static_cast<size_t>(got), out);
}

// Child-safe: raw open, reads and close, a piece at a time on the stack.
bool ProcEnvironHas(long pid, const char* prefix, const char* rest, bool whole) {
  long fd = OpenProcFile(pid, "environ");
  if (fd < 0) return false;
  size_t plen = StrLen(prefix), len = plen + (rest != nullptr ? StrLen(rest) : 0);
  auto want = [&](size_t i) { return i < plen ? prefix[i] : rest[i - plen]; };
  size_t matched = 0;  // characters matched at the start of the current entry; ~0: not this entry
  bool found = false;
  char chunk[1024] = {0};  // as above
  long n;
  while (!found && (n = Sys6(SYS_read, fd, reinterpret_cast<long>(chunk), sizeof(chunk))) > 0) {
    for (long i = 0; i < n && !found; ++i) {
      if (chunk[i] == '\0') {
        found = whole && matched == len;
        matched = 0;
      } else if (matched != ~size_t{0}) {
        matched = matched < len && chunk[i] == want(matched) ? matched + 1 : ~size_t{0};
        found = !whole && matched == len;
      }
    }
  }
  Sys6(SYS_close, fd);
  return found;
}

}  // namespace numabind::base
