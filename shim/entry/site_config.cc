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
#include "config/rank_entry.h"
#include "config/site_file.h"
#include "shim/entry/configure.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

extern char** environ;

namespace numabind::shim {
namespace {

/// The most a thread waits for another's reading: reading 16 KiB takes microseconds; a reader stopped
/// (SIGSTOP, a debugger) must not stop every other thread's spawns for longer.
constexpr long kSiteWaitNs = 2000000000;

/// The one door: reads the site file under `ours` (an environment's NUMABIND_* values, its
/// NUMABIND_CONFIG_FILE) and lays its values under g_startup.config (the reading is this thread's).
void ReadSite(const config::Ours& ours);

/// Whether the wrappers act, as another thread's reading left the role (an acquire load: its configuration
/// is there when it says so).
bool Acting() {
  __atomic_load_n(&g_role.kind, __ATOMIC_ACQUIRE);
  return g_role.Acts();
}

/// Marks the reading done and wakes the threads waiting for it.
void PublishSiteFile() {
  __atomic_store_n(&g_startup.site.state, 2, __ATOMIC_RELEASE);
  base::Sys6(SYS_futex, reinterpret_cast<long>(&g_startup.site.state), FUTEX_WAKE_PRIVATE, 0x7fffffff);
}

/// Takes the reading (0 -> 1) for this thread: true when it is this thread's to do.
bool TakeSiteFile() {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&g_startup.site.state, &expected, 1, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
    return false;
  __atomic_store_n(&g_startup.site.reader, static_cast<int>(base::Sys6(SYS_gettid)), __ATOMIC_RELAXED);
  return true;
}

/// Another thread reads the file: waits until it has applied it, so that no thread plans or prepares
/// with a configuration the file has not been applied to (a 16-thread launcher gave 128 of 1,600 ranks
/// `local` where the file said `interleave`). Not when this thread is the reader.
void WaitForSiteFile() {
  if (__atomic_load_n(&g_startup.site.state, __ATOMIC_ACQUIRE) != 1) return;
  if (__atomic_load_n(&g_startup.site.reader, __ATOMIC_RELAXED) == static_cast<int>(base::Sys6(SYS_gettid)))
    return;
  timespec start = base::ClockNow(CLOCK_MONOTONIC);
  while (__atomic_load_n(&g_startup.site.state, __ATOMIC_ACQUIRE) == 1) {
    timespec now = base::ClockNow(CLOCK_MONOTONIC);
    long waited = (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
    if (waited >= kSiteWaitNs) return;
    timespec slice{0, 10000000};  // 10 ms, then look at the clock again
    base::Sys6(SYS_futex, reinterpret_cast<long>(&g_startup.site.state), FUTEX_WAIT_PRIVATE, 1,
               reinterpret_cast<long>(&slice));
  }
}

/// "PATH: cannot map room for it (ENAME)" into err.
void CannotMap(config::Error* err, const char* path, long m) {
  char name[base::kErrnoSymbolMax];
  base::TextWriter w{err->text, sizeof(err->text), 0};
  w.Str(path).Str(": cannot map room for it (").Str(base::ErrnoSymbol(static_cast<int>(-m), name)).Str(")");
}

/// ActivateForRankSpawn's reading, with g_startup.site.state at 1: the configure step
/// (shim/entry/configure.h) of the launcher's environment now, with the site file under it; whether it
/// configures this process (then a launcher, as one configured at start-up is).
bool Activate() {
  if (getauxval(AT_SECURE) != 0) {
    PublishSiteFile();
    return false;
  }
  // It started without NUMABIND_POLICY, so none of its entries configured it then.
  EnvScan scan;
  ScanEnvironment(const_cast<const char* const*>(environ), &scan);
  if (!Configure(scan, true) || !g_startup.config.enabled) {
    PublishSiteFile();
    return false;
  }
  if (RankVarValue(scan, const_cast<const char* const*>(environ)) != nullptr)
    g_startup.rank_vars = config::kRankVarBit;
  EnsureResolved();  // the spawn that made it configured goes on as a launcher's
  BecomeLauncher();
  PublishSiteFile();  // after the role: a thread that waited sees a configured launcher
  return true;
}

}  // namespace

NUMABIND_HOT void ReadSiteNow(const config::Ours& ours) {
  // A late activation holds the reading already, and publishes it once it is a launcher (Activate).
  bool held =
      __atomic_load_n(&g_startup.site.state, __ATOMIC_ACQUIRE) == 1 &&
      __atomic_load_n(&g_startup.site.reader, __ATOMIC_RELAXED) == static_cast<int>(base::Sys6(SYS_gettid));
  if (!held && !TakeSiteFile()) return;
  ReadSite(ours);
  // At start-up: PublishSiteFile without its futex wake: no other thread can wait yet, and a waiter looks
  // again every 10 ms anyway (WaitForSiteFile).
  if (!held) __atomic_store_n(&g_startup.site.state, 2, __ATOMIC_RELEASE);
}

namespace {

NUMABIND_HOT void ReadSite(const config::Ours& ours) {
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
      g_startup.site.file = reinterpret_cast<config::SiteFile*>(m);
      if (!config::ReadSiteFd(fd, path, g_startup.site.file, &err)) g_startup.site.file->count = 0;
    }
  }
  if (err.text[0] != '\0') {
    Line l;
    l.Str("numabind: ").Str(err.text).Str(" (the file is ignored)");
    WriteSiteFileWarning(&l, true);
  }
  if (g_startup.site.file != nullptr) config::ApplySite(ours, *g_startup.site.file, &g_startup.config);
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
NUMABIND_HOT bool SiteFilePending() { return __atomic_load_n(&g_startup.site.state, __ATOMIC_ACQUIRE) != 2; }

bool ApplyPendingSiteFile() {
  if (!TakeSiteFile()) {  // read already, or another thread reads it: wait for it
    WaitForSiteFile();
    return Acting();
  }
  int saved_errno = errno;
  // Under the environment's NUMABIND_* values now: a process may change them after its start-up.
  ReadSite(config::OursOf(const_cast<const char* const*>(environ)));
  if (g_startup.config.disabled) __atomic_store_n(&g_role.kind, Role::kInert, __ATOMIC_RELEASE);
  PublishSiteFile();
  errno = saved_errno;
  return g_role.Acts();
}

bool ActivateForRankSpawn(char* const* envp) {
  int state = __atomic_load_n(&g_startup.site.state, __ATOMIC_ACQUIRE);
  if (state == 2 || envp == nullptr) return g_role.Acts();
  bool rank = false;
  for (char* const* p = envp; *p != nullptr && !rank; ++p) rank = config::IsRankEntry(*p);
  if (!rank) return false;
  int saved_errno = errno;  // the program's, which a wrapper leaves as it was
  if (!TakeSiteFile()) {    // another thread reads it: wait, then this spawn as the file made the process
    WaitForSiteFile();
    errno = saved_errno;
    return Acting();
  }
  bool active = Activate();
  errno = saved_errno;
  return active;
}

}  // namespace numabind::shim
