// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe: ranks found by order (NUMABIND_MATCH). Command lines are joined with single spaces and
// globbed; the counter shared by the launcher's tree (order_counter.h) numbers them, or, without it, the
// launcher's live matching children, read from /proc (the lines said about them: order_notes.cc).
// Everything here may run between fork/vfork and exec: raw system calls and buffers on the stack, each in a
// function that is not inlined, so that a 16 KiB thread stack holds the deepest path.

#include <fcntl.h>
#include <sys/prctl.h>
#include <time.h>

#include "base/digits.h"
#include "base/dir_entries.h"
#include "base/hot.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "config/vars.h"
#include "shim/child/child.h"

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

/// Child-safe: 1 when the command line in `path`, that of process `pid` (0: the caller), matches
/// NUMABIND_MATCH, 0 when it does not or the process is gone, -1 when it is empty (a zombie's, or a process
/// between its exec and its new arguments).
__attribute__((noinline)) int MatchCmdline(const char* path, long pid) {
  const char* match = g_startup.config.match;
  if (match == nullptr || *match == '\0') return 0;
  char cmd[4096];
  long len = ReadSmallFile(path, cmd, sizeof(cmd));
  if (len < 0) return 0;
  if (len == 0) return -1;
  return ArgsMatch(cmd, len, cmd, pid) ? 1 : 0;
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
    int r = MatchCmdline(path, pid);
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
bool CmdlineMatches(const char* path) { return MatchCmdline(path, 0) == 1; }

namespace {

/// Child-safe: the name the kernel gave process `pid` (0: the caller) at its exec, into name (16 bytes): the
/// first 15 bytes of the last component of the file it ran, a script's own rather than its interpreter's;
/// "" when it cannot be read.
__attribute__((noinline)) void ProcessName(long pid, char* name) {
  name[0] = '\0';
  if (pid == 0) {
    base::Sys6(SYS_prctl, PR_GET_NAME, reinterpret_cast<long>(name));
    name[15] = '\0';
    return;
  }
  char path[64];
  const char* parts[] = {"/proc/", nullptr, "/comm"};
  ProcPath(path, parts, 3, &pid);
  long len = ReadSmallFile(path, name, 16);
  if (len > 0 && name[len - 1] == '\n') name[len - 1] = '\0';
  if (len < 0) name[0] = '\0';
}

/// Child-safe: whether the path `arg` names the file a process named `name` (ProcessName) ran.
bool NamesProcess(const char* arg, const char* name) {
  const char* last = base::LastComponent(arg);
  int n = 0;
  while (n < 15 && last[n] != '\0' && last[n] == name[n]) ++n;
  return n > 0 && name[n] == '\0' && (n == 15 || last[n] == '\0');
}

}  // namespace

// Child-safe: a copy into args, then the glob (twice at most) and, for a script, the process's name.
NUMABIND_HOT bool ArgsMatch(const char* from_args, long len, char* args, long pid) {
  const char* match = g_startup.config.match;
  if (match == nullptr || *match == '\0') return false;
  // The arguments end in NULs; joined with single spaces, as ArgvMatches joins an argv, in one pass.
  if (len > 0 && from_args[len - 1] == '\0') --len;
  // A glob that begins with '*' (the default one among them) matches every line whose tail it matches: the
  // whole line is all there is to glob (every configured process's start-up globs its own line this way).
  if (*match == '*') {
    for (long i = 0; i < len; ++i) args[i] = from_args[i] == '\0' ? ' ' : from_args[i];
    args[len] = '\0';
    return base::GlobMatch(match, args);
  }
  long ends[3] = {-1, -1, -1};  // where the first three arguments end
  int count = 0;
  for (long i = 0; i < len; ++i) {
    char c = from_args[i];
    if (c == '\0') {
      if (count < 3) ends[count++] = i;
      c = ' ';
    }
    args[i] = c;
  }
  args[len] = '\0';
  if (count < 3) ends[count] = len;
  if (base::GlobMatch(match, args)) return true;
  // A script runs as its interpreter: the kernel puts its #! line's "INTERPRETER [ARGUMENT]" before the
  // script's path and arguments, so a worker spawned as "/path/worker.sh 1" reads "/bin/sh /path/worker.sh
  // 1" once it runs. The line is globbed again from the script's path on: the second argument, or the third
  // when the second is an option (#!/usr/bin/python3 -u). Only when the process is that script: the kernel
  // names a process after the file it ran (a script's own name, its interpreter's when a shell runs it by
  // hand: "bash launch.sh ... /path/worker.sh" is no worker).
  if (count == 0) return false;
  int k = args[ends[0] + 1] == '-' && count >= 2 ? 1 : 0;  // the argument before the script's path
  long from = ends[k] + 1, to = ends[k + 1];
  if (from >= len || !base::GlobMatch(match, args + from)) return false;
  char name[16];
  ProcessName(pid, name);
  char kept = args[to];
  args[to] = '\0';
  bool script = NamesProcess(args + from, name);
  args[to] = kept;
  return script;
}

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
  return base::GlobMatch(g_startup.config.match, joined);
}

}  // namespace

// Child-safe: joins argv on the stack and globs it. Not inlined, so that its buffer is not in FindRank's
// frame while CountMatchingChildren runs. A command line that fits in 256 bytes (most) is joined in that
// much stack: in a fork child each page of stack written is a copy-on-write fault, and 4 KiB reached one
// more at every configured fork+exec.
NUMABIND_HOT __attribute__((noinline)) bool ArgvMatches(char* const* argv) {
  if (argv == nullptr || g_startup.config.match == nullptr || *g_startup.config.match == '\0') return false;
  size_t len = 0;
  for (int i = 0; argv[i] != nullptr && len < 256; ++i) len += base::StrLen(argv[i]) + 1;
  return len < 256 ? JoinedMatches<256>(argv) : JoinedMatches<4096>(argv);  // 255 characters at most
}

}  // namespace numabind::shim
