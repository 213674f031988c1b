// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The NUMABIND_MATCH glob (base/text.cc GlobMatch, the child-safe matcher the shim runs on a joined argv
// between fork and exec). Input: the pattern on the first line, the text on the second. Beyond not crashing
// (and finishing: libFuzzer's -timeout catches a matcher that backtracks without bound): the result is
// fnmatch(3)'s in the C locale with no flags, the behaviour the README promises, for every pattern without
// character classes ([:alpha:] and the like, which GlobMatch does not implement) and within POSIX (below);
// a pattern of plain characters matches itself; "*" matches everything.

#include <fnmatch.h>

#include <string>
#include <vector>

#include "base/text.h"
#include "fuzz/fuzz_util.h"

namespace {

// Whether some '[' has no ']' after it to close it. POSIX says such a '[' matches itself, and GlobMatch does
// so; glibc's fnmatch instead fails the match in a range ("[a-" against "[a-"), so fnmatch is no reference.
// A pattern that ends in an unescaped backslash is undefined in POSIX: GlobMatch reads the backslash as
// itself, glibc fails the match; both are left alone.
bool OutsidePosix(const std::string& p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      if (++i == p.size()) return true;
    } else if (p[i] == '[') {
      // Find the ']' that closes it: not the first character (after '!' or '^'), not escaped.
      size_t j = i + 1;
      if (j < p.size() && (p[j] == '!' || p[j] == '^')) ++j;
      if (j < p.size()) j += p[j] == '\\' ? 2 : 1;
      while (j < p.size() && p[j] != ']') j += p[j] == '\\' ? 2 : 1;
      if (j >= p.size()) return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> lines = numabind::fuzz::Lines(data, size);
  const std::string& pattern = lines[0];
  const std::string text = lines.size() > 1 ? lines[1] : pattern;
  bool got = numabind::base::GlobMatch(pattern.c_str(), text.c_str());

  if (pattern.find("[:") == std::string::npos && pattern.find("[=") == std::string::npos &&
      pattern.find("[.") == std::string::npos && !OutsidePosix(pattern)) {
    bool want = fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
    FUZZ_CHECK(got == want, "pattern \"%s\", text \"%s\": GlobMatch %d, fnmatch %d", pattern.c_str(),
               text.c_str(), got, want);
  }
  if (pattern.find_first_of("*?[\\") == std::string::npos)
    FUZZ_CHECK(numabind::base::GlobMatch(pattern.c_str(), pattern.c_str()), "\"%s\" does not match itself",
               pattern.c_str());
  FUZZ_CHECK(numabind::base::GlobMatch("*", text.c_str()), "\"*\" does not match \"%s\"", text.c_str());
  return 0;
}
