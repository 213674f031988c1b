// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// shim/entry/hot_data.ld.in and NUMABIND_HOT (base/hot.h): a configured process that is no rank, and a rank
// its launcher started bound, fault in no more pages of the library than an inert process. Each page of
// text or read-only data the start-up reaches outside the pages an inert start maps is a page fault (the
// kernel maps file pages 16 at a time around a fault; where those windows fall moves with the address the
// library is loaded at, so the figures are means over many starts). Before the read-only data moved, the
// configured start had 1.2 more faults and the started-bound rank 2.6 more.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/fault_count_util.h"
#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

/// The mean minor faults of a /bin/true started by posix_spawn 300 times, with exactly `env` plus the
/// library and a site file that does not exist (so that the machine's /etc/numabind.conf plays no part).
double ChildFaults(const std::string& dir, std::vector<std::string> env) {
  env.insert(env.begin(), {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                           "NUMABIND_CONFIG_FILE=" + dir + "/no-such-site-file"});
  std::vector<std::string> args = {"300", "spawn"};
  args.insert(args.end(), env.begin(), env.end());
  return CountFaults({}, args, {}, dir).child;
}

}  // namespace

Test(hot_data, configured_and_started_bound_starts_fault_no_more_than_inert) {
  std::string dir = MakeTempDir("numabind-hot-data");
  double inert = ChildFaults(dir, {});
  double configured = ChildFaults(dir, {"NUMABIND_POLICY=node"});
  double bound = ChildFaults(dir, {"NUMABIND_POLICY=node", "LOCAL_RANK=0", "NUMABIND_BOUND=LOCAL_RANK=0"});
  RemoveTree(dir);
  cr_expect_lt(configured - inert, 0.5, "configured %.2f faults, inert %.2f", configured, inert);
  cr_expect_lt(bound - inert, 0.5, "started bound %.2f faults, inert %.2f", bound, inert);
}

}  // namespace numabind::shim::test
