// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run before main): no allocation, no stdio, raw system calls.

#include "config/site_file.h"

#include <errno.h>
#include <fcntl.h>

#include "base/hot.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "base/text_writer.h"

namespace numabind::config {
namespace {

using base::StartsWith;
using base::Sys6;

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/// "PATH:LINE: " (LINE 0: "PATH: ") then `what` into err.
void Fail(Error* err, const char* path, uint32_t line, const char* what) {
  base::TextWriter w{err->text, sizeof(err->text), 0};
  err->text[0] = '\0';
  w.Str(path);
  if (line != 0) w.Put(':'), w.Uint(line);
  w.Str(": ").Str(what);
}

/// The first '\n' or NUL in [p, end), or end: eight bytes a step (a byte loop cost 8 instructions a byte:
/// 8,000 for the packaged file of comments, read by every process of a rank).
char* LineEnd(char* p, char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  auto zero_byte = [](uint64_t w) { return (w - kOnes) & ~w & kHighs; };
  while (end - p >= 8) {
    uint64_t w;
    __builtin_memcpy(&w, p, 8);
    if ((zero_byte(w) | zero_byte(w ^ (kOnes * '\n'))) != 0) break;
    p += 8;
  }
  while (p < end && *p != '\n' && *p != '\0') ++p;
  return p;
}

/// Reads the open file `fd` into site->text and closes it: its length, or -errno; kSiteFileMax + 1 when it
/// is larger than kSiteFileMax.
long ReadAll(int fd, SiteFile* site) {
  long n = 0, r = 0;
  while (n <= static_cast<long>(kSiteFileMax)) {
    r = Sys6(SYS_read, fd, reinterpret_cast<long>(site->text + n), static_cast<long>(kSiteFileMax) + 1 - n);
    if (r == -EINTR) continue;
    if (r <= 0) break;
    n += r;
  }
  Sys6(SYS_close, fd);
  if (r < 0) return r;
  return n;
}

/// "cannot read it (ENAME)" for -errno `n`.
void CannotRead(Error* err, const char* path, long n) {
  char name[base::kErrnoSymbolMax];
  Error e;
  base::TextWriter w{e.text, sizeof(e.text), 0};
  w.Str("cannot read it (").Str(base::ErrnoSymbol(static_cast<int>(-n), name)).Str(")");
  Fail(err, path, 0, e.text);
}

/// Copies the NUL-terminated `from` into an Error's field `to`.
template <size_t N>
void Copy(char (&to)[N], const char* from) {
  size_t i = 0;
  for (; i + 1 < N && from[i] != '\0'; ++i) to[i] = from[i];
  to[i] = '\0';
}

/// Checks one variable line (`s`, trimmed, NUL-terminated) and keeps it in `site`; false with err->text
/// set. An unknown NUMABIND_* name is no error: true, the line not kept, its warning ("PATH:LINE: NAME is not
/// a numabind variable (did you mean ...?)") in err->warning and told to the listener.
bool TakeLine(const char* path, uint32_t line, char* s, SiteFile* site, Error* err,
              const SiteListener* listener) {
  char* eq = s;
  while (*eq != '\0' && *eq != '=') ++eq;
  if (!StartsWith(s, kVarPrefix) || *eq != '=') {
    Error e;
    base::TextWriter w{e.text, sizeof(e.text), 0};
    w.Str(s).Str(": expected NUMABIND_NAME=value (no quotes, no export; comments on lines of their own)");
    Fail(err, path, line, e.text);
    return false;
  }
  int id = FindVar(s, static_cast<size_t>(eq - s));
  Error e;
  if (id < 0) {  // a newer version's variable or a typo: warned about, ignored (issue 26)
    UnknownVar(s, e.warning, sizeof(e.warning));
    Fail(&e, path, line, e.warning);
    Copy(err->warning, e.text);
    if (listener != nullptr) listener->tell(listener->ctx, false, e.text);
    return true;
  }
  if (id == kVarConfigFile || id == kVarBound) {
    base::TextWriter w{e.text, sizeof(e.text), 0};
    w.Str(s).Str(id == kVarBound ? ": set by numabind only" : ": read from the environment only");
    Fail(err, path, line, e.text);
    return false;
  }
  // The whole name: NUMABIND_LOG after NUMABIND_LOG_FORMAT is another variable.
  uint32_t first = 0;
  if (SiteValue(*site, id, &first) != nullptr) {
    base::TextWriter w{e.text, sizeof(e.text), 0};
    w.Str(s).Str(": already set on line ").Uint(first);
    Fail(err, path, line, e.text);
    return false;
  }
  Config scratch;
  *eq = '\0';
  bool ok = ParseVar(s, eq + 1, &scratch, &e);
  *eq = '=';
  if (!ok) {
    Fail(err, path, line, e.text);
    return false;
  }
  site->entries[site->count] = s;
  site->lines[site->count] = line;
  ++site->count;
  return true;
}

}  // namespace

NUMABIND_HOT const char* SiteFilePath(const char* const* env) { return SiteFilePath(OursOf(env)); }

NUMABIND_HOT const char* SiteFilePath(const Ours& ours) {
  const char* v = ours.value[kVarConfigFile];
  if (v == nullptr || *v == '\0') return kSiteFilePath;
  return base::StrEq(v, "none") ? nullptr : v;
}

NUMABIND_HOT int OpenSiteFile(const char* path, Error* err) {
  err->text[0] = '\0';
  // Non-blocking, as the log file is opened: a FIFO here would hang every rank's open() before main. For a
  // regular file the flag changes nothing.
  int fd = base::OpenAt(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd == -ENOENT || fd == -ENOTDIR) return -1;
  if (fd < 0) {
    CannotRead(err, path, fd);
    return -2;
  }
  struct stat st {};  // filled by a raw call the analyzer cannot see into
  if (base::Fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    Sys6(SYS_close, fd);
    Fail(err, path, 0, "not a regular file");
    return -2;
  }
  return fd;
}

bool ReadSiteFd(int fd, const char* path, SiteFile* site, Error* err, const SiteListener* listener) {
  site->path = nullptr;
  site->count = 0;
  err->text[0] = '\0';
  err->warning[0] = '\0';
  long n = ReadAll(fd, site);
  if (n < 0) {
    CannotRead(err, path, n);
    return false;
  }
  if (n > static_cast<long>(kSiteFileMax)) {
    Fail(err, path, 0, "larger than 16384 bytes");
    return false;
  }
  return ParseSiteText(path, static_cast<size_t>(n), site, err, listener);
}

bool ReadSiteFile(const char* path, SiteFile* site, Error* err, const SiteListener* listener) {
  site->path = nullptr;
  site->count = 0;
  int fd = OpenSiteFile(path, err);
  if (fd < 0) return fd == -1;
  return ReadSiteFd(fd, path, site, err, listener);
}

bool ParseSiteText(const char* path, size_t n, SiteFile* site, Error* err, const SiteListener* listener) {
  site->path = nullptr;
  site->count = 0;
  err->text[0] = '\0';
  err->warning[0] = '\0';
  bool ok = true;
  if (n > kSiteFileMax) n = kSiteFileMax;
  site->text[n] = '\0';
  char* end = site->text + n;
  uint32_t line = 1;
  Error e;  // each line's problem; once per file, not per line (512 bytes to clear)
  for (char* p = site->text; p < end; ++line) {
    char* eol = LineEnd(p, end);
    if (eol < end && *eol == '\0') {
      Fail(err, path, line, "a NUL byte: not a text file");
      if (listener != nullptr) listener->tell(listener->ctx, true, err->text);
      site->count = 0;
      return false;
    }
    *eol = '\0';
    char* s = p;
    while (Blank(*s)) ++s;
    char* t = eol;
    while (t > s && Blank(t[-1])) --t;
    *t = '\0';
    p = eol + 1;
    if (*s == '\0' || *s == '#') continue;
    // Without a listener the first bad line ends the reading (the library ignores the whole file); with one,
    // every line is checked (`numabind vars --check` lists them all); err keeps the first.
    bool good;
    if (site->count == kVarCount) {  // each name once: more lines than names repeat one
      Fail(&e, path, line, "more variables than numabind has");
      good = false;
    } else {
      good = TakeLine(path, line, s, site, &e, listener);
      if (e.warning[0] != '\0' && err->warning[0] == '\0') Copy(err->warning, e.warning);
    }
    if (good) continue;
    if (listener != nullptr) listener->tell(listener->ctx, true, e.text);
    if (ok) Copy(err->text, e.text);
    ok = false;
    if (listener == nullptr) break;
  }
  if (!ok) {
    site->count = 0;
    return false;
  }
  site->path = path;
  return true;
}

const char* SiteValue(const SiteFile& site, int id, uint32_t* line) {
  if (id < 0 || id >= kVarCount) return nullptr;
  for (int i = 0; i < site.count; ++i) {
    if (const char* v = base::ValueOf(site.entries[i], kVarNames[id])) {
      if (line != nullptr) *line = site.lines[i];
      return v;
    }
  }
  return nullptr;
}

bool EnvSets(const char* const* env, int id) { return OursOf(env).Sets(id); }

void ApplySite(const char* const* env, const SiteFile& site, Config* out) {
  ApplySite(OursOf(env), site, out);
}

NUMABIND_HOT void ApplySite(const Ours& ours, const SiteFile& site, Config* out) {
  if (site.count == 0 || out->disabled) return;
  if (const char* d = SiteValue(site, kVarDisable, nullptr)) {
    Config off;
    if (ParseVar(kVarNames[kVarDisable], d, &off, nullptr) && off.disabled) {
      *out = Config();
      out->match = kDefaultMatch;
      out->disabled = true;
      return;
    }
  }
  for (int id = 0; id < kVarCount; ++id) {
    const char* v = id == kVarDisable ? nullptr : SiteValue(site, id, nullptr);
    if (v != nullptr && !ours.Sets(id)) ParseVar(kVarNames[id], v, out, nullptr);
  }
  out->enabled = out->policy.text != nullptr;
}

}  // namespace numabind::config
