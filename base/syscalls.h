// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Raw system calls for the child side of a spawn (between fork/vfork and exec). libc's syscall() writes
// errno, which in a vfork child is the parent's thread's errno; these return -errno instead, as musl's
// internal calls do, and errno is set once, at the wrapper's boundary.

#ifndef NUMABIND_BASE_SYSCALLS_H_
#define NUMABIND_BASE_SYSCALLS_H_

#include <sys/syscall.h>

namespace numabind::shim {

/// Child-safe: one system call, result or -errno.
static inline long Sys6(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
#if defined(__x86_64__)
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return x0;
#else
#error "numabind: raw system calls are written for x86_64 and aarch64 only"
#endif
}

}  // namespace numabind::shim

#endif  // NUMABIND_BASE_SYSCALLS_H_
