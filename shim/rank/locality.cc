// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Where a bound rank's memory and threads are when it ends (shim/rank/locality.h). Raw system calls into a
// mapping of its own: it runs at exit, in a destructor or an _exit a signal handler may call.

#include "shim/rank/locality.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>

#include "base/dir_entries.h"
#include "base/file_lines.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "plan/plan_basis.h"
#include "shim/rank/become_rank.h"
#include "shim/rank/process_threads.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

/// numa_maps is read at most this far: about 45,000 mappings (a 1 GiB rank with 10,000 takes 0.9 MB; Linux
/// allows 65,530 by default).
constexpr uint64_t kMaxNumaMapsBytes = 4ull << 20;
constexpr size_t kScratch = size_t{64} * 1024;  ///< the mapping: numa_maps' buffer, then sysfs reads

bool Has(const uint64_t* set, uint32_t words, uint64_t bit) {
  return bit / 64 < words && (set[bit / 64] >> (bit % 64) & 1) != 0;
}

/// Whether the Linux list `list` ("0-3,8\n") has a CPU of `set`.
bool ListMeets(const char* list, const uint64_t* set, uint32_t words) {
  uint64_t listed[words];  // NOLINT: the rank's CPU words, 1 or 2 on most machines
  for (uint32_t w = 0; w < words; ++w) listed[w] = 0;
  base::AddListBits(list, listed, words);
  for (uint32_t w = 0; w < words; ++w) {
    if ((listed[w] & set[w]) != 0) return true;
  }
  return false;
}

/// `prefix`, the decimal number `n`, then `suffix`, in out (NUL-terminated).
void PathOf(const char* prefix, long n, const char* suffix, char* out) {
  while (*prefix != '\0') *out++ = *prefix++;
  out += base::FormatDecimal(static_cast<uint64_t>(n), out);
  while (*suffix != '\0') *out++ = *suffix++;
  *out = '\0';
}

/// The rank's planned nodes: those whose CPUs meet its CPUs, and those of the calling thread's memory
/// policy (bind, interleave, preferred, and the tiers' memory-only nodes).
void PlannedNodes(const uint64_t* cpus, uint32_t words, char* buf, size_t cap, uint64_t nodes[2]) {
  long fd = base::OpenAt(AT_FDCWD, "/sys/devices/system/node", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    base::ForEachDirEntry(fd, [&](const char* name) {
      if (name[0] != 'n' || name[1] != 'o' || name[2] != 'd' || name[3] != 'e') return;
      long n = 0;
      const char* p = name + 4;
      for (; *p >= '0' && *p <= '9'; ++p) n = n * 10 + (*p - '0');
      if (*p != '\0' || p == name + 4 || n >= 128) return;
      char path[96];
      PathOf("/sys/devices/system/node/node", n, "/cpulist", path);
      if (base::ReadSmall(path, buf, cap) > 0 && ListMeets(buf, cpus, words))
        nodes[n / 64] |= uint64_t{1} << (n % 64);
    });
    base::Sys6(SYS_close, fd);
  }
  int mode = 0;
  uint64_t policy[16] = {};
  if (base::Sys6(SYS_get_mempolicy, reinterpret_cast<long>(&mode), reinterpret_cast<long>(policy), 16L * 64,
                 0, 0) == 0 &&
      mode != 0) {
    nodes[0] |= policy[0], nodes[1] |= policy[1];
  }
}

/// The threads of this process with a CPU outside `cpus`: counted, the first kNamedOutside named.
void ThreadsOutside(const uint64_t* cpus, uint32_t words, Locality* out) {
  long fd = base::OpenAt(AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  base::ForEachDirEntry(fd, [&](const char* name) {
    long tid = TidOf(name);
    if (tid < 0) return;
    uint64_t has[config::kMaxCpuWords] = {};
    long got = base::Sys6(SYS_sched_getaffinity, tid, sizeof(has), reinterpret_cast<long>(has));
    if (got <= 0) return;  // gone meanwhile
    ++out->threads;
    bool outside = false;
    for (uint32_t w = 0; w < static_cast<uint32_t>(got / 8); ++w) {
      uint64_t mine = w < words ? cpus[w] : 0;
      outside = outside || (has[w] & ~mine) != 0;
    }
    if (!outside) return;
    if (out->outside < kNamedOutside) {
      OutsideThread& t = out->named[out->outside];
      t.tid = static_cast<int>(tid);
      char path[64];
      PathOf("/proc/self/task/", tid, "/comm", path);
      size_t n = base::ReadSmall(path, t.name, sizeof(t.name));
      if (n > 0 && t.name[n - 1] == '\n') t.name[n - 1] = '\0';
      plan::FormatBitList(has, static_cast<uint32_t>(got / 8), t.cpus, sizeof(t.cpus));
    }
    ++out->outside;
  });
  base::Sys6(SYS_close, fd);
}

}  // namespace

void MeasureLocality(Locality* out) {
  uint32_t words = 0;
  const uint64_t* cpus = PlannedCpus(&words);
  if (!g_startup.config.locality || cpus == nullptr) return;
  long map = base::Sys6(SYS_mmap, 0, kScratch, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(map)) return;
  char* buf = reinterpret_cast<char*>(map);
  out->measured = base::ReadNumaMaps("/proc/self/numa_maps", &out->memory, buf, kScratch, kMaxNumaMapsBytes);
  PlannedNodes(cpus, words, buf, kScratch, out->nodes);
  uint64_t most = 0;
  for (uint32_t n = 0; n < base::kNumaMapsNodes; ++n) {
    uint64_t kb = out->memory.anon_kb[n];
    if (Has(out->nodes, 2, n)) {
      out->local_kb += kb;
    } else if (kb > most) {
      most = kb;
      out->most_remote = n;
    }
  }
  ThreadsOutside(cpus, words, out);
  base::Sys6(SYS_munmap, map, kScratch);
}

}  // namespace numabind::shim
