// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Raw system calls for the child side of a spawn (between fork/vfork and exec). libc's syscall() writes
// errno, which in a vfork child is the parent's thread's errno; these return -errno instead, as musl's
// internal calls do, and errno is set once, at the wrapper's boundary.

#ifndef NUMABIND_BASE_SYSCALLS_H_
#define NUMABIND_BASE_SYSCALLS_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

namespace numabind::base {

/// Child-safe: whether a raw call's result is an error (-4095..-1); any other value is a result, an mmap'd
/// address included (which may be negative as a long).
inline bool SysFailed(long r) { return r < 0 && r > -4096; }

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

// Raw calls in place of the C library functions whose symbol versions the loader would otherwise check in
// every process the library is preloaded into, whether it calls them or not (about 300 instructions each):
// openat, unlinkat and renameat (GLIBC_2.4), inotify_init1 (2.9), clock_gettime (2.17), stat, fstat and
// fstatat (2.33). What is left needs GLIBC_2.2.5, 2.16 (getauxval) and 2.34 (dlsym). Results as the C
// library's, except that a failure returns -errno and leaves errno alone.

/// Child-safe: `fd` itself when it is above 2 (or a failure), else a close-on-exec copy of it at 3 or above,
/// the original closed: a descriptor of the library must never become a program's standard input, output
/// or error, which a program started with one of them closed would get from the library's next open (and
/// its own writes to stderr would then go into the library's log file).
inline long AboveStdio(long fd) {
  if (fd < 0 || fd > 2) return fd;
  long copy = Sys6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
  Sys6(SYS_close, fd);
  return copy;
}

/// openat, never returning 0, 1 or 2 (AboveStdio); callers pass O_CLOEXEC.
inline int OpenAt(int dir, const char* path, int flags, int mode = 0) {
  return static_cast<int>(AboveStdio(Sys6(SYS_openat, dir, reinterpret_cast<long>(path), flags, mode)));
}
inline int FstatAt(int dir, const char* path, struct stat* st, int flags) {
  return static_cast<int>(
      Sys6(SYS_newfstatat, dir, reinterpret_cast<long>(path), reinterpret_cast<long>(st), flags));
}
inline int Fstat(int fd, struct stat* st) {
  return static_cast<int>(Sys6(SYS_fstat, fd, reinterpret_cast<long>(st)));
}
inline int UnlinkAt(int dir, const char* path, int flags) {
  return static_cast<int>(Sys6(SYS_unlinkat, dir, reinterpret_cast<long>(path), flags));
}
inline int RenameAt(int from_dir, const char* from, int to_dir, const char* to) {
#ifdef SYS_renameat
  return static_cast<int>(
      Sys6(SYS_renameat, from_dir, reinterpret_cast<long>(from), to_dir, reinterpret_cast<long>(to)));
#else  // aarch64 has renameat2 only
  return static_cast<int>(
      Sys6(SYS_renameat2, from_dir, reinterpret_cast<long>(from), to_dir, reinterpret_cast<long>(to), 0));
#endif
}
/// clock_gettime without the vDSO: a system call (a few hundred nanoseconds), for the rare waits and timings.
inline timespec ClockNow(clockid_t clock) {
  timespec ts{};
  Sys6(SYS_clock_gettime, clock, reinterpret_cast<long>(&ts));
  return ts;
}

}  // namespace numabind::base

#endif  // NUMABIND_BASE_SYSCALLS_H_
