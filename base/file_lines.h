// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one reading of a text file line by line for every context (the library at exit, a rank becoming one,
// the command): raw system calls into the caller's buffer, as base/dir_entries.h reads a directory.

#ifndef NUMABIND_BASE_FILE_LINES_H_
#define NUMABIND_BASE_FILE_LINES_H_

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

#include "base/syscalls.h"

namespace numabind::base {

/// Reads `path` into buf (NUL-terminated, at most cap - 1 bytes): its length, 0 when it cannot. For sysfs
/// files of one line. Child-safe.
inline size_t ReadSmall(const char* path, char* buf, size_t cap) {
  long fd = Sys6(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), O_RDONLY | O_CLOEXEC);
  if (SysFailed(fd)) return 0;
  long got = Sys6(SYS_read, fd, reinterpret_cast<long>(buf), static_cast<long>(cap - 1));
  Sys6(SYS_close, fd);
  size_t n = got > 0 ? static_cast<size_t>(got) : 0;
  buf[n] = '\0';
  return n;
}

/// Sets in words[0..nwords) the bits of the Linux list `list` ("0-3,8\n"); members past them are left out.
/// Stops at the first character that is no digit, '-' or ','. Child-safe.
inline void AddListBits(const char* list, uint64_t* words, uint32_t nwords) {
  for (const char* p = list; *p >= '0' && *p <= '9';) {
    uint64_t a = 0, b;
    for (; *p >= '0' && *p <= '9'; ++p) a = a * 10 + static_cast<uint64_t>(*p - '0');
    b = a;
    if (*p == '-') {
      b = 0;
      for (++p; *p >= '0' && *p <= '9'; ++p) b = b * 10 + static_cast<uint64_t>(*p - '0');
    }
    for (uint64_t c = a; c <= b && c / 64 < nwords; ++c) words[c / 64] |= uint64_t{1} << (c % 64);
    if (*p == ',') ++p;
  }
}

/// Calls fn(line, len) for each line of `path` (without its newline), read through buf[0..cap), at most
/// max_bytes of it. A line longer than the buffer is skipped. Returns false when the file cannot be opened;
/// *cut is set when a line was skipped or the bound reached (the lines seen are then not all of it).
/// Child-safe when fn is.
template <typename Fn>
bool ForEachLine(const char* path, char* buf, size_t cap, uint64_t max_bytes, bool* cut, Fn fn) {
  long fd = Sys6(SYS_openat, AT_FDCWD, reinterpret_cast<long>(path), O_RDONLY | O_CLOEXEC);
  if (SysFailed(fd)) return false;
  size_t held = 0;    // bytes of an unfinished line at buf's start
  bool skip = false;  // the rest of a line longer than the buffer
  uint64_t read = 0;
  for (;;) {
    if (read >= max_bytes) {
      *cut = true;
      break;
    }
    long got = Sys6(SYS_read, fd, reinterpret_cast<long>(buf + held), static_cast<long>(cap - held));
    if (got == -EINTR) continue;
    if (got <= 0) break;
    read += static_cast<uint64_t>(got);
    size_t len = held + static_cast<size_t>(got), start = 0;
    for (size_t i = held; i < len; ++i) {
      if (buf[i] != '\n') continue;
      if (!skip) fn(static_cast<const char*>(buf + start), i - start);
      skip = false;
      start = i + 1;
    }
    held = len - start;
    if (held == cap) {  // one line fills the buffer
      *cut = true;
      skip = true;
      held = 0;
    } else {
      for (size_t i = 0; i < held; ++i) buf[i] = buf[start + i];
    }
  }
  Sys6(SYS_close, fd);
  return true;
}

}  // namespace numabind::base

#endif  // NUMABIND_BASE_FILE_LINES_H_
