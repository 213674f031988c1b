// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// One preparation per machine and configuration, and the temporaries of writers that died (see
// basis_cache.h). Parent side: raw system calls and libc calls that do not allocate, errno left as the
// caller saved it; no signal blocked or handled, no thread, every descriptor closed before returning but
// the lock handed to the caller.

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/digits.h"
#include "base/dir_entries.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "config/grammar.h"
#include "shim/launcher/basis_cache.h"
#include "shim/launcher/stop_signals.h"
#include "shim/log/line.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

/// A temporary is written in well under a second; one older than this has no writer left (its pid may
/// since name another process, or live in another pid namespace).
constexpr long kStaleTempSeconds = 60;
/// A waiter looks again this often without an event (a shared directory whose file system sends none), and
/// every kPollMs when inotify is unavailable (the user's inotify instances used up).
constexpr int kRecheckMs = 250;
constexpr int kPollMs = 10;

long NowMs() {
  timespec ts = base::ClockNow(CLOCK_MONOTONIC);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

/// The writer's pid of a temporary named .basis-HASH.PID.NS, or 0 when `name` is not one.
long TemporaryWriter(const char* name) {
  static const char kPrefix[] = ".basis-";
  for (size_t i = 0; i < sizeof(kPrefix) - 1; ++i) {
    if (name[i] != kPrefix[i]) return 0;
  }
  const char* p = name + sizeof(kPrefix) - 1;
  for (int i = 0; i < 16; ++i, ++p) {
    if (!IsHex(*p)) return 0;
  }
  if (*p++ != '.') return 0;
  uint64_t pid = 0, ns = 0;
  if (base::ScanDecimal(&p, nullptr, 1u << 30, &pid) != base::Digits::kOk || *p++ != '.') return 0;
  if (base::ScanDecimal(&p, nullptr, ~0ull >> 5, &ns) == base::Digits::kNone || *p != '\0') return 0;
  return static_cast<long>(pid);
}

/// Opens (creating it) the configuration's lock file, lock-HASH: a regular file of the user's that no one
/// else can write, or -1.
int OpenLock(int dir, uint64_t name) {
  char file[] = "lock-0123456789abcdef";
  for (int i = 0; i < 16; ++i) file[5 + i] = "0123456789abcdef"[(name >> (60 - 4 * i)) & 15];
  int fd = base::OpenAt(dir, file, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  struct stat st;
  if (base::Fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 022) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/// An inotify descriptor that wakes on a file renamed into `dir` (a basis stored) and on a lock file
/// closed by a writer (its holder done, or dead); -1 when there is none to have.
int WatchDirectory(int dir) {
  int watch = static_cast<int>(base::Sys6(SYS_inotify_init1, IN_NONBLOCK | IN_CLOEXEC));
  if (watch < 0) return -1;
  char path[14 + base::kDecimalMax] =
      "/proc/self/fd/";  // the very directory opened and checked, not its name again
  base::FormatDecimal(static_cast<unsigned>(dir), path + 14);
  if (base::Sys6(SYS_inotify_add_watch, watch, reinterpret_cast<long>(path),
                 IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR) < 0) {
    close(watch);
    return -1;
  }
  return watch;
}

/// NUMABIND_LOG=debug: a wait begins, or ends without the basis. Not inlined: its line is on the stack
/// only here.
__attribute__((noinline)) void LogWait(const char* what, long ms) {
  Line l;
  l.Str("numabind: ").Str(what).Str(" NUMABIND_POLICY=").Str(g_startup.config.policy.text).Str(" (").Num(ms);
  l.Str(" ms, pid ").Num(base::Sys6(SYS_getpid)).Str(")");
  size_t len = l.Finish();
  WriteLog(config::LogLevel::kDebug, l.data(), len);
}

}  // namespace

PreparationLock::~PreparationLock() {
  if (fd >= 0) close(fd);  // releases the flock: the waiters' inotify sees the close
}

bool AwaitSharedBasis(const SharedKey& key, int timeout_ms, HelperRun* run, PreparationLock* lock) {
  if (LoadSharedBasis(key, run)) return true;
  int saved_errno = errno;
  int dir = OpenSharedDirectory();
  int fd = dir >= 0 ? OpenLock(dir, key.name) : -1;
  bool loaded = false, debug = g_startup.config.log >= config::LogLevel::kDebug;
  int watch = -1;
  bool watched = false;
  long start = NowMs();
  // A stop signal ends the wait at once, blocked or not (shim/launcher/stop_signals.h): the spawn then goes
  // on without the other process's basis, and the signal acts when the wrapper returns.
  StopWatch stop;
  if (fd >= 0) stop.Begin();
  while (fd >= 0) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      // This process prepares, unless the last holder stored the basis since it was looked for.
      loaded = LoadSharedBasis(key, run);
      if (!loaded) {
        lock->fd = fd;
        fd = -1;
      }
      break;
    }
    if (errno != EWOULDBLOCK) break;  // no locks on this file system (ENOLCK): prepare, as before
    if (!watched) {
      // Watch before looking again, so that a rename or release in between still wakes the wait.
      watch = WatchDirectory(dir);
      watched = true;
      if (debug) LogWait("waiting for another process preparing", timeout_ms);
    }
    if ((loaded = LoadSharedBasis(key, run))) break;
    long left = start + timeout_ms - NowMs();
    if (left <= 0) {
      // The holder is stuck or stopped: the bound is the helper's own, as if this process had run it.
      if (debug) LogWait("waited in vain for another process preparing", NowMs() - start);
      break;
    }
    if (stop.Pending() != 0) {  // the helper this process then starts is interrupted at once too
      if (debug) LogWait("a stop signal ended the wait for another process preparing", NowMs() - start);
      break;
    }
    long ms = watch >= 0 ? kRecheckMs : kPollMs;
    if (ms > left) ms = left;
    pollfd p[2] = {{watch, POLLIN, 0}, {stop.fd, POLLIN, 0}};
    int n = 0;
    if (watch >= 0) n = 1;
    if (stop.fd >= 0) p[n++] = {stop.fd, POLLIN, 0};
    timespec ts{ms / 1000, (ms % 1000) * 1000000L};
    long r = base::Sys6(SYS_ppoll, reinterpret_cast<long>(p), n, reinterpret_cast<long>(&ts), 0, 8);
    if (r == -EINTR) break;  // a handler ran: return to the host; this process prepares itself
    char events[512] __attribute__((aligned(8)));  // more than one event with the longest name
    while (watch >= 0 && read(watch, events, sizeof(events)) > 0) {
    }
  }
  stop.End();
  if (watch >= 0) close(watch);
  if (fd >= 0) close(fd);
  if (dir >= 0) close(dir);
  errno = saved_errno;
  return loaded;
}

void RemoveStaleTemporaries(int dir) {
  int list = base::OpenAt(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list < 0) return;
  timespec now = base::ClockNow(CLOCK_REALTIME);
  long self = base::Sys6(SYS_getpid);
  base::ForEachDirEntry(list, [&](const char* name) {
    long pid = TemporaryWriter(name);
    if (pid <= 0 || pid == self) return;
    struct stat st;
    bool dead = base::Sys6(SYS_kill, pid, 0) == -ESRCH;
    bool old = base::FstatAt(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               now.tv_sec - st.st_mtim.tv_sec > kStaleTempSeconds;
    if (dead || old) base::UnlinkAt(dir, name, 0);
  });
  close(list);
}

}  // namespace numabind::shim
