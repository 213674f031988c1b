// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Parent side: preparing the plan basis, once per launcher. Topology discovery (hwloc, libstdc++) runs in a
// helper process, `numabind prepare-basis`, found next to this library; the basis comes back over a pipe
// as one block. The launcher's address space stays as it was (no hwloc or libstdc++ mapped into it, so its
// later forks cost what they did), and a launcher's own hwloc can never clash with ours.

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/basis_frame.h"
#include "shim/basis_cache.h"
#include "shim/child.h"
#include "shim/guard.h"
#include "shim/syscalls.h"

extern char** environ;

namespace numabind::shim {
namespace {

void SetPrepareError(const char* a, const char* b = "", const char* c = "") {
  Line l;
  l.Str(a).Str(b).Str(c);
  const char* text = l.CStr();
  size_t n = l.size() < sizeof(g_state.prepare_error) - 1 ? l.size() : sizeof(g_state.prepare_error) - 1;
  memcpy(g_state.prepare_error, text, n);
  g_state.prepare_error[n] = '\0';
}

/// The planner helper: `numabind` next to this library (build tree) or in ../bin (installed).
bool FindHelper(char* path, size_t cap) {
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&FindHelper), &self) == 0 || self.dli_fname == nullptr) return false;
  const char* slash = strrchr(self.dli_fname, '/');
  size_t dir = slash != nullptr ? static_cast<size_t>(slash - self.dli_fname) + 1 : 0;
  static const char* const kPlaces[] = {"numabind", "../bin/numabind"};
  for (const char* rest : kPlaces) {
    if (dir + strlen(rest) + 1 > cap) return false;
    memcpy(path, self.dli_fname, dir);
    strcpy(path + dir, rest);
    if (access(path, X_OK) == 0) return true;
  }
  return false;
}

/// Runs the helper with its stdout on a pipe and returns everything it wrote (malloc'd), or nullptr.
char* RunHelper(const char* path, size_t* size) {
  const config::Config& c = g_state.config;
  const char* argv[12] = {path, "prepare-basis", "--policy", c.policy, "--memory", c.memory, "--devices",
                          c.devices};
  int argc = 8;
  if (c.topology != nullptr) {
    argv[argc++] = "--topology";
    argv[argc++] = c.topology;
  }
  argv[argc] = nullptr;
  // The helper sees the launcher's environment (CUDA_VISIBLE_DEVICES...), with the library switched off.
  size_t n = 0;
  while (environ != nullptr && environ[n] != nullptr) ++n;
  char** envp = static_cast<char**>(malloc((n + 2) * sizeof(char*)));
  if (envp == nullptr) return nullptr;
  // First: a variable's first entry is the one that counts, and the launcher may carry NUMABIND_DISABLE=0.
  envp[0] = const_cast<char*>("NUMABIND_DISABLE=1");
  for (size_t i = 0; i < n; ++i) envp[i + 1] = environ[i];
  envp[n + 1] = nullptr;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    free(envp);
    return nullptr;
  }
  // A raw clone with no exit signal: the launcher gets no SIGCHLD and its wait(-1) never reaps the helper
  // (only __WCLONE waits see it). The child runs raw system calls only, then execs.
  long pid = Sys6(SYS_clone, 0, 0, 0, 0, 0);
  if (pid == 0) {
    if (fds[1] == 1) Sys6(SYS_fcntl, 1, F_SETFD, 0);
    else Sys6(SYS_dup3, fds[1], 1, 0);
    Sys6(SYS_execve, reinterpret_cast<long>(path), reinterpret_cast<long>(argv), reinterpret_cast<long>(envp));
    Sys6(SYS_exit_group, 127);
  }
  close(fds[1]);
  free(envp);
  size_t cap = 4096, len = 0;
  char* buf = pid > 0 ? static_cast<char*>(malloc(cap)) : nullptr;
  while (buf != nullptr) {
    if (len == cap) {
      char* bigger = static_cast<char*>(realloc(buf, cap * 2));
      if (bigger == nullptr) break;
      buf = bigger;
      cap *= 2;
    }
    ssize_t got = read(fds[0], buf + len, cap - len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    len += static_cast<size_t>(got);
  }
  close(fds[0]);
  if (pid > 0) {
    int status = 0;
    while (Sys6(SYS_wait4, pid, reinterpret_cast<long>(&status), __WCLONE, 0) == -EINTR) {
    }
  }
  *size = len;
  return buf;
}

void LogOnce(const char* text) {
  Line l;
  l.Str("numabind: ").Str(text);
  size_t len = l.Finish();
  WriteLog(config::LogLevel::kWarn, l.data(), len);
}

void Prepare() {
  char path[4096];
  if (!FindHelper(path, sizeof(path))) {
    SetPrepareError("cannot find the planner helper `numabind` next to libnumabind.so or in ../bin");
    return;
  }
  timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  size_t size = 0;
  char* out = LoadSharedBasis(path, &size);  // shim/basis_cache.cc: another process prepared it
  bool shared = out != nullptr;
  if (shared) {  // in malloc'd memory, as RunHelper's answer: the paths below free() it
    char* copy = static_cast<char*>(malloc(size));
    if (copy != nullptr) memcpy(copy, out, size);
    ReleaseSharedBasis(out, size);
    out = copy;
  }
  if (out == nullptr) out = RunHelper(path, &size), shared = false;
  clock_gettime(CLOCK_MONOTONIC, &end);
  core::BasisFrameHeader header;
  if (out == nullptr || size < sizeof(header)) {
    SetPrepareError("the planner helper ", path, " failed to run");
    free(out);
    return;
  }
  memcpy(&header, out, sizeof(header));
  char* payload = out + sizeof(header);
  size_t length = size - sizeof(header);
  if (memcmp(header.tag, core::kErrorTag, sizeof(header.tag)) == 0 && header.length == length) {
    Line why;
    why.Str("cannot plan NUMABIND_POLICY=").Str(g_state.config.policy).Str(": ").Str(payload, length);
    SetPrepareError(why.CStr());
    free(out);
    return;
  }
  bool basis = memcmp(header.tag, core::kBasisTag, sizeof(header.tag)) == 0 && header.length == length;
  if (basis && !shared) StoreSharedBasis(path, out, size);
  if (!basis || !core::BasisFromOffsets(payload, length)) {
    SetPrepareError("the planner helper ", path, " answered with a malformed plan");
    free(out);
    return;
  }
  long r = Sys6(SYS_sched_getaffinity, 0, sizeof(g_state.launcher_cpus),
                reinterpret_cast<long>(g_state.launcher_cpus));
  g_state.launcher_cpu_words = r > 0 ? static_cast<uint32_t>(r / 8) : 0;
  // Containers often forbid set_mempolicy (EPERM): find out once, keep CPU binding, and say so once.
  int mode = 0;
  uint64_t nodes[kMaxNodeWords] = {0};
  if (Sys6(SYS_get_mempolicy, reinterpret_cast<long>(&mode), reinterpret_cast<long>(nodes), kMaxNodeWords * 64,
           0, 0) == 0 &&
      Sys6(SYS_set_mempolicy, mode, reinterpret_cast<long>(nodes), kMaxNodeWords * 64) == -EPERM) {
    g_state.memory_policy_denied = true;
    LogOnce("set_mempolicy: Operation not permitted (EPERM): ranks get their CPUs, memory policy unchanged");
  }
  g_state.basis = reinterpret_cast<const core::PlanBasis*>(payload);  // lives as long as the process
  if (g_state.config.log >= config::LogLevel::kDebug) {
    long us = (end.tv_sec - start.tv_sec) * 1000000L + (end.tv_nsec - start.tv_nsec) / 1000;
    Line l;
    l.Str("numabind: prepared NUMABIND_POLICY=").Str(g_state.config.policy).Str(" in ").Num(us / 1000).Str(".");
    l.Num(us % 1000 / 100).Num(us % 100 / 10).Str(shared ? " ms from the shared basis, not " : " ms by ").Str(path);
    l.Str(" prepare-basis (pid ").Num(Sys6(SYS_getpid)).Str(")");
    size_t len = l.Finish();
    WriteLog(config::LogLevel::kDebug, l.data(), len);
  }
}

}  // namespace

const core::PlanBasis* EnsurePrepared() {
  static int lock;  // plain int: a guarded static would pull in libstdc++
  while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE) != 0) Sys6(SYS_sched_yield);
  if (!g_state.prepared) {
    int saved_errno = errno;
    Guard guard;
    // A bad configuration is reported at each rank; there is nothing to plan with.
    if (g_state.config_error[0] == '\0') Prepare();
    errno = saved_errno;
    __atomic_store_n(&g_state.prepared, true, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
  return g_state.basis;
}

void CaptureStack() {
  using Backtrace = int (*)(void**, int);
  static Backtrace backtrace_fn;
  if (backtrace_fn == nullptr) {
    void* lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    backtrace_fn = lib ? reinterpret_cast<Backtrace>(dlsym(lib, "unw_backtrace")) : nullptr;
    if (backtrace_fn == nullptr) {
      strcpy(g_state.stack, "  (no call stack: libunwind.so.8 not found)");
      return;
    }
  }
  void* frames[24];
  int n = backtrace_fn(frames, 24);
  Line l;
  for (int i = 1; i < n; ++i) {  // frame 0 is CaptureStack itself
    Dl_info info;
    bool named = dladdr(frames[i], &info) != 0;
    l.Str(i > 1 ? "\n" : "").Str("  #").Num(i - 1).Str(" ");
    l.Str(named && info.dli_sname ? info.dli_sname : "?").Str(" (").Str(named ? info.dli_fname : "?").Str(")");
  }
  size_t n2 = l.size() < sizeof(g_state.stack) - 1 ? l.size() : sizeof(g_state.stack) - 1;
  memcpy(g_state.stack, l.CStr(), n2);
  g_state.stack[n2] = '\0';
}

}  // namespace numabind::shim
