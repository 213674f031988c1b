// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_DEVICES: parsing, which PCI devices `auto` counts as accelerators, bus id order, the
// *_VISIBLE_DEVICES variables and explicit lists.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "planner/devices.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::FileExists;
using numabind::testing::Gpu;
using numabind::testing::Load;
using numabind::testing::ParseDevices;
using numabind::testing::PlanAll;
using numabind::testing::PrepareOn;
using numabind::testing::RankText;
using numabind::testing::TopologyFile;

static std::string Ids(const std::vector<PciDevice>& devices) {
  std::string s;
  for (const PciDevice& d : devices) s += (s.empty() ? "" : ",") + d.bus_id;
  return s;
}

static std::vector<PciDevice> Select(const Topology& t, const char* spec_text,
                                     const char* const* env = nullptr) {
  DeviceSpec spec;
  std::string err;
  cr_assert(ParseDevices(spec_text, &spec, &err), "%s", err.c_str());
  std::vector<PciDevice> out;
  cr_assert(SelectDevices(t, spec, env, &out, &err), "%s", err.c_str());
  return out;
}

Test(devices, normalize_bus_ids) {
  std::string id;
  cr_assert(NormalizeBusId("34:00.0", &id));
  STR_EQ(id, "0000:34:00.0");
  cr_assert(NormalizeBusId("0000:34:00.0", &id));
  STR_EQ(id, "0000:34:00.0");
  cr_assert(NormalizeBusId("000A:1B:1f.7", &id));
  STR_EQ(id, "000a:1b:1f.7");
  cr_assert(NormalizeBusId("2:1:0.1", &id));
  STR_EQ(id, "0002:01:00.1");
  cr_assert(NormalizeBusId("10000:e1:00.0", &id));  // a VMD domain has 5 digits
  STR_EQ(id, "10000:e1:00.0");
  cr_assert(NormalizeBusId("ffffffff:ff:1f.7", &id));
  STR_EQ(id, "ffffffff:ff:1f.7");
  const char* bad[] = {
      "",          "34",        "34:00",   "34:00.8", "34:20.0", "g4:00.0", "000000000:34:00.0",
      "34:00.0.0", "1:2:3:4.0", " 34:00.0"};
  for (const char* b : bad) cr_assert(!NormalizeBusId(b, &id), "\"%s\" is not a bus id", b);
}

Test(devices, parse_spec) {
  DeviceSpec spec;
  std::string err;
  cr_assert(ParseDevices(nullptr, &spec, &err) && spec.mode == DeviceMode::kAuto);
  cr_assert(ParseDevices("", &spec, &err) && spec.mode == DeviceMode::kAuto);
  cr_assert(ParseDevices("auto", &spec, &err) && spec.mode == DeviceMode::kAuto);
  cr_assert(ParseDevices("none", &spec, &err) && spec.mode == DeviceMode::kNone);
  cr_assert(ParseDevices("34:00.0,0000:b1:00.0", &spec, &err));
  cr_assert(spec.mode == DeviceMode::kList);
  cr_assert_eq(spec.bus_ids.size(), 2u);
  STR_EQ(spec.bus_ids[0], "0000:34:00.0");
  STR_EQ(spec.bus_ids[1], "0000:b1:00.0");
  cr_assert(!ParseDevices("34:00.0,gpu0", &spec, &err));
  cr_assert(err.find("NUMABIND_DEVICES") != std::string::npos && err.find("gpu0") != std::string::npos, "%s",
            err.c_str());
  cr_assert(!ParseDevices("34:00.0,", &spec, &err));
}

Test(devices, accelerator_classes) {
  struct {
    uint32_t vendor, class_id;
    bool accel;
    const char* what;
  } cases[] = {
      {0x10de, 0x0302, true, "NVIDIA 3D controller (A100, H100)"},
      {0x10de, 0x0300, true, "NVIDIA VGA controller (workstation GPU)"},
      {0x10de, 0x0680, false, "NVIDIA NVSwitch (bridge)"},
      {0x10de, 0x0403, false, "NVIDIA audio function"},
      {0x1002, 0x0380, true, "AMD Instinct MI200 (display-other)"},
      {0x1002, 0x1200, true, "AMD Instinct (processing accelerator)"},
      {0x1002, 0x0300, false, "AMD/ATI VGA on a server (ES1000)"},
      {0x8086, 0x0380, true, "Intel Data Center GPU Max"},
      {0x8086, 0x0302, true, "Intel data-centre 3D controller"},
      {0x8086, 0x0300, false, "Intel integrated VGA"},
      {0x8086, 0x0200, false, "Intel NIC"},
      {0x1da3, 0x1200, true, "Habana Gaudi"},
      {0x1a03, 0x0300, false, "ASPEED BMC VGA"},
      {0x102b, 0x0300, false, "Matrox VGA"},
      {0x19e5, 0x0200, false, "Huawei NIC"},
      {0x19e5, 0x1200, true, "Huawei Ascend"},
      {0x1af4, 0x0300, false, "virtio VGA"},
  };
  for (auto& c : cases) {
    PciDevice d;
    d.vendor = c.vendor;
    d.class_id = c.class_id;
    cr_assert_eq(IsAccelerator(d), c.accel, "%s", c.what);
  }
  // A VGA controller of AMD or Intel with evidence of compute: a wide PCIe link or a GPU OS device.
  PciDevice mi50;
  mi50.vendor = 0x1002, mi50.class_id = 0x0300, mi50.link_gbps = 31.5f;
  cr_assert(IsAccelerator(mi50), "AMD MI50 (VGA class) on a x16 link");
  mi50.link_gbps = 0.2f;
  cr_assert(!IsAccelerator(mi50), "AMD ES1000 (VGA class) on plain PCI");
  mi50.compute_osdev = true;
  cr_assert(IsAccelerator(mi50), "AMD VGA with an OpenCL GPU OS device under it");
  PciDevice aspeed;
  aspeed.vendor = 0x1a03, aspeed.class_id = 0x0300, aspeed.link_gbps = 31.5f, aspeed.compute_osdev = true;
  cr_assert(!IsAccelerator(aspeed), "ASPEED VGA, whatever its link");
}

Test(devices, vga_class_instinct_found_by_evidence) {
  // mpibind-epyc-corona.xml (LLNL mpibind's topo-xml): four AMD MI50 (Vega 20, class 0x0300, x16 links,
  // OpenCL GPU OS devices) on nodes 1, 2, 5 and 7, and an ASPEED VGA (0300, no link) on node 0.
  Topology t = Load(TopologyFile("mpibind-epyc-corona.xml"), true);
  STR_EQ(Ids(Select(t, "auto")), "0000:13:00.0,0000:23:00.0,0000:53:00.0,0000:73:00.0");
  // The same machine read live has no OS devices (GPU backends off): the link speed decides alone.
  for (PciDevice& d : t.pci) d.compute_osdev = false;
  STR_EQ(Ids(Select(t, "auto")), "0000:13:00.0,0000:23:00.0,0000:53:00.0,0000:73:00.0");
}

Test(devices, auto_skips_the_management_vga) {
  // 24em64t-2n6c2t-pci.xml: 3 NVIDIA GPUs and an AMD ES1000 VGA (01:03.0), which is not a GPU.
  std::string path = TopologyFile("24em64t-2n6c2t-pci.xml");
  if (!FileExists(path)) cr_assert_fail("missing %s", path.c_str());
  Topology t = Load(path, true);
  STR_EQ(Ids(Select(t, "auto")), "0000:06:00.0,0000:11:00.0,0000:14:00.0");
  STR_EQ(Ids(Select(t, "none")), "");
}

Test(devices, drm_card_of_a_management_vga_is_no_gpu) {
  // hwloc's 96em64t-4n4d3ca2co-pci.xml: four nodes, no GPU, an AMD ES1000 VGA (01:00.0, plain PCI, near
  // node 0) with the DRM card card0 (a GPU OS device) that Linux gives every adapter with a driver.
  // Issue 27: auto took it for a GPU and put every rank on node 0.
  Topology t = Load(TopologyFile("hwloc/96em64t-4n4d3ca2co-pci.xml"), true);
  bool es1000 = false;
  for (const PciDevice& d : t.pci) es1000 |= d.bus_id == "0000:01:00.0" && d.vendor == 0x1002;
  cr_assert(es1000, "no ES1000 at 01:00.0");
  STR_EQ(Ids(Select(t, "auto")), "");
  Basis b;
  PrepareOn(t, "auto", &b, "auto");
  cr_assert(b.basis, "%s", b.error.c_str());
  std::string nodes;
  for (const RankText& r : PlanAll(*b.basis, 4)) nodes += (nodes.empty() ? "" : " | ") + r.nodes;
  STR_EQ(nodes, "0 | 1 | 2 | 3");  // spread over the nodes, one each
}

Test(devices, auto_skips_matrox_vga_not_an_opencl_radeon) {
  // 32em64t-2n8c2t-pci-wholeio.xml: NVIDIA at 03:00.0, 83:00.0, 84:00.0; the Matrox VGA 05:03.0 does not
  // count; the AMD VGA function 84:00.1 (a Radeon HD 7970) does: hwloc put an OpenCL GPU under it.
  std::string path = TopologyFile("32em64t-2n8c2t-pci-wholeio.xml");
  if (!FileExists(path)) cr_assert_fail("missing %s", path.c_str());
  Topology t = Load(path, true);
  STR_EQ(Ids(Select(t, "auto")), "0000:03:00.0,0000:83:00.0,0000:84:00.0,0000:84:00.1");
}

Test(devices, auto_orders_by_bus_id) {
  Topology t = Load("synthetic:pack:2 numa:2 core:2 pu:1");
  t.pci = {Gpu("0000:b1:00.0", 3), Gpu("0000:1a:00.0", 0), Gpu("0001:05:00.0", 2), Gpu("0000:1a:00.1", 1)};
  t.io_loaded = true;
  STR_EQ(Ids(Select(t, "auto")), "0000:1a:00.0,0000:1a:00.1,0000:b1:00.0,0001:05:00.0");
}

Test(devices, visible_devices_select_and_order) {
  Topology t = Load("synthetic:pack:2 numa:2 core:2 pu:1");
  t.pci = {Gpu("0000:10:00.0", 0), Gpu("0000:20:00.0", 1), Gpu("0000:30:00.0", 2), Gpu("0000:40:00.0", 3),
           Gpu("0000:50:00.0", 0, 0x1a03, 0x0300)};  // plus a BMC VGA
  t.io_loaded = true;
  const char* env1[] = {"PATH=/bin", "CUDA_VISIBLE_DEVICES=2,0", nullptr};
  STR_EQ(Ids(Select(t, "auto", env1)), "0000:30:00.0,0000:10:00.0");
  const char* env2[] = {"CUDA_VISIBLE_DEVICES=GPU-8f6c1a2e-1111-2222-3333-444455556666", nullptr};
  STR_EQ(Ids(Select(t, "auto", env2)), "0000:10:00.0,0000:20:00.0,0000:30:00.0,0000:40:00.0");
  const char* env3[] = {"CUDA_VISIBLE_DEVICES=1,7,2", nullptr};  // 7 does not exist: the list ends there
  STR_EQ(Ids(Select(t, "auto", env3)), "0000:20:00.0");
  // NVIDIA's rule: the first invalid entry ends the list ("0,2,-1,1" is devices 0 and 2); an empty value
  // or "-1" leaves none (the job sees no GPU: none is planned for).
  const char* env4[] = {"CUDA_VISIBLE_DEVICES=0,2,-1,1", nullptr};
  STR_EQ(Ids(Select(t, "auto", env4)), "0000:10:00.0,0000:30:00.0");
  const char* env4b[] = {"CUDA_VISIBLE_DEVICES=3,none,0", nullptr};
  STR_EQ(Ids(Select(t, "auto", env4b)), "0000:40:00.0");
  for (const char* none : {"CUDA_VISIBLE_DEVICES=", "CUDA_VISIBLE_DEVICES=-1", "CUDA_VISIBLE_DEVICES=-1,0"}) {
    const char* env[] = {none, nullptr};
    cr_expect_eq(Select(t, "auto", env).size(), 0u, "%s", none);
  }
  const char* env5[] = {"HIP_VISIBLE_DEVICES=1", nullptr};  // no AMD devices: ignored
  cr_assert_eq(Select(t, "auto", env5).size(), 4u);
  // An explicit list is used as given.
  STR_EQ(Ids(Select(t, "40:00.0,10:00.0", env1)), "0000:40:00.0,0000:10:00.0");
}

Test(devices, rocr_then_hip) {
  Topology t = Load("synthetic:pack:2 numa:2 core:2 pu:1");
  t.pci = {Gpu("0000:10:00.0", 0, 0x1002, 0x0380), Gpu("0000:20:00.0", 1, 0x1002, 0x0380),
           Gpu("0000:30:00.0", 2, 0x1002, 0x0380), Gpu("0000:40:00.0", 3, 0x1002, 0x0380)};
  t.io_loaded = true;
  const char* env1[] = {"ROCR_VISIBLE_DEVICES=3,1,2", nullptr};
  STR_EQ(Ids(Select(t, "auto", env1)), "0000:40:00.0,0000:20:00.0,0000:30:00.0");
  const char* env2[] = {"ROCR_VISIBLE_DEVICES=3,1,2", "HIP_VISIBLE_DEVICES=2", nullptr};
  STR_EQ(Ids(Select(t, "auto", env2)), "0000:30:00.0");
  const char* env3[] = {"HIP_VISIBLE_DEVICES=0,3", nullptr};
  STR_EQ(Ids(Select(t, "auto", env3)), "0000:10:00.0,0000:40:00.0");
  // Each list ends at its first invalid entry: ROCR leaves 3 and 1, HIP's 1 of those is device 1.
  const char* env4[] = {"ROCR_VISIBLE_DEVICES=3,1,-1,2", "HIP_VISIBLE_DEVICES=1,x,0", nullptr};
  STR_EQ(Ids(Select(t, "auto", env4)), "0000:20:00.0");
  // An empty HIP_VISIBLE_DEVICES is unset to HIP (its default); an empty ROCR_VISIBLE_DEVICES leaves none.
  const char* env5[] = {"ROCR_VISIBLE_DEVICES=3", "HIP_VISIBLE_DEVICES=", nullptr};
  STR_EQ(Ids(Select(t, "auto", env5)), "0000:40:00.0");
  const char* env6[] = {"ROCR_VISIBLE_DEVICES=", nullptr};
  cr_expect_eq(Select(t, "auto", env6).size(), 0u);
}

Test(devices, explicit_list) {
  Topology t = Load("synthetic:pack:2 numa:2 core:2 pu:1");
  // No PCI information (synthetic): listed devices have unknown locality.
  std::vector<PciDevice> d = Select(t, "34:00.0,0000:35:00.0");
  STR_EQ(Ids(d), "0000:34:00.0,0000:35:00.0");
  cr_assert(!d[0].locality_known);
  cr_assert_eq(d[1].bus, 0x35u);
  d = Select(t, "1A:35:1f.7");  // every field from the one bus id grammar
  cr_assert(d[0].domain == 0x1a && d[0].bus == 0x35 && d[0].dev == 0x1f && d[0].func == 7);
  // With PCI information, a device the machine does not have is an error; one it has keeps its node.
  t.pci = {Gpu("0000:10:00.0", 2)};
  t.io_loaded = true;
  d = Select(t, "10:00.0");
  cr_assert(d[0].locality_known);
  STR_EQ(d[0].nodes.ToList(), "2");
  DeviceSpec spec;
  std::string err;
  cr_assert(ParseDevices("10:00.0,99:00.0", &spec, &err));
  cr_assert(!SelectDevices(t, spec, nullptr, &d, &err));
  cr_assert(err.find("0000:99:00.0") != std::string::npos, "%s", err.c_str());
}
