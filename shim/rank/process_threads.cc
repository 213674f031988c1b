// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Binding the threads a rank already has when it binds itself (shim/rank/process_threads.h): raw system calls
// on stack buffers, as everywhere in the constructor's path (no malloc before main).

#include "shim/rank/process_threads.h"

#include <errno.h>
#include <fcntl.h>

#include "base/dir_entries.h"
#include "base/syscalls.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

/// The most thread ids remembered, and walks made: a process starting threads faster than they are bound
/// (or with more threads than remembered) gets this many walks, each binding every thread it sees.
constexpr uint32_t kMaxSeen = 512;
constexpr int kMaxWalks = 16;

bool Seen(const int* seen, uint32_t n, int tid) {
  for (uint32_t i = 0; i < n; ++i) {
    if (seen[i] == tid) return true;
  }
  return false;
}

}  // namespace

int TidOf(const char* name) {
  int tid = 0;
  for (; *name >= '0' && *name <= '9'; ++name) tid = tid * 10 + (*name - '0');
  return *name == '\0' && tid > 0 ? tid : -1;
}

OtherThreads BindOtherThreads() {
  OtherThreads result;
  uint64_t cpus[config::kMaxCpuWords];
  long size = base::Sys6(SYS_sched_getaffinity, 0, sizeof(cpus), reinterpret_cast<long>(cpus));
  if (size <= 0) return result;
  int self = static_cast<int>(base::Sys6(SYS_gettid));
  int seen[kMaxSeen];
  uint32_t nseen = 0;
  bool found_new = true;
  for (int walk = 0; walk < kMaxWalks && found_new; ++walk) {
    found_new = false;
    long fd = base::OpenAt(AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return result;  // no /proc: the other threads keep their CPUs
    base::ForEachDirEntry(fd, [&](const char* name) {
      int tid = TidOf(name);
      if (tid < 0 || tid == self || Seen(seen, nseen, tid)) return;
      found_new = true;
      long r = base::Sys6(SYS_sched_setaffinity, tid, size, reinterpret_cast<long>(cpus));
      if (r == -ESRCH) return;        // it exited meanwhile
      if (nseen == kMaxSeen) return;  // bound, not counted: the next walk binds it again
      seen[nseen++] = tid;
      if (r == 0) {
        ++result.bound;
      } else if (result.failed++ == 0) {
        result.error = r;
      }
    });
    base::Sys6(SYS_close, fd);
  }
  return result;
}

void LogOtherThreads(const char* program, const OtherThreads& t, ThreadsFrom from) {
  if (t.bound == 0 && t.failed == 0) return;
  const config::Config& c = g_startup.config;
  bool memory = g_prepared.memory_policy_denied[0] == '\0' && c.memory != config::MemoryKind::kLocal;
  config::LogLevel level = memory || t.failed > 0 ? config::LogLevel::kWarn : config::LogLevel::kInfo;
  if (c.log < level) return;
  Line l;
  l.Str("numabind: ").Str(program).Str(" pid ").Num(base::Sys6(SYS_getpid)).Str(": ").Num(t.bound + t.failed);
  l.Str(t.bound + t.failed == 1 ? " thread" : " threads");
  l.Str(from == ThreadsFrom::kStartup ? " started before start-up (by a library's constructor): "
                                      : " started before it became a rank: ");
  l.Num(t.bound).Str(" moved to the rank's cpus");
  if (t.failed > 0) l.Str(", ").Num(t.failed).Str(" not (sched_setaffinity: errno ").Num(-t.error).Str(")");
  if (memory) {
    l.Str("; ").Str(t.bound + t.failed == 1 ? "it keeps its" : "they keep their").Str(" memory policy, not ");
    l.Str(config::MemoryName(c.memory)).Str(" (set_mempolicy sets the calling thread's only)");
  }
  size_t len = l.Finish();
  WriteLog(level, l.data(), len);
}

}  // namespace numabind::shim
