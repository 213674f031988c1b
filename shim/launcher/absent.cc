// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What a plan made on NUMABIND_TOPOLOGY names that this machine lacks (shim/launcher/prepare.h: NoteAbsent).
// Found once, in the launcher, so that a rank's bind costs nothing more when the plan fits the machine.

#include <sys/mman.h>

#include "base/file_lines.h"
#include "base/syscalls.h"
#include "shim/launcher/prepare.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

constexpr size_t kPage = 4096;

/// Sets absent[0..words) to the bits of [0, words * 64) that the sysfs list at `path` lacks; when it cannot
/// be read, `fallback` ("0": a kernel without NUMA has node 0 only) is the list. Whether any is set.
bool NotIn(const char* path, const char* fallback, uint32_t words, char* buf, size_t cap, uint64_t* absent) {
  if (base::ReadSmall(path, buf, cap) == 0) {
    size_t i = 0;
    for (; fallback[i] != '\0'; ++i) buf[i] = fallback[i];
    buf[i] = '\0';
  }
  base::AddListBits(buf, absent, words);
  bool any = false;
  for (uint32_t w = 0; w < words; ++w) any = (absent[w] = ~absent[w]) != 0 || any;
  return any;
}

}  // namespace

void NoteAbsent(const plan::PlanBasis& basis) {
  uint32_t cw = basis.cpu_words, nw = basis.node_words;
  if (cw > config::kMaxCpuWords || nw > config::kMaxNodeWords) return;
  size_t sets = (size_t{cw} + nw) * sizeof(uint64_t);
  size_t size = (sets + kPage) & ~(kPage - 1);  // the sets, then at least 3 KiB to read sysfs into
  long map = base::Sys6(SYS_mmap, 0, static_cast<long>(size), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(map)) return;  // the rank's bind then says what the kernel says
  uint64_t* absent = reinterpret_cast<uint64_t*>(map);
  char* buf = reinterpret_cast<char*>(map) + sets;
  bool cpus = NotIn("/sys/devices/system/cpu/online", "0", cw, buf, size - sets, absent);
  bool nodes = NotIn("/sys/devices/system/node/online", "0", nw, buf, size - sets, absent + cw);
  if (cpus || nodes) {
    g_prepared.absent = absent;
  } else {
    base::Sys6(SYS_munmap, map, static_cast<long>(size));
  }
}

}  // namespace numabind::shim
