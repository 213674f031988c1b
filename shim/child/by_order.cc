// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe: ranks found by order (NUMABIND_MATCH). Command lines are joined with single spaces and
// globbed; the counter shared by the launcher's tree (order_counter.h) numbers them, or, without it, the
// launcher's live matching children, read from /proc. Everything here may
// run between fork/vfork and exec: raw system calls and buffers on the stack, each in a function that is
// not inlined, so that a 16 KiB thread stack holds the deepest path.

#include <fcntl.h>
#include <time.h>

#include "base/digits.h"
#include "base/dir_entries.h"
#include "base/hot.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "config/vars.h"
#include "shim/child/child.h"
#include "shim/child/pool_process.h"

namespace numabind::shim {
namespace {

/// Child-safe: reads a whole small file into buf (NUL-terminated); returns its length or -1.
long ReadSmallFile(const char* path, char* buf, long cap) {
  long fd = base::OpenAt(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  long len = 0;
  while (len < cap - 1) {
    long n = base::Sys6(SYS_read, fd, reinterpret_cast<long>(buf + len), cap - 1 - len);
    if (n <= 0) break;
    len += n;
  }
  base::Sys6(SYS_close, fd);
  buf[len] = '\0';
  return len;
}

/// Child-safe: a path such as "/proc/12/task/13/children" from its parts (numbers where a part is
/// nullptr, taken in order from nums), into buf (64 bytes).
void ProcPath(char* buf, const char* const* parts, int nparts, const long* nums) {
  size_t at = 0;
  for (int i = 0; i < nparts; ++i) {
    char digits[base::kDecimalMax];
    const char* text = parts[i];
    if (text == nullptr) {
      base::FormatDecimal(static_cast<unsigned long>(*nums++), digits);
      text = digits;
    }
    for (const char* p = text; *p != '\0' && at < 63; ++p) buf[at++] = *p;
  }
  buf[at] = '\0';
}

/// Child-safe: 1 when the command line in `path` matches NUMABIND_MATCH, 0 when it does not or the process
/// is gone, -1 when it is empty (a zombie's, or a process between its exec and its new arguments).
__attribute__((noinline)) int MatchCmdline(const char* path) {
  const char* match = g_state.config.match;
  if (match == nullptr || *match == '\0') return 0;
  char cmd[4096];
  long len = ReadSmallFile(path, cmd, sizeof(cmd));
  if (len < 0) return 0;
  if (len == 0) return -1;
  // The arguments end in NULs; joined with single spaces, as ArgvMatches joins an argv.
  if (cmd[len - 1] == '\0') --len;
  for (long i = 0; i < len; ++i) {
    if (cmd[i] == '\0') cmd[i] = ' ';
  }
  cmd[len] = '\0';
  return base::GlobMatch(match, cmd) ? 1 : 0;
}

/// Child-safe: whether process `pid` is a zombie (or gone), from the state in /proc/PID/stat.
__attribute__((noinline)) bool Finished(long pid) {
  char path[64], stat[256];
  const char* parts[] = {"/proc/", nullptr, "/stat"};
  ProcPath(path, parts, 3, &pid);
  long len = ReadSmallFile(path, stat, sizeof(stat));
  long paren = len - 1;
  while (paren >= 0 && stat[paren] != ')') --paren;  // "PID (COMM) S ...": COMM may hold ')'
  return paren < 0 || paren + 2 >= len || stat[paren + 2] == 'Z' || stat[paren + 2] == 'X';
}

/// Child-safe: whether live process `pid` runs a command that matches NUMABIND_MATCH. A zombie's command
/// line is empty: a finished worker frees its rank. So is that of a process just started by posix_spawn
/// or vfork, whose parent resumes before the kernel has set its new arguments: it is read again, for up to
/// 50 ms, until they are there.
__attribute__((noinline)) bool PidMatches(long pid) {
  char path[64];
  const char* parts[] = {"/proc/", nullptr, "/cmdline"};
  ProcPath(path, parts, 3, &pid);
  for (int attempt = 0; attempt < 50; ++attempt) {
    int r = MatchCmdline(path);
    if (r >= 0) return r == 1;
    if (Finished(pid)) return false;
    timespec ms{0, 1000000};
    base::Sys6(SYS_nanosleep, reinterpret_cast<long>(&ms), 0);
  }
  return false;
}

/// Child-safe: how many of the children listed in `path` (a /proc/P/task/T/children file: pids separated
/// by spaces) match NUMABIND_MATCH; read in small pieces.
__attribute__((noinline)) uint32_t CountListed(const char* path) {
  long fd = base::OpenAt(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint32_t count = 0;
  char chunk[256];
  long kept = 0;  // the digits of a pid the last read cut, moved to the front
  long n;
  while ((n = base::Sys6(SYS_read, fd, reinterpret_cast<long>(chunk + kept),
                         static_cast<long>(sizeof(chunk)) - kept)) >= 0) {
    const char* end = chunk + kept + n;
    const char* p = chunk;
    for (;;) {
      while (p < end && (*p < '0' || *p > '9')) ++p;
      const char* at = p;
      uint64_t pid = 0;
      if (base::ScanDecimal(&p, end, 1u << 30, &pid) == base::Digits::kNone) break;
      if (p == end && n > 0) {  // maybe cut: read again with its digits in front
        p = at;
        break;
      }
      if (pid > 0 && PidMatches(static_cast<long>(pid))) ++count;
    }
    kept = end - p;
    if (n == 0 || kept == static_cast<long>(sizeof(chunk))) break;
    for (long i = 0; i < kept; ++i) chunk[i] = p[i];
  }
  base::Sys6(SYS_close, fd);
  return count;
}

}  // namespace

// Child-safe: raw reads of /proc, pieces on the stack.
__attribute__((noinline)) uint32_t CountMatchingChildren(pid_t parent) {
  char path[64];
  long pid = parent;
  const char* task[] = {"/proc/", nullptr, "/task"};
  ProcPath(path, task, 3, &pid);
  long dir = base::OpenAt(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  uint32_t count = 0;
  base::ForEachDirEntry(dir, [&](const char* name) {
    if (name[0] < '0' || name[0] > '9') return;
    const char* parts[] = {"/proc/", nullptr, "/task/", name, "/children"};
    ProcPath(path, parts, 5, &pid);
    count += CountListed(path);
  });
  base::Sys6(SYS_close, dir);
  return count;
}

// Child-safe: one raw read into a buffer on the stack, then the glob.
bool CmdlineMatches(const char* path) { return MatchCmdline(path) == 1; }

namespace {

/// Child-safe: argv joined with single spaces into joined[cap] (cut at cap - 2 characters), then the glob.
template <size_t kCap>
NUMABIND_HOT __attribute__((noinline)) bool JoinedMatches(char* const* argv) {
  char joined[kCap];
  size_t len = 0;
  for (int i = 0; argv[i] != nullptr; ++i) {
    for (const char* s = argv[i]; *s != '\0' && len < kCap - 2; ++s) joined[len++] = *s;
    if (argv[i + 1] != nullptr && len < kCap - 2) joined[len++] = ' ';
  }
  joined[len] = '\0';
  return base::GlobMatch(g_state.config.match, joined);
}

}  // namespace

// Child-safe: joins argv on the stack and globs it. Not inlined, so that its buffer is not in FindRank's
// frame while CountMatchingChildren runs. A command line that fits in 256 bytes (most) is joined in that
// much stack: in a fork child each page of stack written is a copy-on-write fault, and 4 KiB reached one
// more at every configured fork+exec.
NUMABIND_HOT __attribute__((noinline)) bool ArgvMatches(char* const* argv) {
  if (argv == nullptr || g_state.config.match == nullptr || *g_state.config.match == '\0') return false;
  size_t len = 0;
  for (int i = 0; argv[i] != nullptr && len < 256; ++i) len += base::StrLen(argv[i]) + 1;
  return len < 256 ? JoinedMatches<256>(argv) : JoinedMatches<4096>(argv);  // 255 characters at most
}

// Child-safe: the glob, a flag in the shared page and a line on the stack.
void WarnOrderRankSpawn(const char* path, char* const* argv, pid_t launcher) {
  if (g_state.config.log < config::LogLevel::kWarn || !ArgvMatches(argv) ||
      !FirstInOrderTree(launcher, kOrderSaidGlob))
    return;
  Line l;
  l.Str("numabind: NUMABIND_MATCH='").Str(g_state.config.match).Str("' matches the launcher's own command ");
  l.Str("line (pid ").Num(launcher).Str(", a rank found by order) as well as its program ").Str(path);
  l.Str(": the launcher took a rank and no worker is bound; write a glob that matches only the workers' ");
  l.Str("command line from its start, e.g. '/path/worker.sh*' rather than '*worker.sh*' (docs/launchers.md)");
  WriteLog(config::LogLevel::kWarn, &l);
}

void CheckOrderCounter() {
  if (__atomic_exchange_n(&g_state.order_counter_checked, true, __ATOMIC_ACQ_REL)) return;
  const config::Config& c = g_state.config;
  bool forks = ForksTakeRanks();
  // The default glob (Python's spawn workers, which one launcher starts: counting its children suffices)
  // is in every configured process: only a glob the user wrote is worth a probe at each first fork.
  bool match = c.match != nullptr && *c.match != '\0' && c.match != config::kDefaultMatch;
  if ((!forks && !match) || c.log < config::LogLevel::kWarn) return;
  pid_t self = static_cast<pid_t>(base::Sys6(SYS_getpid));
  // Once per tree: its root says it, or for a pool the topmost Python (a shell may be the root; a
  // forkserver's parent is the pool's process, which said it).
  bool first = IsOrderTreeRoot(self) || (forks && !RunsPython(static_cast<pid_t>(base::Sys6(SYS_getppid))));
  if (!first || OrderCounterUsable(self)) return;
  Line l;
  if (forks) {
    l.Str("numabind: the children that ").Str(program_invocation_name ? program_invocation_name : "it");
    l.Str(" forks take no rank (NUMABIND_FORKS=ranks) and run unbound: ranks by order need the shared ");
    l.Str("counter, and there is none (");
  } else {
    l.Str(
        "numabind: ranks found by order (NUMABIND_MATCH) have no shared counter, so each launcher numbers ");
    l.Str("only its own live children and workers that subshells, xargs or GNU parallel start may take one ");
    l.Str("rank twice (");
  }
  if (c.shared == nullptr || *c.shared == '\0') {
    l.Str("NUMABIND_SHARED=off");
  } else {
    l.Str("no directory ").Str(c.shared).Str("/numabind-").Num(base::Sys6(SYS_geteuid));
    l.Str(" of this user's alone, mode 0700, or no /proc");
  }
  l.Str("); set NUMABIND_SHARED to a directory of the user's, such as /dev/shm (the default)");
  WriteLog(config::LogLevel::kWarn, &l);
}

// Child-safe: a flag in the shared page and a line on the stack.
void NoteUnknownCount(pid_t launcher) {
  if (g_state.config.log < config::LogLevel::kInfo || !FirstInOrderTree(launcher, kOrderSaidCount)) return;
  Line l;
  l.Str(g_state.config.fork_ranks ? "numabind: ranks found by order (NUMABIND_MATCH, NUMABIND_FORKS) have no "
                                  : "numabind: ranks found by order (NUMABIND_MATCH) have no ");
  l.Str("count: each is planned as one of as many ");
  l.Str(
      "ranks as the policy has places (nodes, devices or cores), rank r as rank r mod that; give the count ");
  l.Str("with numabind run --ranks N or NUMABIND_NRANKS=N");
  WriteLog(config::LogLevel::kInfo, &l);
}

}  // namespace numabind::shim
