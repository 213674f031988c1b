// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's child-safe glob matcher (base/text.cc), linked into this test on its own: NUMABIND_MATCH
// behaves as fnmatch(3) with no flags in the C locale. fuzz/glob_fuzz.cc compares the two on any input.

#include <criterion/criterion.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/text.h"

using numabind::base::GlobMatch;

Test(text, glob_matches_like_fnmatch) {
  struct {
    const char* pattern;
    const char* text;
    bool match;
  } cases[] = {
      {"*", "", true},
      {"*python*", "/usr/bin/python3 train.py", true},
      {"python?", "python3", true},
      {"python?", "python", false},
      {"*[0-9]", "rank7", true},
      {"*[!0-9]", "rank7", false},
      {"[]x]", "]", true},
      {"\\*", "*", true},
      {"\\*", "x", false},
      {"*a*b*c", "xxaxxbxxc", true},
      {"*a*b*c", "xxaxxcxxb", false},
      // Found by fuzz/glob_fuzz.cc: bytes above 0x7f compare unsigned, so [\xa0-c] is an empty range and
      // [a-\xff] holds every byte from 'a' up.
      {"*[!\xa0-c]?x", "bbbqx", true},
      {"[a-\xff]", "\xe9", true},
      {"[a-\xff]", "Z", false},
  };
  for (const auto& c : cases) {
    cr_expect_eq(GlobMatch(c.pattern, c.text), c.match, "\"%s\" against \"%s\"", c.pattern, c.text);
    cr_expect_eq(fnmatch(c.pattern, c.text, 0) == 0, c.match, "fnmatch \"%s\" against \"%s\"", c.pattern,
                 c.text);
  }
}

Test(text, unterminated_bracket_matches_itself) {
  // POSIX: a '[' that no ']' closes is an ordinary character.
  cr_expect(GlobMatch("[ab", "[ab"));
  cr_expect(GlobMatch("x[", "x["));
  cr_expect_not(GlobMatch("x[", "xa"));
}

Test(text, range_ending_in_a_backslash_stays_inside_the_pattern) {
  // Found by fuzz/glob_fuzz.cc: "[a-\\" at the end of a pattern made the matcher read past its NUL. The
  // pattern ends right before a page that cannot be read, so a read past it crashes this test.
  long page = sysconf(_SC_PAGESIZE);
  char* mem =
      static_cast<char*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  cr_assert_neq(mem, MAP_FAILED);
  cr_assert_eq(mprotect(mem + page, page, PROT_NONE), 0);
  for (const char* pattern : {"*[a-\\", "[!a-\\", "x[\\"}) {
    char* at = mem + page - (strlen(pattern) + 1);
    memcpy(at, pattern, strlen(pattern) + 1);
    for (const char* text : {"x", "[a-\\", "b", ""})
      cr_expect_eq(GlobMatch(at, text), GlobMatch(pattern, text), "\"%s\" against \"%s\"", pattern, text);
  }
  munmap(mem, 2 * page);
}

Test(text, errno_and_signal_names) {
  char buf[numabind::base::kErrnoSymbolMax];
  cr_expect_str_eq(numabind::base::ErrnoSymbol(ENOENT, buf), "ENOENT");
  cr_expect_str_eq(numabind::base::ErrnoSymbol(4095, buf), "errno 4095");
  cr_expect_str_eq(numabind::base::ErrnoSymbol(INT32_MIN, buf), "errno -2147483648");
  cr_expect_str_eq(numabind::base::ErrnoName(EPERM), "Operation not permitted (EPERM)");
  cr_expect_str_eq(numabind::base::ErrnoName(EINTR), "error");
  cr_expect_str_eq(numabind::base::SignalName(SIGSEGV, buf), "SIGSEGV");
  cr_expect_str_eq(numabind::base::SignalName(40, buf), "signal 40");
}

Test(text, decimals) {
  char buf[numabind::base::kDecimalMax];
  cr_expect_eq(numabind::base::FormatDecimal(0, buf), 1u);
  cr_expect_str_eq(buf, "0");
  cr_expect_eq(numabind::base::FormatDecimal(UINT64_MAX, buf), 20u);
  cr_expect_str_eq(buf, "18446744073709551615");
  cr_expect(numabind::base::StrEq("abc", "abc"));
  cr_expect(!numabind::base::StrEq("abc", "ab"));
  cr_expect_eq(numabind::base::StrLen("abc"), 3u);
}
