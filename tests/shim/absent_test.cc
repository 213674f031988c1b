// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank planned on NUMABIND_TOPOLOGY onto CPUs or nodes this machine lacks (shim/child/absent.h): some of
// them missing is no error; none of its CPUs here, it runs unbound with a line naming them and the topology,
// never the kernel's bare EINVAL; none of its nodes, one line says so. Topologies larger than this machine.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

/// The highest number in a sysfs list ("0-1\n": 1).
int LastOf(const std::string& path) {
  std::string list = ReadFile(path);
  size_t end = list.find_last_of("0123456789");
  size_t start = list.find_last_not_of("0123456789", end);
  return std::stoi(list.substr(start == std::string::npos ? 0 : start + 1, end - start));
}

/// helpers/report as local rank `rank` of `ranks` under `policy` and NUMABIND_MEMORY=bind planned on
/// `topology`.
PreloadedRun Rank(const std::string& topology, const std::string& policy, int rank, int ranks) {
  return RunPreloaded({"@REPORT", "--out", "@OUT"},
                      {"NUMABIND_TOPOLOGY=" + topology, "NUMABIND_POLICY=" + policy, "NUMABIND_DEVICES=none",
                       "NUMABIND_MEMORY=bind", "LOCAL_RANK=" + std::to_string(rank),
                       "LOCAL_WORLD_SIZE=" + std::to_string(ranks)},
                      "numabind-absent");
}
}  // namespace

// Two CPUs past the last online one: no error, the kernel keeps the CPUs that are here, and nothing is said
// (tests plan on topologies larger than the machine).
Test(absent, some_cpus_past_the_machine_are_no_error) {
  int last = LastOf("/sys/devices/system/cpu/online");
  std::string topology = "synthetic:node:1 core:" + std::to_string(last + 3) + " pu:1";
  PreloadedRun o = Rank(topology, "node", 0, 1);
  cr_assert_eq(o.reports.size(), 1u, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank 0 of 1").size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect(LinesWith(o.log, "not on this machine").empty(), "log:\n%s", o.log.c_str());
  cr_expect(LinesWith(o.log, "EINVAL").empty(), "log:\n%s", o.log.c_str());
}

// None of its CPUs here: unbound, named, and not the kernel's bare EINVAL.
Test(absent, a_rank_with_no_cpu_here_runs_unbound_saying_which) {
  int last = LastOf("/sys/devices/system/cpu/online");
  std::string topology = "synthetic:node:1 core:" + std::to_string(last + 3) + " pu:1";
  PreloadedRun o = Rank(topology, "cpus:" + std::to_string(last + 2), 0, 1);
  cr_assert_eq(o.reports.size(), 1u, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
  std::string want = "runs unbound: its CPU " + std::to_string(last + 2) +
                     " is not on this machine (NUMABIND_TOPOLOGY=" + topology + ")";
  cr_expect_eq(LinesWith(o.log, want).size(), 1u, "want %s\nlog:\n%s", want.c_str(), o.log.c_str());
}

// A node past the last online one, with its CPU here, under NUMABIND_MEMORY=bind: bound, and the line says
// the node is missing.
Test(absent, a_node_past_the_machine_is_named) {
  int node = LastOf("/sys/devices/system/node/online") + 1;
  if (LastOf("/sys/devices/system/cpu/online") < node) cr_skip_test("needs CPU %d online", node);
  std::string topology = "synthetic:node:" + std::to_string(node + 1) + " core:1 pu:1";
  PreloadedRun o = Rank(topology, "node", node, node + 1);
  cr_assert_eq(o.reports.size(), 1u, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
  std::string want = "its node " + std::to_string(node) +
                     " is not on this machine (NUMABIND_TOPOLOGY=" + topology +
                     "): no memory policy can name them";
  cr_expect_eq(LinesWith(o.log, want).size(), 1u, "want %s\nlog:\n%s", want.c_str(), o.log.c_str());
  cr_expect_eq(o.reports[0].Get("cpus"), std::to_string(node), "%s", o.reports[0].line.c_str());
}

}  // namespace numabind::shim::test
