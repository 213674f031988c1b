// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Loading topologies: hwloc synthetic descriptions and real machines' XML files (tests/data/topologies).
// Every expected value below was read off the description or the file (lstopo-no-graphics --input FILE -p),
// not computed by the code under test.

#include <criterion/criterion.h>

#include <unistd.h>

#include <string>

#include "planner/topology.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::FileExists;
using numabind::testing::Load;
using numabind::testing::TopologyFile;

static std::string XmlOrSkip(const char* name) {
  std::string path = TopologyFile(name);
  if (!FileExists(path))
    cr_assert_fail("topology file %s is missing from tests/data/topologies", path.c_str());
  return path;
}

static std::string NodeCpus(const Topology& t, uint32_t os) {
  int i = t.NodeIndex(os);
  return i < 0 ? "(no node)" : t.nodes[i].cpus.ToList();
}

Test(topology, synthetic_two_sockets_two_nodes_two_l3_smt) {
  // 2 packages x 2 nodes x 2 L3 x 4 cores x 2 PUs = 64 PUs, numbered in order: node n holds 16n..16n+15.
  Topology t = Load("synthetic:pack:2 numa:2 l3:2 core:4 pu:2");
  cr_assert_eq(t.pus.size(), 64u);
  cr_assert_eq(t.cores.size(), 32u);
  cr_assert_eq(t.llcs.size(), 8u);
  cr_assert_eq(t.nodes.size(), 4u);
  cr_assert_eq(t.packages.size(), 2u);
  STR_EQ(t.online.ToList(), "0-63");
  STR_EQ(t.allowed.ToList(), "0-63");
  STR_EQ(NodeCpus(t, 0), "0-15");
  STR_EQ(NodeCpus(t, 3), "48-63");
  STR_EQ(t.packages[1].cpus.ToList(), "32-63");
  STR_EQ(t.cores[0].cpus.ToList(), "0-1");
  STR_EQ(t.cores[31].cpus.ToList(), "62-63");
  STR_EQ(t.llcs[0].cpus.ToList(), "0-7");
  STR_EQ(t.llcs[7].cpus.ToList(), "56-63");
  cr_assert_eq(t.llcs[0].level, 3u);
  const TopoPu* pu = t.FindPu(37);
  cr_assert(pu);
  cr_assert_eq(t.nodes[pu->node].os, 2u);
  cr_assert_eq(pu->package, 1);
  STR_EQ(t.llcs[pu->llc].cpus.ToList(), "32-39");
  STR_EQ(t.cores[pu->core].cpus.ToList(), "36-37");
  STR_EQ(t.CpuNodes().ToList(), "0-3");
  cr_assert_eq(t.NodeLimit(), 4u);
  STR_EQ(t.NodesOfCpus(CpuSet::Range(15, 16)).ToList(), "0-1");
  cr_assert(!t.io_loaded);
  cr_assert(!t.live);
}

Test(topology, synthetic_quoted_and_smt_off) {
  Topology t = Load("synthetic:\"pack:2 numa:2 l3:2 core:4 pu:1\"");
  cr_assert_eq(t.pus.size(), 32u);
  cr_assert_eq(t.cores.size(), 32u);
  STR_EQ(t.cores[5].cpus.ToList(), "5");
  STR_EQ(NodeCpus(t, 1), "8-15");
  Topology q = Load("synthetic:'pack:1 core:2 pu:2'");
  cr_assert_eq(q.pus.size(), 4u);
  cr_assert_eq(q.nodes.size(), 1u);  // hwloc adds the one node
  STR_EQ(NodeCpus(q, 0), "0-3");
}

Test(topology, synthetic_without_caches_or_cores) {
  // No cache level: a PU's core stands in for its last-level cache. No core level: each PU is a core.
  Topology t = Load("synthetic:pack:2 core:2 pu:2");
  cr_assert_eq(t.llcs.size(), 4u);
  cr_assert_eq(t.llcs[1].level, 0u);
  STR_EQ(t.llcs[1].cpus.ToList(), "2-3");
  Topology u = Load("synthetic:pack:2 pu:3");
  cr_assert_eq(u.cores.size(), 6u);
  STR_EQ(u.cores[4].cpus.ToList(), "4");
}

Test(topology, synthetic_more_than_1024_pus) {
  // 8 packages x 2 nodes x 2 L3 x 32 cores x 2 PUs = 2048 PUs; node n holds 128n..128n+127.
  Topology t = Load("synthetic:pack:8 numa:2 l3:2 core:32 pu:2");
  cr_assert_eq(t.pus.size(), 2048u);
  STR_EQ(t.allowed.ToList(), "0-2047");
  STR_EQ(NodeCpus(t, 15), "1920-2047");
  STR_EQ(t.packages[7].cpus.ToList(), "1792-2047");
  cr_assert_eq(t.FindPu(2047)->package, 7);
  STR_EQ(t.llcs[t.FindPu(2047)->llc].cpus.ToList(), "1984-2047");
}

Test(topology, bad_specs) {
  Topology t;
  std::string err;
  LoadOptions o;
  cr_assert(!LoadTopology("synthetic:pack:banana", o, &t, &err));
  cr_assert(err.find("synthetic") != std::string::npos, "%s", err.c_str());
  cr_assert(!LoadTopology("synthetic:", o, &t, &err));
  cr_assert(!LoadTopology("/nonexistent/topology.xml", o, &t, &err));
  cr_assert(err.find("/nonexistent/topology.xml") != std::string::npos, "%s", err.c_str());
  cr_assert(!LoadTopology("tests/planner/cpu_set_test.cc", o, &t, &err));  // not XML
}

Test(topology, huge_synthetic_descriptions_refused_at_once, .timeout = 20) {
  // "pack:1000 core:1000 pu:1000" (a billion PUs) kept the planner helper busy for minutes.
  Topology t;
  std::string err;
  LoadOptions o;
  for (const char* spec :
       {"synthetic:pack:1000 core:1000 pu:1000", "synthetic:pack:2 numa:2(memory=1GB) core:16385 pu:2",
        "synthetic:pack:99999999999999999999 pu:2"}) {
    cr_assert(!LoadTopology(spec, o, &t, &err), "%s loaded", spec);
    cr_expect(err.find("more than 65536 PUs") != std::string::npos, "%s: %s", spec, err.c_str());
  }
  Topology big = Load("synthetic:pack:2 numa:2(memory=1GB) core:8 pu:2");
  cr_expect_eq(big.pus.size(), 64u);
}

Test(topology, live_machine) {
  Topology t = Load("", true);
  cr_assert(t.live);
  cr_assert(!t.pus.empty());
  cr_assert(!t.allowed.Empty());
  cr_assert(t.allowed.IsSubsetOf(t.online));
  cr_assert(t.allowed.IsSubsetOf(t.affinity));
  cr_assert(!t.NodesWithAllowedCpus().Empty());
  cr_assert(t.io_loaded);
}

Test(topology, xml_restricted_allowed_set) {
  // 16amd64-8n2c-cpusets.xml: allowed_cpuset 0x0000f06f, complete 0xffff; nodes 1 (CPUs 2-3), 2 (CPU 5)
  // and 3 (CPU 6) have CPUs, nodes 4 and 5 have none; CPUs 0-1 and 12-15 have no node in the file.
  Topology t = Load(XmlOrSkip("16amd64-8n2c-cpusets.xml"));
  STR_EQ(t.complete.ToList(), "0-15");
  STR_EQ(t.online.ToList(), "0-3,5-6,12-15");
  STR_EQ(t.allowed.ToList(), "0-3,5-6,12-15");
  STR_EQ(t.allowed_nodes.ToList(), "1-5");
  cr_assert_eq(t.nodes.size(), 5u);
  STR_EQ(NodeCpus(t, 1), "2-3");
  STR_EQ(NodeCpus(t, 2), "5");
  STR_EQ(NodeCpus(t, 3), "6");
  STR_EQ(NodeCpus(t, 4), "");
  STR_EQ(NodeCpus(t, 5), "");
  STR_EQ(t.CpuNodes().ToList(), "1-3");
  cr_assert_eq(t.FindPu(0)->node, -1);
  cr_assert_eq(t.packages.size(), 6u);
  cr_assert_eq(t.FindPu(14)->package, 5);  // Package P#7 is the sixth package
  cr_assert_eq(t.packages[5].os, 7u);
}

Test(topology, xml_offline_cpus) {
  // 16em64t-4s2c2t-offlines.xml: cpuset 0x0000905b of complete 0x0000ffff, one node, 4 packages.
  Topology t = Load(XmlOrSkip("16em64t-4s2c2t-offlines.xml"));
  STR_EQ(t.complete.ToList(), "0-15");
  STR_EQ(t.online.ToList(), "0-1,3-4,6,12,15");
  STR_EQ(t.complete.Minus(t.online).ToList(), "2,5,7-11,13-14");
  STR_EQ(t.allowed.ToList(), "0-1,3-4,6,12,15");
  cr_assert_eq(t.pus.size(), 7u);
  cr_assert_eq(t.cores.size(), 6u);  // package 0 core 1 keeps PUs 4 and 12; every other core one PU
  STR_EQ(t.cores[t.FindPu(4)->core].cpus.ToList(), "4,12");
  cr_assert_eq(t.packages.size(), 4u);
  STR_EQ(t.packages[0].cpus.ToList(), "0,4,12");
  STR_EQ(t.packages[3].cpus.ToList(), "3,15");
  STR_EQ(NodeCpus(t, 0), "0-1,3-4,6,12,15");
  STR_EQ(t.llcs[t.FindPu(15)->llc].cpus.ToList(), "3,15");  // one L3 per package
}

Test(topology, xml_pci_gpus_with_locality) {
  // 24em64t-2n6c2t-pci.xml: node 0 = package 0 = even CPUs, node 1 = odd CPUs; NVIDIA 3D controllers at
  // 06:00.0 (package 0), 11:00.0 and 14:00.0 (package 1); an AMD ES1000 VGA (1002:515e) at 01:03.0.
  Topology t = Load(XmlOrSkip("24em64t-2n6c2t-pci.xml"), true);
  cr_assert(t.io_loaded);
  STR_EQ(NodeCpus(t, 0), "0,2,4,6,8,10,12,14,16,18,20,22");
  STR_EQ(NodeCpus(t, 1), "1,3,5,7,9,11,13,15,17,19,21,23");
  const PciDevice* gpu = nullptr;
  const PciDevice* vga = nullptr;
  for (const PciDevice& d : t.pci) {
    if (d.bus_id == "0000:11:00.0") gpu = &d;
    if (d.bus_id == "0000:01:03.0") vga = &d;
  }
  cr_assert(gpu && vga);
  cr_assert_eq(gpu->vendor, 0x10deu);
  cr_assert_eq(gpu->device, 0x06d2u);
  cr_assert_eq(gpu->class_id, 0x0302u);
  cr_assert(gpu->locality_known);
  STR_EQ(gpu->nodes.ToList(), "1");
  cr_assert_eq(vga->vendor, 0x1002u);
  cr_assert_eq(vga->class_id, 0x0300u);
  STR_EQ(vga->nodes.ToList(), "0");
  // Sorted by bus id.
  for (size_t i = 1; i < t.pci.size(); ++i)
    cr_assert(t.pci[i - 1].bus_id <= t.pci[i].bus_id, "%s before %s", t.pci[i - 1].bus_id.c_str(),
              t.pci[i].bus_id.c_str());
}

Test(topology, xml_without_pci_discovery) {
  Topology t = Load(XmlOrSkip("24em64t-2n6c2t-pci.xml"), false);
  cr_assert(!t.io_loaded);
  cr_assert(t.pci.empty());
}

Test(topology, xml_power8_gpus_on_two_sockets) {
  // power8gpudistances.xml: 16 online PUs in 8 cores; 4 NVIDIA GPUs in PCI domains 2 and 3 (package 0,
  // node 0) and 0xa and 0xb (package 1, node 1).
  Topology t = Load(XmlOrSkip("power8gpudistances.xml"), true);
  STR_EQ(t.online.ToList(), "0-1,8-9,16-17,24-25,80-81,88-89,96-97,104-105");
  STR_EQ(NodeCpus(t, 1), "80-81,88-89,96-97,104-105");
  std::string ids, nodes;
  for (const PciDevice& d : t.pci) {
    if (d.class_id != 0x0302) continue;
    ids += d.bus_id + " ";
    nodes += d.nodes.ToList() + " ";
  }
  STR_EQ(ids, "0002:01:00.0 0003:01:00.0 000a:01:00.0 000b:01:00.0 ");
  STR_EQ(nodes, "0 0 1 1 ");
}

Test(topology, xml_knl_hbm_nodes_have_no_cpus) {
  // 64intel64-fakeKNL-SNC4-hybrid.xml: 4 clusters, each with a DDR node (0-3) and an MCDRAM node (7, 4,
  // 5, 6) over the same 16 PUs; L3 "MemorySideCache" objects are memory-side, the L2 is the CPU's last
  // level (shared by the 2 cores of a tile).
  Topology t = Load(XmlOrSkip("64intel64-fakeKNL-SNC4-hybrid.xml"));
  cr_assert_eq(t.nodes.size(), 8u);
  STR_EQ(t.CpuNodes().ToList(), "0-3");
  STR_EQ(NodeCpus(t, 0), "0-3,16-19,32-35,48-51");
  STR_EQ(NodeCpus(t, 7), "");
  STR_EQ(t.nodes[t.NodeIndex(7)].subtype, "MCDRAM");
  STR_EQ(t.nodes[t.NodeIndex(7)].locality.ToList(), "0-3,16-19,32-35,48-51");
  STR_EQ(t.NodesWithAllowedCpus().ToList(), "0-3");
  const TopoPu* pu = t.FindPu(0);
  cr_assert_eq(t.llcs[pu->llc].level, 2u);
  STR_EQ(t.llcs[pu->llc].cpus.ToList(), "0-1,16-17,32-33,48-49");
  STR_EQ(t.cores[pu->core].cpus.ToList(), "0,16,32,48");
  cr_assert_eq(t.cores.size(), 16u);
}

Test(topology, xml_384_pus) {
  // 192em64t-12gr2n8c2t.xml: 12 groups x 2 packages (one node each) x 8 cores x 2 PUs; core c of node n
  // has PUs 8n+c and 192+8n+c.
  Topology t = Load(XmlOrSkip("192em64t-12gr2n8c2t.xml"));
  cr_assert_eq(t.pus.size(), 384u);
  cr_assert_eq(t.nodes.size(), 24u);
  cr_assert_eq(t.packages.size(), 24u);
  cr_assert_eq(t.cores.size(), 192u);
  STR_EQ(t.allowed.ToList(), "0-383");
  STR_EQ(NodeCpus(t, 0), "0-7,192-199");
  STR_EQ(NodeCpus(t, 23), "184-191,376-383");
  STR_EQ(t.cores[t.FindPu(200)->core].cpus.ToList(), "8,200");
  STR_EQ(t.llcs[t.FindPu(383)->llc].cpus.ToList(), "184-191,376-383");
}

Test(topology, xml_whole_io_tree) {
  // 32em64t-2n8c2t-pci-wholeio.xml: NVIDIA 3D controllers at 03:00.0 (node 0), 83:00.0 and 84:00.0
  // (node 1); a Matrox VGA at 05:03.0 and an AMD VGA at 84:00.1.
  Topology t = Load(XmlOrSkip("32em64t-2n8c2t-pci-wholeio.xml"), true);
  std::string summary;
  for (const PciDevice& d : t.pci)
    if ((d.class_id >> 8) == 0x03) summary += d.bus_id + "/" + d.nodes.ToList() + " ";
  STR_EQ(summary, "0000:03:00.0/0 0000:05:03.0/0 0000:83:00.0/1 0000:84:00.0/1 0000:84:00.1/1 ");
}

Test(topology, xml_hand_made_allowed_offline_and_pci_locality) {
  std::string path = numabind::testing::WriteHandMadeXml();
  Topology t = Load(path, true);
  unlink(path.c_str());
  STR_EQ(t.complete.ToList(), "0-5");
  STR_EQ(t.online.ToList(), "0-3");
  STR_EQ(t.hwloc_allowed.ToList(), "0-2");
  STR_EQ(t.allowed.ToList(), "0-2");
  STR_EQ(t.cores[t.FindPu(3)->core].cpus.ToList(), "2-3");  // a disallowed PU still belongs to its core
  STR_EQ(NodeCpus(t, 1), "2-3");
  cr_assert_eq(t.pci.size(), 3u);
  STR_EQ(t.pci[0].bus_id, "0000:01:00.0");
  cr_assert(!t.pci[0].locality_known);
  STR_EQ(t.pci[0].nodes.ToList(), "");
  STR_EQ(t.pci[1].bus_id, "0000:02:00.0");
  cr_assert(t.pci[1].locality_known);
  STR_EQ(t.pci[1].nodes.ToList(), "1");
  STR_EQ(t.pci[2].bus_id, "0000:03:00.0");
  cr_assert_eq(t.pci[2].vendor, 0x1a03u);
  STR_EQ(t.pci[2].nodes.ToList(), "0");
}
