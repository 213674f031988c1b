// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Helpers for the core tests: where the shared topology files are, and a rank-by-rank view of a plan as
// strings, so that expectations read as the list syntax a person writes by hand.

#ifndef NUMABIND_TESTS_CORE_CORE_TEST_UTIL_H_
#define NUMABIND_TESTS_CORE_CORE_TEST_UTIL_H_

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/core_api.h"
#include "core/plan_basis.h"
#include "core/planner.h"
#include "core/topology.h"

/// Compares two strings after copying them (Criterion's cr_assert_str_eq keeps the pointers of its
/// arguments past the end of the full expression, so it cannot take c_str() of a temporary).
#define STR_EQ(actual, expected)                                                                            \
  do {                                                                                                      \
    std::string str_eq_a_ = (actual);                                                                       \
    std::string str_eq_e_ = (expected);                                                                     \
    cr_assert(str_eq_a_ == str_eq_e_, "%s\n  actual:   `%s`\n  expected: `%s`", #actual, str_eq_a_.c_str(), \
              str_eq_e_.c_str());                                                                           \
  } while (0)

namespace numabind::core::testing {

/// The directory of real machines' hwloc XML files that the repository carries: tests/data/topologies,
/// found from this file's path (absolute or relative to the repository root, where the tests run).
inline std::string TopologyDir() {
  std::string file = __FILE__;
  std::string root = ".";
  size_t at = file.rfind("tests/core/");
  if (at != std::string::npos && at > 0) root = file.substr(0, at - 1);
  return root + "/tests/data/topologies";
}

inline std::string TopologyFile(const char* name) { return TopologyDir() + "/" + name; }

inline bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

/// One rank's plan as text.
struct RankText {
  bool ok = false;
  std::string cpus, nodes, device, label, error;
  MemoryKind memory = MemoryKind::kLocal;
};

inline std::string Words(const uint64_t* words, uint32_t n) {
  std::vector<char> buf(FormatBitList(words, n, nullptr, 0) + 1);
  FormatBitList(words, n, buf.data(), buf.size());
  return buf.data();
}

inline RankText PlanRank(const PlanBasis& basis, uint32_t rank, uint32_t nranks) {
  std::vector<uint64_t> cpus(basis.cpu_words + 1, ~uint64_t{0}), nodes(basis.node_words + 1, ~uint64_t{0});
  RankPlan plan;
  plan.cpus = cpus.data();
  plan.nodes = nodes.data();
  RankText t;
  t.ok = ComputeRankPlan(basis, rank, nranks, &plan);
  t.cpus = Words(cpus.data(), basis.cpu_words);
  t.nodes = Words(nodes.data(), basis.node_words);
  t.device = plan.device ? plan.device : "(null)";
  t.label = plan.label ? plan.label : "(null)";
  t.error = plan.error;
  t.memory = plan.memory;
  return t;
}

/// Every rank of nranks (nranks > 0).
inline std::vector<RankText> PlanAll(const PlanBasis& basis, uint32_t nranks) {
  std::vector<RankText> out;
  for (uint32_t r = 0; r < nranks; ++r) out.push_back(PlanRank(basis, r, nranks));
  return out;
}

/// Owns a basis.
struct Basis {
  PlanBasis* basis = nullptr;
  std::string error;
  Basis() = default;
  Basis(const Basis&) = delete;
  Basis& operator=(const Basis&) = delete;
  ~Basis() { free(basis); }
};

/// Prepares a basis for a loaded (possibly edited) topology.
inline void PrepareOn(const Topology& topo, const char* policy, Basis* out, const char* devices = "none",
                      const char* memory = nullptr, const char* const* env = nullptr) {
  numabind_prepare_request req{};
  req.policy = policy;
  req.devices = devices;
  req.memory = memory;
  req.env = env;
  out->basis = PreparePlanBasis(topo, req, &out->error);
}

/// Loads a topology spec, failing the test when it does not load.
inline Topology Load(const std::string& spec, bool pci = false) {
  Topology topo;
  std::string err;
  LoadOptions options;
  options.pci = pci;
  if (!LoadTopology(spec.c_str(), options, &topo, &err)) {
    fprintf(stderr, "cannot load %s: %s\n", spec.c_str(), err.c_str());
    abort();
  }
  return topo;
}

/// An NVIDIA 3D controller at `bus_id` near `node` (-1: locality unknown), for hand-made device tests.
inline PciDevice Gpu(const char* bus_id, int node, uint32_t vendor = 0x10de, uint32_t class_id = 0x0302) {
  PciDevice d;
  d.bus_id = bus_id;
  sscanf(bus_id, "%x:%x:%x.%x", &d.domain, &d.bus, &d.dev, &d.func);
  d.vendor = vendor;
  d.device = 0x20b0;
  d.class_id = class_id;
  if (node >= 0) {
    d.nodes.Set(static_cast<uint32_t>(node));
    d.locality_known = true;
  }
  return d;
}

/// A small hand-written hwloc XML machine: 2 packages with one node each; node 0 = CPUs 0-1 (one PU per
/// core), node 1 = CPUs 2-3 (one core with 2 PUs); CPUs 4-5 offline; CPU 3 not allowed. PCI: an NVIDIA
/// GPU 0000:02:00.0 under package 1, an ASPEED VGA 0000:03:00.0 under package 0, and an NVIDIA GPU
/// 0000:01:00.0 under the machine itself (no locality).
inline const char* HandMadeXml() {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
         "<topology version=\"2.0\">\n"
         "  <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000003f\" "
         "allowed_cpuset=\"0x00000007\" nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" "
         "allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
         "    <object type=\"Package\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" "
         "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"2\">\n"
         "      <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x00000003\" "
         "complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
         "gp_index=\"3\" local_memory=\"1073741824\"/>\n"
         "      <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" "
         "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\">\n"
         "        <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" "
         "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"5\"/>\n"
         "      </object>\n"
         "      <object type=\"Core\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" "
         "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"6\">\n"
         "        <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" "
         "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"7\"/>\n"
         "      </object>\n"
         "      <object type=\"Bridge\" gp_index=\"20\" bridge_type=\"0-1\" depth=\"0\" "
         "bridge_pci=\"0000:[03-03]\">\n"
         "        <object type=\"PCIDev\" gp_index=\"21\" pci_busid=\"0000:03:00.0\" pci_type=\"0300 "
         "[1a03:2000] [1a03:2000] 41\"/>\n"
         "      </object>\n"
         "    </object>\n"
         "    <object type=\"Package\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000003c\" "
         "nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"8\">\n"
         "      <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x0000000c\" "
         "complete_cpuset=\"0x0000003c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" "
         "gp_index=\"9\" local_memory=\"1073741824\"/>\n"
         "      <object type=\"Core\" os_index=\"0\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" "
         "nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"10\">\n"
         "        <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\" "
         "nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"11\"/>\n"
         "        <object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\" "
         "nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"12\"/>\n"
         "      </object>\n"
         "      <object type=\"Bridge\" gp_index=\"22\" bridge_type=\"0-1\" depth=\"0\" "
         "bridge_pci=\"0000:[02-02]\">\n"
         "        <object type=\"PCIDev\" gp_index=\"23\" pci_busid=\"0000:02:00.0\" pci_type=\"0302 "
         "[10de:20b0] [10de:1450] a1\"/>\n"
         "      </object>\n"
         "    </object>\n"
         "    <object type=\"Bridge\" gp_index=\"24\" bridge_type=\"0-1\" depth=\"0\" "
         "bridge_pci=\"0000:[01-01]\">\n"
         "      <object type=\"PCIDev\" gp_index=\"25\" pci_busid=\"0000:01:00.0\" pci_type=\"0302 "
         "[10de:20b0] [10de:1450] a1\"/>\n"
         "    </object>\n"
         "  </object>\n"
         "</topology>\n";
}

/// Writes HandMadeXml() to a new temporary file and returns its path.
inline std::string WriteHandMadeXml() {
  char path[] = "/tmp/numabind-core-test-XXXXXX.xml";
  int fd = mkstemps(path, 4);
  if (fd < 0) abort();
  const char* text = HandMadeXml();
  if (write(fd, text, strlen(text)) != static_cast<ssize_t>(strlen(text))) abort();
  close(fd);
  return path;
}

}  // namespace numabind::core::testing

#endif  // NUMABIND_TESTS_CORE_CORE_TEST_UTIL_H_
