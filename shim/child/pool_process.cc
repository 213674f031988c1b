// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "shim/child/pool_process.h"

#include <fcntl.h>

#include "base/command_name.h"
#include "base/syscalls.h"
#include "base/text.h"

namespace numabind::shim {

// Child-safe: raw readlinkat, buffers on the stack.
bool RunsPython(pid_t pid) {
  char path[32] = "/proc/self/exe";
  if (pid != 0) {
    char digits[base::kDecimalMax];
    base::FormatDecimal(static_cast<unsigned long>(pid), digits);
    size_t at = sizeof("/proc/") - 1;
    for (const char* d = digits; *d != '\0'; ++d) path[at++] = *d;
    for (const char* s = "/exe"; *s != '\0'; ++s) path[at++] = *s;
    path[at] = '\0';
  }
  char exe[4096];
  long len = base::Sys6(SYS_readlinkat, AT_FDCWD, reinterpret_cast<long>(path), reinterpret_cast<long>(exe),
                        sizeof(exe) - 1);
  if (len <= 0) return false;
  exe[len] = '\0';
  // An interpreter replaced on disk since it started (a package upgrade) reads "PATH (deleted)".
  constexpr char kDeleted[] = " (deleted)";
  constexpr long kDeletedLen = sizeof(kDeleted) - 1;
  if (len > kDeletedLen) {
    bool deleted = true;
    for (long i = 0; i < kDeletedLen && deleted; ++i) deleted = exe[len - kDeletedLen + i] == kDeleted[i];
    if (deleted) exe[len - kDeletedLen] = '\0';
  }
  return base::IsPythonName(exe);
}

bool FindForksPython() {
  bool python = RunsPython(0);
  __atomic_store_n(&g_prepared.forks_python, python ? 1 : 2, __ATOMIC_RELEASE);  // racing threads store alike
  return python;
}

}  // namespace numabind::shim
