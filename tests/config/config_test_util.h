// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What the config tests share.

#ifndef NUMABIND_TESTS_CONFIG_CONFIG_TEST_UTIL_H_
#define NUMABIND_TESTS_CONFIG_CONFIG_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

namespace numabind::config::testing {

/// Owns an environment-style array built from a list of "NAME=value" strings.
struct Env {
  std::vector<std::string> strings;
  std::vector<const char*> ptrs;
  explicit Env(std::vector<std::string> s) : strings(std::move(s)) {
    for (const auto& x : strings) ptrs.push_back(x.c_str());
    ptrs.push_back(nullptr);
  }
  const char* const* get() const { return ptrs.data(); }
};

}  // namespace numabind::config::testing

#endif  // NUMABIND_TESTS_CONFIG_CONFIG_TEST_UTIL_H_
