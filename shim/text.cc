// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe text helpers of the shim: glob matching for NUMABIND_MATCH and entry point names.

#include "shim/child.h"

namespace numabind::shim {
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

}  // namespace

bool GlobMatch(const char* pattern, const char* text) {
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

const char* EntryName(Entry entry) {
  // Arrays, not pointers: no relocations for the loader.
  static const char kNames[][13] = {"execve",       "execv",       "execvp",       "execvpe",  "execl",
                                    "execle",       "execlp",      "fexecve",      "execveat", "posix_spawn",
                                    "posix_spawnp", "pidfd_spawn", "pidfd_spawnp", "system",   "popen",
                                    "setenv",       "start-up"};
  return kNames[static_cast<int>(entry)];
}

}  // namespace numabind::shim
