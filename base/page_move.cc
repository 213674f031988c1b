// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A process's private pages moved to its nodes (base/page_move.h).

#include "base/page_move.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

#include "base/file_lines.h"
#include "base/numa_maps.h"
#include "base/syscalls.h"
#include "base/text.h"

namespace numabind::base {
namespace {

constexpr int kMpolBind = 2, kMpolInterleave = 3, kMpolMfMove = 1 << 1;

/// A private anonymous mapping, and how much of it is off the rank's nodes.
struct Range {
  uint64_t start, end, off_kb;
};
constexpr size_t kMaxRanges = 32768;        ///< past it, the rest is left (and counted)
constexpr size_t kBuf = size_t{64} * 1024;  ///< the read buffer
constexpr size_t kBatch = 1024;             ///< pages per move_pages call (another process's)
/// One mapping for the buffer, the ranges and move_pages' three arrays.
constexpr size_t kMap = kBuf + kMaxRanges * sizeof(Range) + kBatch * (sizeof(void*) + 2 * sizeof(int));

/// "/proc/PID/NAME" (PID 0: "self") into out, which has room for 48 bytes.
const char* ProcPath(pid_t pid, const char* name, char* out) {
  size_t n = 0;
  for (const char* s = "/proc/"; *s != '\0'; ++s) out[n++] = *s;
  if (pid == 0) {
    for (const char* s = "self"; *s != '\0'; ++s) out[n++] = *s;
  } else {
    n += FormatDecimal(static_cast<uint64_t>(pid), out + n);
  }
  out[n++] = '/';
  for (const char* s = name; *s != '\0'; ++s) out[n++] = *s;
  out[n] = '\0';
  return out;
}

bool OnNodes(long node, const uint64_t* nodes, uint32_t words) {
  return node >= 0 && static_cast<uint64_t>(node) / 64 < words && (nodes[node / 64] >> (node % 64) & 1) != 0;
}

long NowMs() {
  timespec t = {0, 0};
  Sys6(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&t));
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

/// The private anonymous mappings of /proc/PID/maps ("START-END rw-p 0 00:00 0 [heap]"), but `skip`'s.
size_t PrivateAnonymous(pid_t pid, char* buf, Range* ranges, uint64_t skip) {
  size_t n = 0;
  bool cut = false;  // a line past the buffer (a long path) is no private anonymous one
  char path[48];
  ForEachLine(ProcPath(pid, "maps", path), buf, kBuf, ~uint64_t{0}, &cut, [&](const char* line, size_t len) {
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
    if (named && !(StartsWith(f[4], "[heap]") || StartsWith(f[4], "[stack]") || StartsWith(f[4], "[anon:")))
      return;
    if (n < kMaxRanges) ranges[n++] = Range{start, stop, 0};
  });
  return n;
}

/// Private anonymous memory off `nodes` in the numa_maps lines of `ranges` (their off_kb) with the default
/// policy; returns the total.
uint64_t OffNodes(pid_t pid, char* buf, Range* ranges, size_t n, const uint64_t* nodes, uint32_t words) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) ranges[i].off_kb = 0;
  bool cut = false;
  char path[48];
  ForEachLine(ProcPath(pid, "numa_maps", path), buf, kBuf, ~uint64_t{0}, &cut,
              [&](const char* line, size_t len) {
                const char *p = line, *end = line + len;
                uint64_t start = Hex(&p, end);
                if (p + 9 > end || !StartsWith(p, " default ")) return;
                size_t lo = 0, hi = n;  // ranges are in address order: find the one at `start`
                while (lo < hi) {
                  size_t mid = (lo + hi) / 2;
                  if (ranges[mid].start < start)
                    lo = mid + 1;
                  else
                    hi = mid;
                }
                if (lo == n || ranges[lo].start != start) return;
                NodeMemory m;
                AddNumaMapsLine(line, len, &m);
                uint64_t off = m.higher_kb;
                for (uint32_t node = 0; node < kNumaMapsNodes; ++node) {
                  if (!OnNodes(node, nodes, words)) off += m.anon_kb[node];
                }
                ranges[lo].off_kb = off;
                total += off;
              });
  return total;
}

/// Where move_pages' three arrays go in the mapping.
struct Batch {
  void** pages;
  int* nodes;
  int* status;
};

/// This process's range g to `nodes` (mbind with MPOL_MF_MOVE), its policy then back to none; 0 or -errno.
long MoveOwnRange(const Range& g, const uint64_t* nodes, uint32_t words, bool spread) {
  long len = static_cast<long>(g.end - g.start);
  long e = Sys6(SYS_mbind, static_cast<long>(g.start), len, spread ? kMpolInterleave : kMpolBind,
                reinterpret_cast<long>(nodes), static_cast<long>(words) * 64 + 1, kMpolMfMove);
  // The mapping's own policy back to none: its new pages follow the thread's, as before.
  Sys6(SYS_mbind, static_cast<long>(g.start), len, 0 /* MPOL_DEFAULT */, 0, 0, 0);
  return e;
}

/// Process pid's range g: where each page is (move_pages without nodes), then the pages off `nodes` to
/// them, dealt in turn; 0 or the first -errno of a call (a page the kernel would not move is left).
long MoveOthersRange(pid_t pid, const Range& g, const uint64_t* nodes, uint32_t words, long page,
                     const Batch& b, uint32_t* next_node) {
  uint32_t bits = words * 64;
  for (uint64_t at = g.start; at < g.end;) {
    long count = 0;
    for (; count < static_cast<long>(kBatch) && at < g.end; ++count, at += static_cast<uint64_t>(page))
      b.pages[count] = reinterpret_cast<void*>(at);
    long e = Sys6(SYS_move_pages, pid, count, reinterpret_cast<long>(b.pages), 0,
                  reinterpret_cast<long>(b.status), 0);
    if (e < 0) return e;
    long off = 0;  // the pages off `nodes`, to the front
    for (long i = 0; i < count; ++i) {
      if (b.status[i] < 0 || OnNodes(b.status[i], nodes, words)) continue;
      uint32_t n = *next_node;
      while (!OnNodes(n % bits, nodes, words)) ++n;  // the caller checked that `nodes` has one
      *next_node = n % bits + 1;
      b.pages[off] = b.pages[i], b.nodes[off++] = static_cast<int>(n % bits);
    }
    if (off == 0) continue;
    e = Sys6(SYS_move_pages, pid, off, reinterpret_cast<long>(b.pages), reinterpret_cast<long>(b.nodes),
             reinterpret_cast<long>(b.status), kMpolMfMove);
    if (e < 0) return e;
  }
  return 0;
}

}  // namespace

PagesMoved MovePrivatePages(pid_t pid, const uint64_t* nodes, uint32_t node_words, bool spread,
                            uint64_t budget) {
  PagesMoved r;
  long t0 = NowMs();
  bool any = false;
  for (uint32_t w = 0; w < node_words; ++w) any = any || nodes[w] != 0;
  if (!any) {
    r.error = -EINVAL;
    return r;
  }
  long map = Sys6(SYS_mmap, 0, kMap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (SysFailed(map)) {
    r.error = map;
    return r;
  }
  char* buf = reinterpret_cast<char*>(map);
  Range* ranges = reinterpret_cast<Range*>(buf + kBuf);
  Batch batch;
  batch.pages = reinterpret_cast<void**>(ranges + kMaxRanges);
  batch.nodes = reinterpret_cast<int*>(batch.pages + kBatch);
  batch.status = batch.nodes + kBatch;
  long page = pid == 0 ? 0 : static_cast<long>(getauxval(AT_PAGESZ));
  if (pid != 0 && page <= 0) page = 4096;  // no auxiliary vector: the smallest page there is
  uint32_t next_node = 0;
  size_t n = PrivateAnonymous(pid, buf, ranges, pid == 0 ? static_cast<uint64_t>(map) : 0);
  r.before_kb = OffNodes(pid, buf, ranges, n, nodes, node_words);
  uint64_t used = 0;
  for (size_t i = 0; i < n && r.before_kb > 0; ++i) {
    const Range& g = ranges[i];
    if (g.off_kb == 0) continue;
    if (used + g.off_kb * 1024 > budget) {
      r.over_budget = true;
      continue;
    }
    long e = pid == 0 ? MoveOwnRange(g, nodes, node_words, spread)
                      : MoveOthersRange(pid, g, nodes, node_words, page, batch, &next_node);
    if (e == 0) {
      used += g.off_kb * 1024;
      ++r.ranges;
    } else if (r.error == 0) {
      r.error = e;
    }
    if (e == -ESRCH) break;  // it exited
  }
  // What is left, measured: pages shared copy-on-write were not moved, whatever the kernel said.
  r.left_kb = r.ranges > 0 ? OffNodes(pid, buf, ranges, n, nodes, node_words) : r.before_kb;
  Sys6(SYS_munmap, map, static_cast<long>(kMap));
  r.ms = NowMs() - t0;
  return r;
}

}  // namespace numabind::base
