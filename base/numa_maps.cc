// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, raw system calls): no allocation.

#include "base/numa_maps.h"

#include "base/file_lines.h"

namespace numabind::base {
namespace {

/// Child-safe: whether the word [w, end) begins with `prefix`.
bool Begins(const char* w, const char* end, const char* prefix) {
  for (; *prefix != '\0'; ++w, ++prefix) {
    if (w == end || *w != *prefix) return false;
  }
  return true;
}

/// Child-safe: the decimal number at [w, end), or ~0 when there is none.
uint64_t Number(const char* w, const char* end) {
  if (w == end || *w < '0' || *w > '9') return ~uint64_t{0};
  uint64_t v = 0;
  for (; w != end && *w >= '0' && *w <= '9'; ++w) v = v * 10 + static_cast<uint64_t>(*w - '0');
  return v;
}

}  // namespace

uint64_t NodeMemory::AnonKb() const {
  uint64_t all = higher_kb;
  for (uint64_t kb : anon_kb) all += kb;
  return all;
}

// Child-safe: parses the caller's line.
void AddNumaMapsLine(const char* line, size_t n, NodeMemory* out) {
  const char* end = line + n;
  bool file = false;
  uint64_t page_kb = 4;
  // The page counts come before kernelpagesize_kB: held until it is known (a huge page is not 4 KiB).
  uint32_t nodes[kNumaMapsNodes + 1];
  uint64_t pages[kNumaMapsNodes + 1];
  uint32_t count = 0;
  for (const char* w = line; w < end;) {
    while (w < end && *w == ' ') ++w;
    const char* e = w;
    while (e < end && *e != ' ') ++e;
    if (Begins(w, e, "file=")) {
      file = true;
    } else if (Begins(w, e, "kernelpagesize_kB=")) {
      uint64_t k = Number(w + 18, e);
      if (k != ~uint64_t{0}) page_kb = k;
    } else if (e - w > 2 && *w == 'N' && w[1] >= '0' && w[1] <= '9') {
      const char* eq = w + 1;
      while (eq < e && *eq != '=') ++eq;
      uint64_t node = Number(w + 1, eq), p = eq < e ? Number(eq + 1, e) : ~uint64_t{0};
      if (node != ~uint64_t{0} && p != ~uint64_t{0} && count <= kNumaMapsNodes) {
        nodes[count] = node < kNumaMapsNodes ? static_cast<uint32_t>(node) : kNumaMapsNodes;
        pages[count++] = p;
      }
    }
    w = e;
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t kb = pages[i] * page_kb;
    if (nodes[i] == kNumaMapsNodes) {
      if (!file) out->higher_kb += kb;
    } else {
      (file ? out->file_kb : out->anon_kb)[nodes[i]] += kb;
    }
  }
  ++out->mappings;
}

// Child-safe: raw system calls into the caller's buffer.
bool ReadNumaMaps(const char* path, NodeMemory* out, char* buf, size_t cap, uint64_t max_bytes) {
  return ForEachLine(path, buf, cap, max_bytes, &out->cut,
                     [out](const char* line, size_t n) { AddNumaMapsLine(line, n, out); });
}

}  // namespace numabind::base
