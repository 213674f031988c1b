// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A late rank's own pages moved to its nodes (shim/rank/page_move.h).

#include "shim/rank/page_move.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>

#include "base/file_lines.h"
#include "base/numa_maps.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

constexpr int kMpolBind = 2, kMpolInterleave = 3, kMpolMfMove = 1 << 1;

/// A private anonymous mapping, and how much of it is off the rank's nodes.
struct Range {
  uint64_t start, end, off_kb;
};
constexpr size_t kMaxRanges = 32768;                        ///< past it, the rest is left (and counted)
constexpr size_t kBuf = size_t{64} * 1024;                  ///< the read buffer
constexpr size_t kMap = kBuf + kMaxRanges * sizeof(Range);  ///< one mapping for both

long NowMs() {
  timespec t = {0, 0};
  base::Sys6(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&t));
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

uint64_t Hex(const char** p, const char* end) {
  uint64_t v = 0;
  for (; *p < end; ++*p) {
    char c = **p;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) break;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  return v;
}

/// The private anonymous mappings of /proc/self/maps ("START-END rw-p 0 00:00 0 [heap]"), but `skip`'s.
size_t PrivateAnonymous(char* buf, Range* ranges, uint64_t skip) {
  size_t n = 0;
  bool cut = false;  // a line past the buffer (a long path) is no private anonymous one
  base::ForEachLine("/proc/self/maps", buf, kBuf, ~uint64_t{0}, &cut, [&](const char* line, size_t len) {
    const char *p = line, *end = line + len;
    uint64_t start = Hex(&p, end);
    if (p == end || *p != '-') return;
    ++p;
    uint64_t stop = Hex(&p, end);
    // perms, offset, device, inode, then the name: private, inode 0, no name or [heap], [stack], [anon:..].
    const char* f[5];
    int k = 0;
    for (; p < end && k < 5; ++k) {
      while (p < end && *p == ' ') ++p;
      f[k] = p;
      while (p < end && *p != ' ') ++p;
    }
    if (k < 4 || f[0][3] != 'p' || f[3][0] != '0' || (f[3] + 1 < end && f[3][1] != ' ') || start == skip)
      return;
    bool named = k == 5 && f[4] < end;
    if (named && !(base::StartsWith(f[4], "[heap]") || base::StartsWith(f[4], "[stack]") ||
                   base::StartsWith(f[4], "[anon:")))
      return;
    if (n < kMaxRanges) ranges[n++] = Range{start, stop, 0};
  });
  return n;
}

/// Private anonymous memory off `nodes` in the numa_maps lines of `ranges` (their off_kb) with the default
/// policy; returns the total.
uint64_t OffNodes(char* buf, Range* ranges, size_t n, const uint64_t* nodes, uint32_t words) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) ranges[i].off_kb = 0;
  bool cut = false;
  base::ForEachLine("/proc/self/numa_maps", buf, kBuf, ~uint64_t{0}, &cut, [&](const char* line, size_t len) {
    const char *p = line, *end = line + len;
    uint64_t start = Hex(&p, end);
    if (p + 9 > end || !base::StartsWith(p, " default ")) return;
    size_t lo = 0, hi = n;  // ranges are in address order: find the one at `start`
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (ranges[mid].start < start)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == n || ranges[lo].start != start) return;
    base::NodeMemory m;
    base::AddNumaMapsLine(line, len, &m);
    uint64_t off = m.higher_kb;
    for (uint32_t node = 0; node < base::kNumaMapsNodes; ++node) {
      bool ours = node / 64 < words && (nodes[node / 64] >> (node % 64) & 1) != 0;
      if (!ours) off += m.anon_kb[node];
    }
    ranges[lo].off_kb = off;
    total += off;
  });
  return total;
}

}  // namespace

PagesMoved MoveOwnPages(const uint64_t* nodes, uint32_t node_words, bool spread, uint64_t budget) {
  PagesMoved r;
  long t0 = NowMs();
  long map = base::Sys6(SYS_mmap, 0, kMap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(map)) {
    r.error = map;
    return r;
  }
  char* buf = reinterpret_cast<char*>(map);
  Range* ranges = reinterpret_cast<Range*>(buf + kBuf);
  size_t n = PrivateAnonymous(buf, ranges, static_cast<uint64_t>(map));
  r.before_kb = OffNodes(buf, ranges, n, nodes, node_words);
  uint64_t used = 0;
  long maxnode = static_cast<long>(node_words) * 64 + 1;
  for (size_t i = 0; i < n && r.before_kb > 0; ++i) {
    const Range& g = ranges[i];
    if (g.off_kb == 0) continue;
    if (used + g.off_kb * 1024 > budget) {
      r.over_budget = true;
      continue;
    }
    long len = static_cast<long>(g.end - g.start);
    long e = base::Sys6(SYS_mbind, static_cast<long>(g.start), len, spread ? kMpolInterleave : kMpolBind,
                        reinterpret_cast<long>(nodes), maxnode, kMpolMfMove);
    if (e == 0) {
      used += g.off_kb * 1024;
      ++r.ranges;
    } else if (r.error == 0) {
      r.error = e;
    }
    // The mapping's own policy back to none: its new pages follow the thread's, as before.
    base::Sys6(SYS_mbind, static_cast<long>(g.start), len, 0 /* MPOL_DEFAULT */, 0, 0, 0);
  }
  // What is left, measured: pages shared copy-on-write were not moved, whatever mbind said.
  r.left_kb = r.ranges > 0 ? OffNodes(buf, ranges, n, nodes, node_words) : r.before_kb;
  base::Sys6(SYS_munmap, map, static_cast<long>(kMap));
  r.ms = NowMs() - t0;
  return r;
}

void LogPagesMoved(const char* program, const PagesMoved& m, const uint64_t* nodes, uint32_t node_words) {
  if (m.before_kb == 0 && m.error == 0) return;
  config::LogLevel level = m.error != 0 ? config::LogLevel::kWarn : config::LogLevel::kInfo;
  if (g_startup.config.log < level) return;
  uint64_t moved = m.before_kb > m.left_kb ? m.before_kb - m.left_kb : 0;
  Line l;
  l.Str("numabind: ").Str(program).Str(" pid ").Num(base::Sys6(SYS_getpid)).Str(": moved ");
  l.Num(static_cast<long long>((moved + 512) / 1024)).Str(" MiB of its memory to node");
  l.Str(node_words > 0 && (nodes[0] & (nodes[0] - 1)) == 0 ? " " : "s ").Bits(nodes, node_words);
  l.Str(" in ").Num(m.ms).Str(" ms, ").Num(static_cast<long long>((m.left_kb + 512) / 1024)).Str(" MiB left");
  if (m.over_budget) l.Str(" (past NUMABIND_MOVE's budget)");
  if (m.error != 0)
    l.Str(" (mbind: ").Str(base::ErrnoName(static_cast<int>(-m.error))).Str(")");
  else if (m.left_kb > 0 && !m.over_budget)
    l.Str(" (shared with another process)");
  size_t len = l.Finish();
  WriteLog(level, l.data(), len);
}

}  // namespace numabind::shim
