// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file in the library (shim/entry/site_config.h): one read per process at most, into a buffer of
// its own (static: no allocation, and no cost to a process that never reads it but untouched .bss).

#include "shim/entry/site_config.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "base/text_writer.h"
#include "config/site_file.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

extern char** environ;

namespace numabind::shim {
namespace {

/// The site file, in pages mapped when there is one (16 KiB of .bss would cost every process the loader's
/// extra mapping at load), kept for the process's life: the configuration points into it.
config::SiteFile* g_site;
/// 0: not read; 1: a thread is reading it; 2: read (or looked for). Only ever goes up. A futex word:
/// threads that find it at 1 wait for 2 (WaitForSiteFile).
int g_site_state;
/// The thread that moved g_site_state to 1: it must never wait for itself (a signal handler on it that
/// forks, while it reads).
int g_site_reader;

/// The most a thread waits for another's reading: reading 16 KiB takes microseconds; a reader stopped
/// (SIGSTOP, a debugger) must not stop every other thread's spawns for longer.
constexpr long kSiteWaitNs = 2000000000;

/// Reads the site file under `ours` and applies it to g_state.config (the reading is this thread's).
void ReadSiteFile(const char* const* ours);

/// Marks the reading done and wakes the threads waiting for it.
void PublishSiteFile() {
  __atomic_store_n(&g_site_state, 2, __ATOMIC_RELEASE);
  base::Sys6(SYS_futex, reinterpret_cast<long>(&g_site_state), FUTEX_WAKE_PRIVATE, 0x7fffffff);
}

/// Takes the reading (0 -> 1) for this thread: true when it is this thread's to do.
bool TakeSiteFile() {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&g_site_state, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    return false;
  __atomic_store_n(&g_site_reader, static_cast<int>(base::Sys6(SYS_gettid)), __ATOMIC_RELAXED);
  return true;
}

/// Another thread reads the file: waits until it has applied it, so that no thread plans or prepares
/// with a configuration the file has not been applied to (a 16-thread launcher gave 128 of 1,600 ranks
/// `local` where the file said `interleave`). Not when this thread is the reader.
void WaitForSiteFile() {
  if (__atomic_load_n(&g_site_state, __ATOMIC_ACQUIRE) != 1) return;
  if (__atomic_load_n(&g_site_reader, __ATOMIC_RELAXED) == static_cast<int>(base::Sys6(SYS_gettid))) return;
  timespec start = base::ClockNow(CLOCK_MONOTONIC);
  while (__atomic_load_n(&g_site_state, __ATOMIC_ACQUIRE) == 1) {
    timespec now = base::ClockNow(CLOCK_MONOTONIC);
    long waited = (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
    if (waited >= kSiteWaitNs) return;
    timespec slice{0, 10000000};  // 10 ms, then look at the clock again
    base::Sys6(SYS_futex, reinterpret_cast<long>(&g_site_state), FUTEX_WAIT_PRIVATE, 1,
               reinterpret_cast<long>(&slice));
  }
}

/// The process's NUMABIND_* entries now (environ), NULL-terminated in `ours`, for Parse and ApplySite: a
/// process that reads the site file after its start-up may have changed its environment since. environ
/// itself when they are more than `ours` holds (state.h's kOursMax).
const char* const* OursNow(const char* (&ours)[kOursMax]) {
  const char* const* env = const_cast<const char* const*>(environ);
  int n = 0;
  for (const char* const* p = env; p != nullptr && *p != nullptr; ++p) {
    if (!base::StartsWith(*p, "NUMABIND_")) continue;
    if (n == kOursMax - 1) return env;
    ours[n++] = *p;
  }
  ours[n] = nullptr;
  return ours;
}

/// "PATH: cannot map room for it (ENAME)" into err.
void CannotMap(config::Error* err, const char* path, long m) {
  char name[base::kErrnoSymbolMax];
  base::TextWriter w{err->text, sizeof(err->text), 0};
  w.Str(path).Str(": cannot map room for it (").Str(base::ErrnoSymbol(static_cast<int>(-m), name)).Str(")");
}

/// ActivateForRankSpawn's reading, with g_site_state at 1: the site file under the launcher's environment;
/// whether it configures this process (then active, as a launcher configured at start-up is).
bool Activate() {
  if (getauxval(AT_SECURE) != 0) {
    PublishSiteFile();
    return false;
  }
  // It started without NUMABIND_POLICY, so none of its entries configured it then.
  const char* collected[kOursMax];
  const char* const* ours = OursNow(collected);
  if (!TakeConfiguration(ours)) {
    PublishSiteFile();
    return false;
  }
  ReadSiteFile(ours);
  if (!g_state.config.enabled) {
    PublishSiteFile();
    return false;
  }
  const char* rv = g_state.config.rank_var;
  if (rv != nullptr && config::Lookup(environ, rv) != nullptr)
    g_state.startup_rank_vars = config::kRankVarBit;
  EnsureResolved();  // the spawn that made it configured goes on as an active launcher's
  BecomeConfigured();
  PublishSiteFile();  // after active: a thread that waited sees a configured launcher
  return true;
}

}  // namespace

NUMABIND_HOT bool TakeConfiguration(const char* const* ours) {
  config::Error err;
  if (!config::Parse(ours, &g_state.config, &err)) {
    for (size_t i = 0; i < sizeof(g_state.config_error); ++i) g_state.config_error[i] = err.text[i];
    g_state.config_error[sizeof(g_state.config_error) - 1] = '\0';
  }
  if (g_state.config.disabled) return false;
  WriteConfigWarning(err.warning);
  return true;
}

NUMABIND_HOT void ApplySiteFile(const char* const* ours) {
  TakeSiteFile();  // at start-up, before any other thread: this thread's
  ReadSiteFile(ours);
  // PublishSiteFile without its futex wake: no other thread can wait yet, and a waiter looks again every
  // 10 ms anyway (WaitForSiteFile).
  __atomic_store_n(&g_site_state, 2, __ATOMIC_RELEASE);
}

namespace {

NUMABIND_HOT void ReadSiteFile(const char* const* ours) {
  const char* path = config::SiteFilePath(ours);
  config::Error err;
  int fd = path != nullptr ? config::OpenSiteFile(path, &err) : -1;
  if (fd >= 0) {
    long m = base::Sys6(SYS_mmap, 0, sizeof(config::SiteFile), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base::SysFailed(m)) {
      base::Sys6(SYS_close, fd);
      CannotMap(&err, path, m);
    } else {
      g_site = reinterpret_cast<config::SiteFile*>(m);
      if (!config::ReadSiteFd(fd, path, g_site, &err)) g_site->count = 0;
    }
  }
  if (err.text[0] != '\0') {
    Line l;
    l.Str("numabind: ").Str(err.text).Str(" (the file is ignored)");
    WriteSiteFileWarning(&l, true);
  }
  if (g_site != nullptr) config::ApplySite(ours, *g_site, &g_state.config);
  // An unknown name in a good file: the file applies without it, and the line says so (issue 26: a newer
  // version's variable must not switch a mixed cluster's binding off). Written after the file applied, to
  // the log it configures.
  if (err.text[0] == '\0' && err.warning[0] != '\0') {
    Line l;
    l.Str("numabind: ").Str(err.warning).Str("; ignored");
    WriteSiteFileWarning(&l, false);
  }
}

}  // namespace

// Not yet applied: unread (0) or being read by another thread (1), whose reading the caller must wait for.
NUMABIND_HOT bool SiteFilePending() { return __atomic_load_n(&g_site_state, __ATOMIC_ACQUIRE) != 2; }

bool ApplyPendingSiteFile() {
  if (!TakeSiteFile()) {  // read already, or another thread reads it: wait for it
    WaitForSiteFile();
    return __atomic_load_n(&g_state.active, __ATOMIC_ACQUIRE);
  }
  int saved_errno = errno;
  const char* collected[kOursMax];
  ReadSiteFile(OursNow(collected));
  if (g_state.config.disabled) __atomic_store_n(&g_state.active, false, __ATOMIC_RELEASE);
  PublishSiteFile();
  errno = saved_errno;
  return g_state.active;
}

bool ActivateForRankSpawn(char* const* envp) {
  int state = __atomic_load_n(&g_site_state, __ATOMIC_ACQUIRE);
  if (state == 2 || envp == nullptr) return g_state.active;
  bool rank = false;
  for (char* const* p = envp; *p != nullptr && !rank; ++p) rank = config::IsRankEntry(*p);
  if (!rank) return false;
  int saved_errno = errno;  // the program's, which a wrapper leaves as it was
  if (!TakeSiteFile()) {    // another thread reads it: wait, then this spawn as the file made the process
    WaitForSiteFile();
    errno = saved_errno;
    return __atomic_load_n(&g_state.active, __ATOMIC_ACQUIRE);
  }
  bool active = Activate();
  errno = saved_errno;
  return active;
}

}  // namespace numabind::shim
