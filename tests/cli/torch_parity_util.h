// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Support for the torch_parity tests: the hardware PyTorch's test/test_numa_binding.py mocks at the sysfs
// level (its _add_mock_hardware), written as an hwloc XML file with PCI GPUs, so that numabind's whole path
// (hwloc XML import, PCI locality, `auto` device selection, planner::Prepare, ComputeRankPlan) runs on the
// machine torch's tests run on. torch's mock: sockets hold NUMA nodes, nodes hold L3 caches, L3s hold
// 2-thread cores; CPUs are numbered consecutively (a core's threads are 2k and 2k+1); every node has its
// GPUs, and GPU i has PCI address domain i, bus i, device i (sysfs numa_node = its node), so PCI order is
// torch's GPU index order. Files are generated rather than stored: torch's scenarios are parametric and the
// largest has 128 CPUs and 16 GPUs (75 KB of XML).

#ifndef NUMABIND_TESTS_CLI_TORCH_PARITY_UTIL_H_
#define NUMABIND_TESTS_CLI_TORCH_PARITY_UTIL_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "plan/plan_basis.h"
#include "tests/planner/planner_test_util.h"

namespace numabind::testing {
using namespace numabind::plan;     // NOLINT: test brevity
using namespace numabind::planner;  // NOLINT: test brevity

/// A machine as a tree of packages, nodes, L3 caches, cores and PUs, with GPUs per node.
struct MockMachine {
  struct Core {
    std::vector<uint32_t> pus;
  };
  struct L3 {
    std::vector<Core> cores;
  };
  struct Node {
    uint32_t os = 0;
    std::vector<L3> l3s;
    std::vector<std::string> gpus;  ///< PCI bus ids of the GPUs near this node
  };
  struct Package {
    std::vector<Node> nodes;
  };
  std::vector<Package> packages;
  std::vector<std::string> unlocated_gpus;  ///< attached to the machine itself: no NUMA locality
  std::vector<uint32_t> allowed;            ///< the allowed CPUs (torch: sched_getaffinity); empty = all
};

/// torch's mock PCI address of GPU i: f"{i:04x}:{i:02x}:{i:02x}.0".
std::string TorchBusId(int i);

/// torch's _add_mock_hardware(num_sockets, num_numa_nodes_per_socket, num_gpus_per_numa_node,
/// num_l3_caches_per_numa_node, num_physical_core_per_l3_cache).
MockMachine TorchMockHardware(int sockets, int nodes_per_socket, int gpus_per_node, int l3_per_node,
                              int cores_per_l3);

/// The machine as hwloc 2 XML: an L2 per core under each L3 (the last-level cache must still be the L3,
/// as torch takes the highest level); a package with several nodes gets one Group per node, so that a
/// GPU's nearest non-I/O ancestor covers exactly its node, as sysfs numa_node says; each GPU is an NVIDIA
/// 3D controller behind its own host bridge.
std::string MockXml(const MockMachine& m);

/// The machine as an hwloc XML file that lives as long as this object (or the test's process).
struct MockXmlFile {
  int fd = -1;
  std::string path;  ///< /proc/self/fd/N
  explicit MockXmlFile(const MockMachine& m);
  MockXmlFile(const MockXmlFile&) = delete;
  MockXmlFile& operator=(const MockXmlFile&) = delete;
  ~MockXmlFile();
};

/// No CUDA_VISIBLE_DEVICES or NUMABIND_* from the environment the tests run in.
extern const char* const kNoEnv[];

/// A basis from planner::Prepare (the entry point of the shim and the CLI) with devices "auto"; fails the
/// test when it cannot be prepared.
struct Prepared {
  const PlanBasis* basis = nullptr;
  Prepared(const MockXmlFile& xml, const char* policy, const char* const* env = kNoEnv);
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared();
  RankText Rank(uint32_t r, uint32_t n) const { return PlanRank(*basis, r, n); }
  /// CPUs of ranks 0..n-1 joined by " | "; a rank that cannot be placed shows as "!".
  std::string All(uint32_t n) const;
};

/// Asserts that rank r of n is placed on `cpus` with memory nodes `nodes` and drives torch's GPU r.
void ExpectRank(const Prepared& p, uint32_t r, uint32_t n, const char* cpus, const char* nodes);

/// `numabind plan ARGS` in this process (cli::PlanCommand) with an empty environment: exit status, output.
int RunPlan(const std::vector<std::string>& args, std::string* out, std::string* err);

}  // namespace numabind::testing

#endif  // NUMABIND_TESTS_CLI_TORCH_PARITY_UTIL_H_
