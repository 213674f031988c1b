// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Helpers for the planner tests: where the shared topology files are, loading and preparing them, and
// hand-made machines (the rank-by-rank view of a plan as strings is tests/plan/plan_test_util.h's).

#ifndef NUMABIND_TESTS_PLANNER_PLANNER_TEST_UTIL_H_
#define NUMABIND_TESTS_PLANNER_PLANNER_TEST_UTIL_H_

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "plan/plan_basis.h"
#include "planner/devices.h"
#include "planner/planner.h"
#include "planner/topology.h"
#include "tests/plan/plan_test_util.h"

namespace numabind::testing {
using namespace numabind::plan;     // NOLINT: test brevity
using namespace numabind::planner;  // NOLINT: test brevity

/// The directory of real machines' hwloc XML files that the repository carries: tests/data/topologies,
/// found from this file's path (absolute or relative to the repository root, where the tests run).
inline std::string TopologyDir() {
  std::string file = __FILE__;
  std::string root = ".";
  size_t at = file.rfind("tests/planner/");
  if (at != std::string::npos && at > 0) root = file.substr(0, at - 1);
  return root + "/tests/data/topologies";
}

inline std::string TopologyFile(const char* name) { return TopologyDir() + "/" + name; }

inline bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
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

/// The policies that place ranks by topology (not the maps), as NUMABIND_POLICY spells them.
inline constexpr const char* kPolicies[] = {"node", "socket", "exclusive", "core-complex", "auto"};

/// Prepares a basis for a loaded (possibly edited) topology.
inline void PrepareOn(const Topology& topo, const char* policy, Basis* out, const char* devices = "none",
                      const char* memory = nullptr, const char* const* env = nullptr) {
  PrepareRequest req;
  if (!RequestFromText(policy, memory, devices, &req, &out->error)) return;
  req.env = env;
  out->basis = PreparePlanBasis(topo, req, &out->error);
}

/// NUMABIND_POLICY, NUMABIND_MEMORY and NUMABIND_DEVICES as the planner gets them: read by config's parser
/// of each (RequestFromText, config::ParseVar), the policy's map expanded, the bus ids normalized.
inline bool ParsePolicy(const char* text, Policy* out, std::string* err) {
  PrepareRequest req;
  if (!RequestFromText(text, nullptr, nullptr, &req, err)) return false;
  *out = ExpandPolicy(req.policy);
  return true;
}
inline bool ParseMemory(const char* text, MemoryKind* out, std::string* err) {
  PrepareRequest req;
  if (!RequestFromText("node", text, nullptr, &req, err)) return false;
  *out = req.memory;
  return true;
}
inline bool ParseDevices(const char* text, DeviceSpec* out, std::string* err) {
  PrepareRequest req;
  if (!RequestFromText("node", nullptr, text, &req, err)) return false;
  *out = DeviceSpecOf(req.devices);
  return true;
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

}  // namespace numabind::testing

#endif  // NUMABIND_TESTS_PLANNER_PLANNER_TEST_UTIL_H_
