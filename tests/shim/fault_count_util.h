// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// helpers/fault_count for the tests that compare page faults (hot_data, fork_wrappers, rank_exports): it
// starts /bin/true N times and prints a child's mean minor faults and its launcher's per start.
#ifndef NUMABIND_TESTS_SHIM_FAULT_COUNT_UTIL_H_
#define NUMABIND_TESTS_SHIM_FAULT_COUNT_UTIL_H_

#include <string>
#include <vector>

namespace numabind::shim::test {

struct FaultCounts {
  double child = -1;   ///< a child's mean minor faults, before and after its exec
  double parent = -1;  ///< the launcher's own, per start
};

/// Runs `prefix` (e.g. {"setarch", "-R"}, or none), then fault_count with `args` (N, fork|spawn, the
/// children's NAME=VALUE entries), with `env` added to the test's hermetic environment (launch_util.h's
/// Run); its output goes to dir/out. Fails the test when it does not run or print its figures.
FaultCounts CountFaults(const std::vector<std::string>& prefix, const std::vector<std::string>& args,
                        const std::vector<std::string>& env, const std::string& dir);

}  // namespace numabind::shim::test

#endif  // NUMABIND_TESTS_SHIM_FAULT_COUNT_UTIL_H_
