// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The machines the tests of `numabind plan` plan on (plan_test, plan_export_test, plan_heading_test):
// hwloc synthetic descriptions, and the real machines' XML files in tests/data/topologies.

#ifndef NUMABIND_TESTS_CLI_PLAN_TOPOLOGIES_H_
#define NUMABIND_TESTS_CLI_PLAN_TOPOLOGIES_H_

#include <criterion/criterion.h>
#include <unistd.h>

#include <string>

namespace numabind::test {

inline constexpr char kTwoPackages[] = "synthetic:pack:2 numa:1 core:2 pu:1";
inline constexpr char kFourNodes[] = "synthetic:pack:2 numa:2 core:2 pu:2";

/// tests/data/topologies/NAME, failing the test when it is not there.
inline std::string RealTopology(const char* name) {
  std::string path = std::string("tests/data/topologies/") + name;
  if (access(path.c_str(), R_OK) != 0) cr_assert_fail("%s is not here", path.c_str());
  return path;
}

}  // namespace numabind::test

#endif  // NUMABIND_TESTS_CLI_PLAN_TOPOLOGIES_H_
