// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Shared by the libFuzzer targets in fuzz/ (fuzz/README.md): turning the fuzzer's bytes into the C strings
// the parsers take, and an assertion that reports the input's invariant that broke and aborts, so that
// libFuzzer saves the input as a crash.

#ifndef NUMABIND_FUZZ_FUZZ_UTIL_H_
#define NUMABIND_FUZZ_FUZZ_UTIL_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

/// Checks an invariant; on failure prints it (with a printf-style explanation) and aborts.
#define FUZZ_CHECK(cond, ...)                                                        \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "%s:%d: invariant failed: %s\n  ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                  \
      fputc('\n', stderr);                                                           \
      abort();                                                                       \
    }                                                                                \
  } while (0)

namespace numabind::fuzz {

/// The input as one string, cut at its first NUL (the parsers read C strings, as from getenv).
inline std::string AsText(const uint8_t* data, size_t size) {
  size_t n = 0;
  while (n < size && data[n] != 0) ++n;
  return std::string(reinterpret_cast<const char*>(data), n);
}

/// The input split at newlines (NULs end a line too): the lines of an environment or a pattern and text.
inline std::vector<std::string> Lines(const uint8_t* data, size_t size) {
  std::vector<std::string> lines(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n' || data[i] == 0)
      lines.emplace_back();
    else
      lines.back() += static_cast<char>(data[i]);
  }
  return lines;
}

}  // namespace numabind::fuzz

#endif  // NUMABIND_FUZZ_FUZZ_UTIL_H_
