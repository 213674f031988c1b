// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The affinity guard (affinity_guard.h): sched_setaffinity and pthread_setaffinity_np. Masks are handled as
// bytes, as the kernel reads them on little-endian machines (x86_64, aarch64: the only ones syscalls.h
// supports), so any cpusetsize works, not only multiples of 8.

#include "shim/rank/affinity_guard.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "shim/launcher/prepare.h"
#include "shim/log/line.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

using SchedSet = int (*)(pid_t, size_t, const cpu_set_t*);
using ThreadSet = int (*)(pthread_t, size_t, const cpu_set_t*);

int ResolveSched(pid_t pid, size_t size, const cpu_set_t* set);
int ResolveThread(pthread_t thread, size_t size, const cpu_set_t* set);
int GuardedSched(pid_t pid, size_t size, const cpu_set_t* set);
int GuardedThread(pthread_t thread, size_t size, const cpu_set_t* set);

/// Where the exported wrappers jump: a resolver until the first call, then the next definition (libc's,
/// in g_real: nullptr until resolved), or the guard in a guarded rank.
SchedSet g_sched = ResolveSched;
ThreadSet g_thread = ResolveThread;
bool g_armed;

/// The rank's CPUs (kMaxCpuWords words), mapped and written once by ArmAffinityGuard: 1 KiB in .bss would
/// push the library's writable data past its last file page, which costs every process an anonymous mmap.
uint64_t* g_rank_cpus;
constexpr size_t kRankCpusBytes = config::kMaxCpuWords * sizeof(uint64_t);
/// How many bytes of a mask the kernel reads (what sched_getaffinity returned, its cpumask size): it
/// ignores the rest, and so does the guard, which then looks at 8 bytes on a 64-CPU machine, not 1024.
size_t g_kernel_bytes;
int g_logged;
/// The process that armed the guard: a child (of fork or vfork, before its exec) does not log, since the
/// line's stack needs dlopen and a vfork child shares its parent's memory.
long g_armed_pid;

template <typename T>
T Next(T* slot, const char* name) {
  T f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (f == nullptr) {
    f = reinterpret_cast<T>(ResolveOne(name));  // keeps errno
    __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  }
  return f;
}

/// The first call in a process the guard does not arm: finds libc's function, and makes the wrapper jump
/// straight to it from now on (unless the guard was armed meanwhile).
int ResolveSched(pid_t pid, size_t size, const cpu_set_t* set) {
  SchedSet next = Next(NUMABIND_SLOT(sched_setaffinity));
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  SchedSet expected = ResolveSched;
  __atomic_compare_exchange_n(&g_sched, &expected, g_armed ? GuardedSched : next, false, __ATOMIC_ACQ_REL,
                              __ATOMIC_ACQUIRE);
  return __atomic_load_n(&g_sched, __ATOMIC_ACQUIRE)(pid, size, set);
}

int ResolveThread(pthread_t thread, size_t size, const cpu_set_t* set) {
  ThreadSet next = Next(NUMABIND_SLOT(pthread_setaffinity_np));
  if (next == nullptr) return ENOSYS;
  ThreadSet expected = ResolveThread;
  __atomic_compare_exchange_n(&g_thread, &expected, g_armed ? GuardedThread : next, false, __ATOMIC_ACQ_REL,
                              __ATOMIC_ACQUIRE);
  return __atomic_load_n(&g_thread, __ATOMIC_ACQUIRE)(thread, size, set);
}

enum class Narrowed : uint8_t { kSame, kNarrowed, kEmpty };

/// Async-signal-safe: out = the first `n` bytes of `set` and the rank's CPUs, a word at a time (memcpy of 8
/// bytes is one unaligned load: the caller's mask need not be aligned).
Narrowed Narrow(const cpu_set_t* set, size_t n, uint8_t* out) {
  const uint8_t* in = reinterpret_cast<const uint8_t*>(set);
  const uint8_t* rank = reinterpret_cast<const uint8_t*>(g_rank_cpus);
  uint64_t any = 0, changed = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t a, r;
    __builtin_memcpy(&a, in + i, 8);
    __builtin_memcpy(&r, rank + i, 8);
    uint64_t g = a & r;
    __builtin_memcpy(out + i, &g, 8);
    any |= g;
    changed |= g ^ a;
  }
  for (; i < n; ++i) {
    out[i] = in[i] & rank[i];
    any |= out[i];
    changed |= out[i] ^ in[i];
  }
  return any == 0 ? Narrowed::kEmpty : changed != 0 ? Narrowed::kNarrowed : Narrowed::kSame;
}

/// The first narrowing (or refusal) of this process, once, at NUMABIND_LOG=warn, with the caller's stack.
/// `target`: sched_setaffinity's pid, -1 for pthread_setaffinity_np's thread. Not inlined: its line and
/// stack are on the stack only now. The only part of the guard that is not async-signal-safe: the first
/// call loads libunwind (dlopen), as the debug log's stack does.
__attribute__((noinline)) void LogOnce(const char* fn, long target, const uint8_t* asked, const uint8_t* got,
                                       size_t n) {
  if (g_startup.config.log < config::LogLevel::kWarn || base::Sys6(SYS_getpid) != g_armed_pid) return;
  if (__atomic_exchange_n(&g_logged, 1, __ATOMIC_ACQ_REL) != 0) return;
  int saved_errno = errno;
  uint64_t a[config::kMaxCpuWords] = {0}, g[config::kMaxCpuWords] = {0};
  for (size_t i = 0; i < n; ++i) {
    a[i / 8] |= static_cast<uint64_t>(asked[i]) << (i % 8 * 8);
    if (got != nullptr) g[i / 8] |= static_cast<uint64_t>(got[i]) << (i % 8 * 8);
  }
  uint32_t words = static_cast<uint32_t>((n + 7) / 8);
  char stack[1024];
  CaptureStack(stack, sizeof(stack), true);
  Line l;
  l.Str("numabind: NUMABIND_GUARD=1: ").Str(fn).Str("(");
  if (target >= 0)
    l.Num(target);
  else
    l.Str("thread");
  l.Str(") asked for cpus ").Bits(a, words);
  if (got != nullptr)
    l.Str(", narrowed to cpus ").Bits(g, words);
  else
    l.Str(", refused (EINVAL): none of them is the rank's");
  l.Str(" (the rank's cpus ")
      .Bits(g_rank_cpus, config::kMaxCpuWords)
      .Str("; said once) pid ")
      .Num(base::Sys6(SYS_getpid));
  l.Str("\n").Str(stack);
  WriteLog(config::LogLevel::kWarn, &l);
  errno = saved_errno;
}

/// pid 0, this process, or one of its threads (tgkill with no signal finds tids of this thread group only).
bool OwnThread(pid_t pid) {
  if (pid == 0) return true;
  long self = base::Sys6(SYS_getpid);
  return pid == self || (pid > 0 && base::Sys6(SYS_tgkill, self, pid, 0) == 0);
}

int GuardedSched(pid_t pid, size_t size, const cpu_set_t* set) {
  SchedSet next = g_real.sched_setaffinity;  // resolved before arming
  if (set == nullptr || !OwnThread(pid)) return next(pid, size, set);
  size_t n = size < g_kernel_bytes ? size : g_kernel_bytes;
  uint8_t narrowed[n + 1];  // + 1: never a zero-length array
  switch (Narrow(set, n, narrowed)) {
    case Narrowed::kSame: return next(pid, size, set);
    case Narrowed::kEmpty:
      LogOnce("sched_setaffinity", pid, reinterpret_cast<const uint8_t*>(set), nullptr, n);
      errno = EINVAL;  // as the kernel answers a mask with no usable CPU
      return -1;
    case Narrowed::kNarrowed: break;
  }
  LogOnce("sched_setaffinity", pid, reinterpret_cast<const uint8_t*>(set), narrowed, n);
  return next(pid, n, reinterpret_cast<const cpu_set_t*>(narrowed));
}

int GuardedThread(pthread_t thread, size_t size, const cpu_set_t* set) {
  ThreadSet next = Next(NUMABIND_SLOT(pthread_setaffinity_np));  // resolved before arming, if it exists
  if (next == nullptr) return ENOSYS;
  if (set == nullptr) return next(thread, size, set);
  size_t n = size < g_kernel_bytes ? size : g_kernel_bytes;
  uint8_t narrowed[n + 1];
  switch (Narrow(set, n, narrowed)) {
    case Narrowed::kSame: return next(thread, size, set);
    case Narrowed::kEmpty:
      LogOnce("pthread_setaffinity_np", -1, reinterpret_cast<const uint8_t*>(set), nullptr, n);
      return EINVAL;
    case Narrowed::kNarrowed: break;
  }
  LogOnce("pthread_setaffinity_np", -1, reinterpret_cast<const uint8_t*>(set), narrowed, n);
  return next(thread, n, reinterpret_cast<const cpu_set_t*>(narrowed));
}

}  // namespace

NUMABIND_HOT void ArmAffinityGuard() {
  if (!g_startup.config.guard || !g_role.IsRank()) return;
  if (Next(NUMABIND_SLOT(sched_setaffinity)) == nullptr) return;
  Next(NUMABIND_SLOT(pthread_setaffinity_np));
  long map =
      base::Sys6(SYS_mmap, 0, kRankCpusBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(map)) return;  // no memory for the rank's CPUs: unguarded
  long got = base::Sys6(SYS_sched_getaffinity, 0, kRankCpusBytes, map);
  if (got <= 0) {  // cannot tell the rank's CPUs: unguarded
    base::Sys6(SYS_munmap, map, kRankCpusBytes);
    return;
  }
  g_rank_cpus = reinterpret_cast<uint64_t*>(map);
  g_kernel_bytes = static_cast<size_t>(got);
  g_armed_pid = base::Sys6(SYS_getpid);
  __atomic_store_n(&g_armed, true, __ATOMIC_RELEASE);
  __atomic_store_n(&g_sched, &GuardedSched, __ATOMIC_RELEASE);
  __atomic_store_n(&g_thread, &GuardedThread, __ATOMIC_RELEASE);
}

}  // namespace numabind::shim

#define NUMABIND_EXPORT extern "C" __attribute__((visibility("default")))

// One load and an indirect call (affinity_guard.h).
NUMABIND_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  return __atomic_load_n(&numabind::shim::g_sched, __ATOMIC_ACQUIRE)(pid, size, set);
}

NUMABIND_EXPORT int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t* set) {
  return __atomic_load_n(&numabind::shim::g_thread, __ATOMIC_ACQUIRE)(thread, size, set);
}
