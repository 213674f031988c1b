// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The fork wrapper's parent side (shim/entry/fork_wrappers.cc) writes nothing once the first fork has
// prepared: each page a process writes between two forks is a copy-on-write fault at the second, so a
// configured launcher that forks and execs thousands of programs (make, a shell loop, hydra) would pay one
// per fork. Before, the re-entrancy guard and errno (the thread's TLS page) cost one fault at every fork.
// The launcher runs with address randomisation off (setarch -R), so that its stack falls the same way in
// both runs: with it on, where the fork's frames cross a page moves the count by one either way.

#include <criterion/criterion.h>

#include <string>

#include "tests/shim/fault_count_util.h"
#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

/// The launcher's own minor faults per fork+exec of /bin/true (100 of them), preloaded, with `var` set.
double ParentFaultsPerFork(const std::string& dir, const std::string& var) {
  std::string lib = "LD_PRELOAD=" + BuildDir() + "/libnumabind.so";
  return CountFaults({"setarch", "-R"}, {"100", "fork", lib},
                     {lib, var, "NUMABIND_CONFIG_FILE=" + dir + "/no-such-site-file"}, dir)
      .parent;
}

}  // namespace

Test(fork_wrappers, configured_launcher_writes_no_page_between_forks) {
  std::string dir = MakeTempDir("numabind-fork-faults");
  // The same length of environment in both, so that the stack starts at the same place.
  double inert = ParentFaultsPerFork(dir, "XUMABIND_POLICY=node");
  double configured = ParentFaultsPerFork(dir, "NUMABIND_POLICY=node");
  RemoveTree(dir);
  cr_expect_lt(configured - inert, 0.5, "configured %.2f faults per fork, inert %.2f", configured, inert);
}

}  // namespace numabind::shim::test
