// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe text helpers of the shim: glob matching for NUMABIND_MATCH and entry point names.

#include "shim/child.h"

namespace numabind::shim {
namespace {

/// Child-safe: matches one bracket expression at *p against c; advances p past it. Returns -1 when the
/// bracket is unterminated (then '[' matches itself, as fnmatch does).
int MatchBracket(const char** p, char c) {
  const char* s = *p + 1;
  bool negate = *s == '!' || *s == '^';
  if (negate) ++s;
  bool matched = false;
  bool first = true;
  while (*s != '\0' && (first || *s != ']')) {
    first = false;
    char lo = *s == '\\' && s[1] != '\0' ? *++s : *s;
    char hi = lo;
    if (s[1] == '-' && s[2] != '\0' && s[2] != ']') {
      hi = s[2] == '\\' && s[3] != '\0' ? s[3] : s[2];
      s += s[2] == '\\' ? 3 : 2;
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
      int r = MatchBracket(&p, *text);
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
  static const char* const kNames[] = {
      "execve", "execv", "execvp", "execvpe", "execl", "execle", "execlp", "fexecve", "execveat",
      "posix_spawn", "posix_spawnp", "pidfd_spawn", "pidfd_spawnp", "system", "popen", "setenv", "start-up"};
  return kNames[static_cast<int>(entry)];
}

}  // namespace numabind::shim
