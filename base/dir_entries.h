// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one reading of a directory's entries for every context (the child side included): raw getdents64
// into a buffer on the stack, as neither opendir (malloc) nor glibc's struct linux_dirent64 may be used
// there.

#ifndef NUMABIND_BASE_DIR_ENTRIES_H_
#define NUMABIND_BASE_DIR_ENTRIES_H_

#include <stdint.h>

#include "base/syscalls.h"

namespace numabind::base {

/// Calls fn(name) for each entry of the directory open at `fd`, from its offset: raw getdents64 into a
/// 1 KiB buffer on the stack, records walked by their length. Child-safe when fn is.
template <typename Fn>
void ForEachDirEntry(long fd, Fn fn) {
  struct Record {  // the kernel's struct linux_dirent64
    uint64_t ino;
    int64_t off;
    uint16_t reclen;
    uint8_t type;
    char name[1];
  };
  alignas(8) char buf[1024] = {0};  // filled by a raw call the analyzer cannot see into
  long n;
  while ((n = Sys6(SYS_getdents64, fd, reinterpret_cast<long>(buf), sizeof(buf))) > 0) {
    for (long at = 0; at < n;) {
      const Record* e = reinterpret_cast<const Record*>(buf + at);
      if (e->reclen == 0) return;
      at += e->reclen;
      fn(static_cast<const char*>(e->name));
    }
  }
}

}  // namespace numabind::base

#endif  // NUMABIND_BASE_DIR_ENTRIES_H_
