// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Where a process's memory is, per NUMA node, from /proc/PID/numa_maps: what a rank's end event says
// (shim/rank/locality.h) and what `numabind show` prints. A rank's own memory is its private anonymous
// memory (heap, stacks, anonymous mappings: the lines with no file=); file pages (libraries, mapped files)
// are counted apart, since their page-cache copy belongs to whoever read them first. Raw system calls and the
// caller's memory only: the library reads its own at exit, which a signal handler's _exit may be.

#ifndef NUMABIND_BASE_NUMA_MAPS_H_
#define NUMABIND_BASE_NUMA_MAPS_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::base {

/// Nodes counted one by one; memory on a higher node is counted in `higher_kb`.
constexpr uint32_t kNumaMapsNodes = 64;

struct NodeMemory {
  uint64_t anon_kb[kNumaMapsNodes] = {};  ///< private anonymous memory on each node
  uint64_t file_kb[kNumaMapsNodes] = {};  ///< file-backed memory mapped by the process on each node
  uint64_t higher_kb = 0;                 ///< anonymous memory on nodes >= kNumaMapsNodes
  uint32_t mappings = 0;                  ///< lines read
  bool cut = false;  ///< stopped at the byte bound, or a line longer than the buffer: counts are partial

  uint64_t AnonKb() const;  ///< all private anonymous memory counted, higher_kb included
};

/// Child-safe: adds one line of numa_maps (n bytes, no newline): "ADDR POLICY [file=PATH|heap|stack|anon]
/// ... N0=PAGES N1=PAGES ... kernelpagesize_kB=K".
void AddNumaMapsLine(const char* line, size_t n, NodeMemory* out);

/// Child-safe: reads `path` (/proc/self/numa_maps, /proc/PID/numa_maps) into *out through buf[0..cap), at
/// most max_bytes of it (bounded cost: a process with many mappings is cut, and says so). False when it
/// cannot be opened (no NUMA support in the kernel, another user's process).
bool ReadNumaMaps(const char* path, NodeMemory* out, char* buf, size_t cap, uint64_t max_bytes);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_NUMA_MAPS_H_
