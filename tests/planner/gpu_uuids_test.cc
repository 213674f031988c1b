// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// GPUs' UUIDs on the live machine, from their drivers' files (planner/gpu_uuids.h): read here from a
// made-up root holding proc/ and sys/, with the hand-made 2-GPU machine's files.

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "planner/gpu_uuids.h"
#include "planner/topology.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::planner;  // NOLINT: test brevity
using numabind::testing::TopologyFile;

namespace {

/// Writes `text` to root/relative, making its directories.
void Put(const std::string& root, const std::string& relative, const std::string& text) {
  std::string path = root + "/" + relative;
  for (size_t at = root.size() + 1; (at = path.find('/', at)) != std::string::npos; ++at)
    mkdir(path.substr(0, at).c_str(), 0755);
  std::ofstream(path) << text;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Loads `file` (an XML topology) with PCI devices and `root` as where /proc and sysfs are.
Topology LoadWithRoot(const std::string& file, const std::string& root) {
  Topology t;
  std::string err;
  LoadOptions options;
  options.pci = true;
  options.sysfs_root = root;
  cr_assert(LoadTopology(file.c_str(), options, &t, &err), "%s", err.c_str());
  return t;
}

std::string UuidOf(const Topology& t, const char* bus_id) {
  for (const PciDevice& d : t.pci)
    if (d.bus_id == bus_id) return d.uuid;
  return "(no device " + std::string(bus_id) + ")";
}

}  // namespace

Test(gpu_uuids, amd_unique_ids_as_rocm_writes_them) {
  cr_expect_eq(AmdUuid("5a3c8f2e1d4b6a79"), "GPU-5a3c8f2e1d4b6a79");
  cr_expect_eq(AmdUuid("A3C8F2E1D4B6A7"), "GPU-00a3c8f2e1d4b6a7");
  for (const char* bad : {"", "xyz", "5a3c8f2e1d4b6a791", "0x5a3c", " 5a3c"})
    cr_expect_eq(AmdUuid(bad), "", "'%s'", bad);
}

// NVIDIA's driver says a GPU's UUID in /proc/driver/nvidia/gpus/<bus id>/information, amdgpu's in the PCI
// function's unique_id; a GPU without such a file has none, and a file's own UUID (NVML) comes first.
Test(gpu_uuids, drivers_files_give_the_live_machine_its_uuids) {
  char tmpl[] = "/tmp/numabind-gpu-uuids-XXXXXX";
  std::string root = mkdtemp(tmpl);
  Put(root, "proc/driver/nvidia/gpus/0000:83:00.0/information",
      "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 42\nGPU UUID: \t "
      "GPU-8f3c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e\n"
      "Video BIOS: \t 96.00.99.00.01\nBus Location: \t 0000:83:00.0\n");
  Topology nv = LoadWithRoot(TopologyFile("2synth-2n1c1t-2gpu.xml"), root);
  cr_expect_eq(UuidOf(nv, "0000:83:00.0"), "GPU-8f3c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e");
  cr_expect_eq(UuidOf(nv, "0000:03:00.0"), "", "no driver file: no UUID");
  Put(root, "proc/driver/nvidia/gpus/0000:03:00.0/information", "GPU UUID: \t GPU-?\?\?\?\?\?\?\?-?\?\?\?\n");
  cr_expect_eq(UuidOf(LoadWithRoot(TopologyFile("2synth-2n1c1t-2gpu.xml"), root), "0000:03:00.0"), "",
               "a GPU the driver has not initialized");
  // The file's NVML UUID stands, whatever the driver's file says.
  Put(root, "proc/driver/nvidia/gpus/0000:03:00.0/information", "GPU UUID: \t GPU-00000000-0000\n");
  Topology with_nvml = LoadWithRoot(TopologyFile("uuid/2synth-2n1c1t-2gpu-uuid.xml"), root);
  cr_expect_eq(UuidOf(with_nvml, "0000:03:00.0"), "GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f8");
  // AMD: the AMD file without its RSMI UUIDs, and amdgpu's unique_id for one GPU.
  std::string amd = ReadAll(TopologyFile("uuid/2synth-2n1c1t-2amd-uuid.xml"));
  for (size_t at; (at = amd.find("<info name=\"AMDUUID\"")) != std::string::npos;)
    amd.erase(at, amd.find('\n', at) + 1 - at);
  Put(root, "amd.xml", amd);
  Put(root, "sys/bus/pci/devices/0000:03:00.0/unique_id", "00a3c8f2e1d4b6a7\n");
  Topology a = LoadWithRoot(root + "/amd.xml", root);
  cr_expect_eq(UuidOf(a, "0000:03:00.0"), "GPU-00a3c8f2e1d4b6a7");
  cr_expect_eq(UuidOf(a, "0000:83:00.0"), "");
  std::string rm = "rm -rf '" + root + "'";
  cr_expect_eq(system(rm.c_str()), 0);
}
