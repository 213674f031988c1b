// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Parent side: preparing the plan basis, once per launcher. Topology discovery (hwloc, libstdc++) runs in a
// helper process, `numabind prepare-basis`, at the path compiled in (NUMABIND_HELPER_PATH); the basis comes
// back over a pipe as one block. The launcher's address space stays as it was (no hwloc or libstdc++ mapped
// into it, so its later forks cost what they did), and a launcher's own hwloc can never clash with ours.
// The helper is started and waited for as shim/launcher/helper_launch.h describes: the launcher never sees
// it. Preparing is async-signal-safe (mmap, raw system calls, no malloc or locks), because _Fork, which
// prepares, may be called from a signal handler. CaptureStack is not (dlopen, dladdr): it runs only at
// NUMABIND_LOG=debug, from fork and vfork (never _Fork) and the affinity guard's first narrowing.

#include "shim/launcher/prepare.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "base/syscalls.h"
#include "config/grammar.h"
#include "config/planner_inputs.h"
#include "plan/basis_frame.h"
#include "shim/launcher/basis_cache.h"
#include "shim/launcher/helper_launch.h"
#include "shim/launcher/launch_id.h"
#include "shim/log/log.h"
#include "shim/log/shared_mistake.h"
#include "shim/state/guard.h"
#include "shim/state/state.h"

#ifndef NUMABIND_HELPER_PATH
#error "NUMABIND_HELPER_PATH (the planner helper's absolute path) is set by the Makefile's HELPER_PATH"
#endif

extern char** environ;

namespace numabind::shim {
namespace {

/// The helper, compiled in: never looked up relative to this library or the current directory, which a
/// launcher that changes directory, or anyone who can write next to the library, would control.
constexpr char kHelperPath[] = NUMABIND_HELPER_PATH;
static_assert(kHelperPath[0] == '/', "HELPER_PATH must be an absolute path");

/// How long the helper may take (hwloc on the largest machines takes well under a second), and the most
/// it may write (a basis for 16384 CPUs and 4096 map entries is about 9 MB).
constexpr int kHelperTimeoutMs = 10000;
constexpr size_t kMaxBasisBytes = 16u << 20;

/// Writes the parts into g_prepared.error (cut to fit); `n` limits the fourth part's length.
void SetPrepareError(const char* a, const char* b = "", const char* c = "", const char* d = "",
                     size_t n = ~size_t{0}, const char* e = "") {
  const char* parts[] = {a, b, c, d, e};
  size_t at = 0, cap = sizeof(g_prepared.error) - 1;
  for (int i = 0; i < 5; ++i) {
    size_t limit = i == 3 ? n : ~size_t{0};
    for (size_t j = 0; parts[i][j] != '\0' && j < limit && at < cap; ++j)
      g_prepared.error[at++] = parts[i][j];
  }
  g_prepared.error[at] = '\0';
}

/// NUMABIND_LOG=debug: how long preparing took. Not inlined: its line is on the stack only here.
__attribute__((noinline)) void LogPrepared(long us, bool shared) {
  Line l;
  l.Str("numabind: prepared NUMABIND_POLICY=").Str(g_startup.config.policy.text);
  l.Str(" in ").Num(us / 1000).Str(".");
  l.Num(us % 1000 / 100).Num(us % 100 / 10).Str(shared ? " ms from the shared basis, not " : " ms by ");
  l.Str(kHelperPath).Str(" prepare-basis (pid ").Num(base::Sys6(SYS_getpid)).Str(")");
  WriteLog(config::LogLevel::kDebug, &l);
}

/// The most entries HelperEnvironmentOf gives the helper: NUMABIND_DISABLE=1, hwloc's, the three visibility
/// lists, LD_LIBRARY_PATH and the NULL.
static_assert(sizeof(Prepared::helper_env) / sizeof(char*) >=
                  1 + sizeof(config::EnvFacts::hwloc) / sizeof(char*) + 3 + 1 + 1,
              "room for the helper's environment");

/// The environment for the helper, from the environment's one pass `f` (config/env_facts.h), into env
/// (g_prepared.helper_env): the library switched off (NUMABIND_DISABLE=1: one loaded otherwise than by
/// LD_PRELOAD, /etc/ld.so.preload), the entries the planner reads (hwloc's HWLOC_*, the visibility lists
/// unless `all_devices`: PlannerReads) and LD_LIBRARY_PATH (the loader's, for a libhwloc that a module put
/// there). Not the launcher's whole environment: a rank's may be near the kernel's exec limit, and the
/// helper's arguments would tip it over (E2BIG). False when the pass kept fewer HWLOC_* entries than there
/// are (HelperEnvironment then walks the environment).
bool HelperEnvironmentOf(const config::EnvFacts& f, bool all_devices, const char** env) {
  size_t k = 0;
  env[k++] = "NUMABIND_DISABLE=1";
  if (f.hwloc_more) return false;
  for (int i = 0; i < f.hwloc_count; ++i) env[k++] = f.hwloc[i];
  const config::EnvNames& n = config::kEnvNames;
  const char* const lists[][2] = {{f.kept.cuda_visible_devices, n.cuda_visible_devices},
                                  {f.kept.rocr_visible_devices, n.rocr_visible_devices},
                                  {f.kept.hip_visible_devices, n.hip_visible_devices}};
  for (const auto& l : lists) {
    if (!all_devices && l[0] != nullptr) env[k++] = config::EntryOf(l[0], base::StrLen(l[1]));
  }
  if (f.ld_library_path != nullptr)
    env[k++] = config::EntryOf(f.ld_library_path, base::StrLen(n.ld_library_path));
  env[k] = nullptr;
  return true;
}

/// HelperEnvironmentOf of this process's environment now, in one pass. Not inlined: the pass is on the stack
/// only here, not while the helper runs (a thread's stack may be 16 KiB).
__attribute__((noinline)) bool HelperEnvironmentNow(bool all_devices, const char** env) {
  config::EnvFacts now;
  config::ScanEnvFacts(const_cast<const char* const*>(environ), &now);
  return HelperEnvironmentOf(now, all_devices, env);
}

/// HelperEnvironmentOf's entries walked from `environ`, for an environment with more HWLOC_* entries than
/// one pass keeps: mmap'd (no malloc: see the top of this file); the caller unmaps `*bytes`.
char** HelperEnvironment(bool all_devices, size_t* bytes) {
  size_t n = 0;
  while (environ != nullptr && environ[n] != nullptr) ++n;
  *bytes = (n + 2) * sizeof(char*);
  long p = base::Sys6(SYS_mmap, 0, static_cast<long>(*bytes), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(p)) return nullptr;
  char** envp = reinterpret_cast<char**>(p);
  // NUMABIND_DISABLE=1 for a library loaded otherwise than by LD_PRELOAD (/etc/ld.so.preload).
  size_t k = 0;
  envp[k++] = const_cast<char*>("NUMABIND_DISABLE=1");
  for (size_t i = 0; i < n; ++i) {
    if (PlannerReads(environ[i], all_devices) || strncmp(environ[i], "LD_LIBRARY_PATH=", 16) == 0)
      envp[k++] = environ[i];
  }
  envp[k] = nullptr;
  return envp;
}

/// Says once why ranks get no memory policy. Not inlined, as LogPrepared.
__attribute__((noinline)) void LogMemoryPolicyDenied(const char* why) {
  Line l;
  l.Str("numabind: set_mempolicy: ").Str(why[0] == 'k' ? "the calling process is " : "").Str(why);
  l.Str(": ranks get their CPUs, memory policy unchanged");
  WriteLog(config::LogLevel::kWarn, &l);
}

/// NUMABIND_MEMORY=near or weighted.
bool WantsTiers(const plan::PlanBasis& b) {
  return b.memory == config::MemoryKind::kNear || b.memory == config::MemoryKind::kWeighted;
}

/// Says once what near and weighted cannot do here: a machine without memory-only nodes (the ranks' own
/// nodes, at info), weighted interleave on a machine with accelerators (usually a loss: host memory that
/// feeds a device is best on the device's node). Not inlined, as LogPrepared.
__attribute__((noinline)) void LogTiers(const plan::PlanBasis& b) {
  Line l;
  l.Str("numabind: NUMABIND_MEMORY=").Str(config::MemoryName(b.memory)).Str(": ");
  if (!plan::HasTierNodes(b)) {
    l.Str("no memory-only node (HBM, CXL) on this machine: ranks use their own nodes");
    WriteLog(config::LogLevel::kInfo, &l);
  } else if (b.memory == config::MemoryKind::kWeighted && (b.tier_flags & plan::kTierGpus) != 0) {
    l.Str(
        "this machine has accelerators: interleaving the host memory that feeds one is usually slower "
        "than keeping it on the device's node");
    WriteLog(config::LogLevel::kWarn, &l);
  }
}

/// Whether this process runs under a seccomp filter (/proc/self/status "Seccomp:" other than 0). Only then
/// may set_mempolicy be refused or kill the caller, so only then must the helper's keeper try it first; a
/// process without one may take the shared basis. Raw reads in small pieces (small thread stacks).
bool SeccompFiltered() {
  int fd = static_cast<int>(base::OpenAt(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC));
  if (fd < 0) return true;  // cannot tell: let the keeper try
  static const char kKey[] = "\nSeccomp:\t";
  size_t matched = 0;
  int verdict = -1;
  char buf[256];
  long n;
  while (verdict < 0 && (n = base::Sys6(SYS_read, fd, reinterpret_cast<long>(buf), sizeof(buf))) > 0) {
    for (long i = 0; i < n && verdict < 0; ++i) {
      if (matched == sizeof(kKey) - 1)
        verdict = buf[i] != '0';
      else
        matched = buf[i] == kKey[matched] ? matched + 1 : buf[i] == '\n' ? 1 : 0;
    }
  }
  base::Sys6(SYS_close, fd);
  return verdict != 0;
}

void Prepare(const config::EnvFacts* facts, bool all_devices) {
  const config::Config& c = g_startup.config;
  timespec start = base::ClockNow(CLOCK_MONOTONIC);
  // What the planner reads of the environment: the caller's pass, or this process's environment now, in one.
  const char** fixed = g_prepared.helper_env;
  size_t env_bytes = 0;
  char** envp = const_cast<char**>(fixed);
  bool made = facts != nullptr ? HelperEnvironmentOf(*facts, all_devices, fixed)
                               : HelperEnvironmentNow(all_devices, fixed);
  if (!made && (envp = HelperEnvironment(all_devices, &env_bytes)) == nullptr) {
    SetPrepareError("cannot start the planner helper ", kHelperPath, ": out of memory");
    return;
  }
  HelperRun run;
  // Another process of this user prepared the same configuration on this machine, or is preparing it and
  // this one waits (shim/launcher/basis_cache.h). The lock, when this process got it, is released on return.
  PreparationLock lock;
  SharedKey key = SharedBasisKey(kHelperPath, envp);
  bool shared = !SeccompFiltered() && AwaitSharedBasis(key, kHelperTimeoutMs, &run, &lock);
  bool ran = shared;
  if (!shared) {
    const char* texts[config::kPlannerInputCount];
    config::PlannerInputTexts(c, texts);
    const char* argv[3 + 2 * config::kPlannerInputCount] = {kHelperPath, "prepare-basis"};
    int argc = 2 + config::PlannerInputArgs(texts, argv + 2);
    argv[argc] = nullptr;
    ran = RunHelper(kHelperPath, const_cast<char* const*>(argv), envp, kHelperTimeoutMs, kMaxBasisBytes, true,
                    &run);
  }
  if (env_bytes != 0) base::Sys6(SYS_munmap, reinterpret_cast<long>(envp), static_cast<long>(env_bytes));
  timespec end = base::ClockNow(CLOCK_MONOTONIC);
  plan::BasisFrameHeader header;
  if (!ran || run.size < sizeof(header)) {
    // Not there, or not a program: the path was fixed when the library was built.
    bool exec_failed = !ran && base::StartsWith(run.why, "exec ");
    SetPrepareError("the planner helper ", kHelperPath, " failed: ", ran ? "no answer" : run.why, ~size_t{0},
                    exec_failed ? "; rebuild or reinstall numabind, whose library runs that path" : "");
    FreeHelperOutput(&run);
    return;
  }
  memcpy(&header, run.out, sizeof(header));
  char* payload = run.out + sizeof(header);
  size_t length = run.size - sizeof(header);
  if (memcmp(header.tag, plan::kErrorTag, sizeof(header.tag)) == 0 && header.length == length) {
    SetPrepareError("cannot plan NUMABIND_POLICY=", c.policy.text, ": ", payload, length);
    FreeHelperOutput(&run);
    return;
  }
  bool basis = memcmp(header.tag, plan::kBasisTag, sizeof(header.tag)) == 0 && header.length == length;
  // Shared as it came: BasisFromOffsets turns the payload's offsets into this process's pointers.
  if (basis && !shared) StoreSharedBasis(key, run.out, run.size);
  if (!basis || !plan::BasisFromOffsets(payload, length)) {
    SetPrepareError("the planner helper ", kHelperPath, " answered with a malformed plan");
    FreeHelperOutput(&run);
    return;
  }
  long r = base::Sys6(SYS_sched_getaffinity, 0, sizeof(g_prepared.launcher_cpus),
                      reinterpret_cast<long>(g_prepared.launcher_cpus));
  g_prepared.launcher_cpu_words = r > 0 ? static_cast<uint32_t>(r / 8) : 0;
  // Containers often forbid set_mempolicy (EPERM), kernels without NUMA lack it (ENOSYS), and a seccomp
  // profile may kill on it: the helper's keeper tried it in a process of its own. Ranks then get their
  // CPUs only, and the launcher says so once.
  if (run.mempolicy[0] != '\0') {
    memcpy(g_prepared.memory_policy_denied, run.mempolicy, sizeof(g_prepared.memory_policy_denied));
    g_prepared.memory_policy_denied[sizeof(g_prepared.memory_policy_denied) - 1] = '\0';
    LogMemoryPolicyDenied(run.mempolicy);
  }
  g_prepared.basis =
      reinterpret_cast<const plan::PlanBasis*>(payload);  // mapped as long as the process lives
  if (c.topology != nullptr && c.topology[0] != '\0') NoteAbsent(*g_prepared.basis);
  if (WantsTiers(*g_prepared.basis)) LogTiers(*g_prepared.basis);
  long us = (end.tv_sec - start.tv_sec) * 1000000L + (end.tv_nsec - start.tv_nsec) / 1000;
  if (c.log >= config::LogLevel::kDebug) LogPrepared(us, shared);
}

}  // namespace

const plan::PlanBasis* EnsurePrepared(const config::EnvFacts* facts, bool all_devices) {
  // A lock that knows its owner: a signal handler's _Fork on the thread that is preparing, or a process
  // copied by a raw clone() while another thread prepared (the owner is not one of its threads), must not
  // wait for it forever. Both go on without a plan (their ranks run unbound, with a line).
  int& owner = g_prepared.preparing;
  if (__atomic_load_n(&g_prepared.done, __ATOMIC_ACQUIRE)) return g_prepared.basis;
  int self = static_cast<int>(base::Sys6(SYS_gettid));
  for (;;) {
    int held = 0;
    if (__atomic_compare_exchange_n(&owner, &held, self, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
    if (held == self || base::Sys6(SYS_tgkill, base::Sys6(SYS_getpid), held, 0) == -ESRCH)
      return g_prepared.basis;
    // Sleep, not spin: the helper the owner waits for needs the CPUs (16 threads yielding in a loop starved
    // it past its time limit in the 16-CPU guest). Woken when the owner is done; the owner is looked at
    // again every 10 ms.
    timespec nap = {0, 10L * 1000 * 1000};
    base::Sys6(SYS_futex, reinterpret_cast<long>(&owner), FUTEX_WAIT_PRIVATE, held,
               reinterpret_cast<long>(&nap));
  }
  if (!g_prepared.done) {
    int saved_errno = errno;
    Guard guard;
    NoteOwnLaunch();  // the ranks' lines name their launch, bound or not
    // A bad configuration leaves nothing to plan with; one of the ranks says it.
    if (g_startup.config_error[0] == '\0') Prepare(facts, all_devices);
    // A launcher's ranks would each say the same mistake: one of them says it.
    if (g_role.Acts() && g_prepared.basis == nullptr) ShareMistakeWord();
    // near and weighted fall back on an older kernel: one of the ranks says so (the page's next word).
    if (g_role.Acts() && g_prepared.basis != nullptr && WantsTiers(*g_prepared.basis)) {
      ShareMistakeWord();
      if (g_prepared.mistake_said != nullptr) g_prepared.memory_said = g_prepared.mistake_said + 1;
    }
    errno = saved_errno;
    __atomic_store_n(&g_prepared.done, true, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&owner, 0, __ATOMIC_RELEASE);
  base::Sys6(SYS_futex, reinterpret_cast<long>(&owner), FUTEX_WAKE_PRIVATE, 0x7fffffff);
  return g_prepared.basis;
}

namespace {

/// The line's text into out (cap bytes), cut to fit. A loop, not memcpy: no PLT call is added to the shim
/// for this (each import costs every preloaded process a relocation).
void CopyOut(char* out, size_t cap, Line& l) {
  const char* text = l.CStr();
  size_t i = 0;
  for (; i + 1 < cap && text[i] != '\0'; ++i) out[i] = text[i];
  out[i] = '\0';
}

}  // namespace

/// The debug stack's page: 4 KiB, of which CaptureStack writes kStackMax.
constexpr size_t kStackMax = 1024;

void CaptureStack() {
  if (g_prepared.stack == nullptr) {
    long page = base::Sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base::SysFailed(page)) return;
    g_prepared.stack = reinterpret_cast<char*>(page);
  }
  CaptureStack(g_prepared.stack, kStackMax, false);
}

void CaptureStack(char* out, size_t cap, bool callers_only) {
  using Backtrace = int (*)(void**, int);
  static Backtrace backtrace_fn;
  if (backtrace_fn == nullptr) {
    void* lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    backtrace_fn = lib ? reinterpret_cast<Backtrace>(dlsym(lib, "unw_backtrace")) : nullptr;
    if (backtrace_fn == nullptr) {
      Line none;
      none.Str("  (no call stack: libunwind.so.8 not found)");
      CopyOut(out, cap, none);
      return;
    }
  }
  Dl_info self;
  void* own_base =
      callers_only && dladdr(reinterpret_cast<void*>(&EnsurePrepared), &self) ? self.dli_fbase : nullptr;
  void* frames[24];
  int n = backtrace_fn(frames, 24);
  Line l;
  int shown = 0;
  for (int i = 1; i < n; ++i) {  // frame 0 is CaptureStack itself
    Dl_info info;
    bool named = dladdr(frames[i], &info) != 0;
    if (own_base != nullptr && named && info.dli_fbase == own_base) continue;
    l.Str(shown > 0 ? "\n" : "").Str("  #").Num(shown).Str(" ");
    ++shown;
    l.Str(named && info.dli_sname ? info.dli_sname : "?").Str(" (").Str(named ? info.dli_fname : "?");
    if (callers_only && named) {  // the offset in the file, for addr2line when the symbol is not exported
      char hex[20];
      int k = 0;
      for (uintptr_t v = reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(info.dli_fbase);
           v != 0 || k == 0; v >>= 4)
        hex[k++] = "0123456789abcdef"[v & 15];
      l.Str("+0x");
      while (k > 0) l.Str(&hex[--k], 1);
    }
    l.Str(")");
  }
  CopyOut(out, cap, l);
}

}  // namespace numabind::shim
