// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe text helpers (base/text.h): glob matching for NUMABIND_MATCH, decimals, errno names.

#include "base/text.h"

#include <errno.h>
#include <signal.h>

#include "base/hot.h"

namespace numabind::base {
namespace {

/// Child-safe: matches one bracket expression at *p against c; advances p past it. Returns -1 when the
/// bracket is unterminated (then '[' matches itself, as fnmatch does).
int MatchBracket(const char** p, unsigned char c) {
  const char* s = *p + 1;
  bool negate = *s == '!' || *s == '^';
  if (negate) ++s;
  bool matched = false;
  bool first = true;
  while (*s != '\0' && (first || *s != ']')) {
    first = false;
    // Bytes compare unsigned, as fnmatch does in the C locale: [a-\xff] holds every byte from 'a' up (found
    // by fuzz/glob_fuzz.cc; with signed char it held none).
    unsigned char lo = static_cast<unsigned char>(*s == '\\' && s[1] != '\0' ? *++s : *s);
    unsigned char hi = lo;
    if (s[1] == '-' && s[2] != '\0' && s[2] != ']') {
      // An escaped end ("a-\\x") is the escaped character; a backslash that ends the pattern is itself, and
      // the scan must stop on the NUL after it (found by fuzz/glob_fuzz.cc: it read past the pattern).
      bool escaped = s[2] == '\\' && s[3] != '\0';
      hi = static_cast<unsigned char>(escaped ? s[3] : s[2]);
      s += escaped ? 3 : 2;
    }
    if (c >= lo && c <= hi) matched = true;
    ++s;
  }
  if (*s != ']') return -1;
  *p = s + 1;
  return matched != negate ? 1 : 0;
}

/// One errno value: its symbol and, for the values a binding or a log file meets, its long name. Char
/// arrays, not pointers: no relocations for the loader.
struct ErrnoRow {
  int value;
  char symbol[14];
  char text[44];
};
constexpr ErrnoRow kErrnos[] = {
    {EPERM, "EPERM", "Operation not permitted (EPERM)"},
    {ENOENT, "ENOENT", "No such file or directory (ENOENT)"},
    {ESRCH, "ESRCH", "No such process (ESRCH)"},
    {EINTR, "EINTR", ""},
    {EIO, "EIO", ""},
    {E2BIG, "E2BIG", ""},
    {ENOEXEC, "ENOEXEC", ""},
    {EBADF, "EBADF", ""},
    {EAGAIN, "EAGAIN", ""},
    {ENOMEM, "ENOMEM", "Cannot allocate memory (ENOMEM)"},
    {EACCES, "EACCES", "Permission denied (EACCES)"},
    {EFAULT, "EFAULT", "Bad address (EFAULT)"},
    {EXDEV, "EXDEV", "Cross-device link (EXDEV)"},
    {ENOTDIR, "ENOTDIR", ""},
    {EISDIR, "EISDIR", "Is a directory (EISDIR)"},
    {EINVAL, "EINVAL", "Invalid argument (EINVAL)"},
    {ENFILE, "ENFILE", ""},
    {EMFILE, "EMFILE", ""},
    {ETXTBSY, "ETXTBSY", ""},
    {EFBIG, "EFBIG", ""},
    {ENOSPC, "ENOSPC", "No space left on device (ENOSPC)"},
    {EROFS, "EROFS", "Read-only file system (EROFS)"},
    {ENAMETOOLONG, "ENAMETOOLONG", ""},
    {ENOSYS, "ENOSYS", "Function not implemented (ENOSYS)"},
    {ELOOP, "ELOOP", "Too many levels of symbolic links (ELOOP)"},
    {ELIBBAD, "ELIBBAD", ""},
    {EOPNOTSUPP, "EOPNOTSUPP", ""},
    {EDQUOT, "EDQUOT", "Disk quota exceeded (EDQUOT)"},
};

/// The signals a helper may die of, named in its failure.
struct SignalRow {
  int value;
  char name[8];
};
constexpr SignalRow kSignals[] = {
    {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
    {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
    {SIGKILL, "SIGKILL"}, {SIGSEGV, "SIGSEGV"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},
    {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
};

/// Child-safe: `prefix` and the decimal n into buf (kErrnoSymbolMax bytes); returns buf.
const char* Numbered(const char* prefix, int n, char* buf) {
  size_t len = 0;
  for (; prefix[len] != '\0'; ++len) buf[len] = prefix[len];
  if (n < 0) buf[len++] = '-';
  FormatDecimal(n < 0 ? 0ULL - static_cast<uint64_t>(n) : static_cast<uint64_t>(n), buf + len);
  return buf;
}

const ErrnoRow* FindErrno(int e) {
  for (const ErrnoRow& row : kErrnos) {
    if (row.value == e) return &row;
  }
  return nullptr;
}

}  // namespace

size_t FormatDecimal(uint64_t v, char* out) {
  char digits[kDecimalMax];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  out[n] = '\0';
  return n;
}

const char* ErrnoName(int e) {
  const ErrnoRow* row = FindErrno(e);
  return row != nullptr && row->text[0] != '\0' ? row->text : "error";
}

const char* ErrnoSymbol(int e, char* buf) {
  if (const ErrnoRow* row = FindErrno(e)) return row->symbol;
  return Numbered("errno ", e, buf);
}

const char* SignalName(int sig, char* buf) {
  for (const SignalRow& row : kSignals) {
    if (row.value == sig) return row.name;
  }
  return Numbered("signal ", sig, buf);
}

NUMABIND_HOT bool GlobMatch(const char* pattern, const char* text) {
  // Iterative matcher with one backtrack point for the last '*': linear in practice, no recursion.
  const char* star = nullptr;
  const char* star_text = nullptr;
  while (*text != '\0') {
    const char* p = pattern;
    if (*p == '*') {
      while (*p == '*') ++p;
      if (*p == '\0') return true;
      star = p;
      star_text = text;
      pattern = p;
      continue;
    }
    bool ok;
    if (*p == '?') {
      ok = true;
      ++p;
    } else if (*p == '[') {
      int r = MatchBracket(&p, static_cast<unsigned char>(*text));
      if (r < 0) {
        ok = *text == '[';
        p = pattern + 1;
      } else {
        ok = r == 1;
      }
    } else {
      if (*p == '\\' && p[1] != '\0') ++p;
      ok = *p != '\0' && *p == *text;
      if (*p != '\0') ++p;
    }
    if (ok) {
      pattern = p;
      ++text;
    } else if (star != nullptr) {
      pattern = star;
      text = ++star_text;
    } else {
      return false;
    }
  }
  while (*pattern == '*') ++pattern;
  return *pattern == '\0';
}

// Child-safe: reads n bytes of s at most.
size_t Utf8Sequence(const unsigned char* s, size_t n, size_t* used) {
  unsigned char c = s[0], lo = 0x80, hi = 0xbf;
  size_t len;
  if (c < 0x80) {
    *used = 1;
    return 1;
  } else if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    *used = 1;
    return 0;
  }
  size_t i = 1;
  for (; i < len && i < n && s[i] >= lo && s[i] <= hi; ++i) lo = 0x80, hi = 0xbf;
  *used = i;
  return i == len ? len : 0;
}

}  // namespace numabind::base
