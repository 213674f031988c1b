// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "tests/shim/fault_count_util.h"

#include <criterion/criterion.h>
#include <stdio.h>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {

FaultCounts CountFaults(const std::vector<std::string>& prefix, const std::vector<std::string>& args,
                        const std::vector<std::string>& env, const std::string& dir) {
  std::vector<std::string> argv = prefix;
  argv.push_back(BuildDir() + "/helpers/fault_count");
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = Run(argv, env, dir + "/out", 120);
  std::string out = ReadFile(dir + "/out");
  cr_assert_eq(r.exit_code, 0, "%s", out.c_str());
  FaultCounts f;
  cr_assert_eq(sscanf(out.c_str(), "child %lf parent %lf", &f.child, &f.parent), 2, "%s", out.c_str());
  return f;
}

}  // namespace numabind::shim::test
