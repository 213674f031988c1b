// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NIC discovery (planner/nics.cc: hwloc's OpenFabrics OS devices, ports, locality, PCI bridges) and the
// choice of each rank's rails (planner/nic_choice.cc, PickNics): nearest tiers with and without devices, the
// multi-rail split among ranks sharing a set, and no NICs at all.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "config/grammar.h"
#include "planner/nics.h"
#include "planner/rdma_sysfs.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::Load;
using numabind::testing::TopologyDir;
using numabind::testing::TopologyFile;

namespace {

const char kMultiRail[] = "8em64t-2n2c2t-4gpu-multirail.xml";

// Layout B of tests/vm (run.sh) as its guest's hwloc 2.9 exported it, without and with
// HWLOC_VIRTUAL_LINUX_OSDEV=1, and the guest's sysfs after layout_B.sh made rxe0-rxe3 on eth0-eth3
// (tests/data/sysfs/vm-layout-b: 0000:11:01.0 and 11:02.0 on node 0, 21:02.0 and 21:03.0 on node 1, the
// last one's port down).
const char kGuest[] = "vm/8qemu-2n4c-4net-rxe.xml";
const char kGuestVirtual[] = "vm/8qemu-2n4c-4net-rxe-virtual-osdev.xml";

std::string GuestSysfs() { return TopologyDir() + "/../sysfs/vm-layout-b"; }

Topology LoadNics(const std::string& spec, bool pci = true, const std::string& sysfs = "") {
  Topology topo;
  std::string err;
  LoadOptions options;
  options.pci = pci;
  options.nics = true;
  options.sysfs_root = sysfs;
  cr_assert(LoadTopology(spec.c_str(), options, &topo, &err), "%s", err.c_str());
  return topo;
}

std::string Ports(const std::vector<uint32_t>& ports) {
  std::string s;
  for (uint32_t p : ports) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// Every rank's nics for `nranks` ranks of a basis, "|"-separated.
std::string RankNics(const PlanBasis& basis, uint32_t nranks) {
  std::string s;
  std::vector<uint64_t> cpus(basis.cpu_words), nodes(basis.node_words);
  for (uint32_t r = 0; r < nranks; ++r) {
    RankPlan plan;
    plan.cpus = cpus.data();
    plan.nodes = nodes.data();
    cr_assert(ComputeRankPlan(basis, r, nranks, &plan), "%s", plan.error);
    cr_assert(plan.nics != nullptr);
    s += (r > 0 ? "|" : "") + std::string(plan.nics);
  }
  return s;
}

void Prepare(const Topology& topo, const char* policy, const char* devices, bool nics, Basis* out) {
  PrepareRequest req;
  cr_assert(RequestFromText(policy, nullptr, devices, &req, &out->error), "%s", out->error.c_str());
  req.want_nics = nics;
  out->basis = PreparePlanBasis(topo, req, &out->error);
  cr_assert(out->basis != nullptr, "%s", out->error.c_str());
}

}  // namespace

Test(nics, export_asks_for_nics) {
  // The library and the command ask for NICs (want_nics) exactly when NUMABIND_EXPORT has nic.
  uint8_t bits = 0;
  char why[160];
  cr_assert(numabind::config::ParseExportText("omp,nic,gpu", &bits, why, sizeof why));
  cr_assert((bits & numabind::config::kExportNic) != 0);
  cr_assert(numabind::config::ParseExportText("omp,gpu", &bits, why, sizeof why));
  cr_assert((bits & numabind::config::kExportNic) == 0);
  cr_assert(!numabind::config::ParseExportText("nics", &bits, why, sizeof why));
}

Test(nics, discovered_only_when_asked) {
  Topology topo = Load(TopologyFile("32em64t-2n8c2t-pci-wholeio.xml"), true);
  cr_assert(!topo.nics_loaded);
  cr_assert(topo.nics.empty());
}

Test(nics, connectx4_with_an_active_port) {
  Topology topo = LoadNics(TopologyFile("32em64t-2n8c2t-pci-wholeio.xml"));
  cr_assert(topo.nics_loaded);
  cr_assert_eq(topo.nics.size(), 1u);
  const Nic& n = topo.nics[0];
  STR_EQ(n.name, "mlx5_0");
  STR_EQ(n.bus_id, "0000:04:00.0");
  STR_EQ(Ports(n.ports), "1");  // Port1State 4: ACTIVE
  cr_assert(n.down.empty());
  cr_assert(n.locality_known);
  STR_EQ(n.nodes.ToList(), "1");
}

Test(nics, hca_without_port_state_and_without_any_port_info) {
  // 192em64t: Port1LID but no Port1State (usable, state unknown); 24em64t: no infos at all (port 1).
  Topology big = LoadNics(TopologyFile("192em64t-12gr2n8c2t.xml"));
  cr_assert_eq(big.nics.size(), 1u);
  STR_EQ(big.nics[0].name, "mlx4_0");
  STR_EQ(big.nics[0].bus_id, "0003:01:00.0");
  STR_EQ(Ports(big.nics[0].ports), "1");
  cr_assert(big.nics[0].locality_known);
  Topology old = LoadNics(TopologyFile("24em64t-2n6c2t-pci.xml"));
  cr_assert_eq(old.nics.size(), 1u);
  STR_EQ(old.nics[0].name, "mlx4_0");
  STR_EQ(Ports(old.nics[0].ports), "1");
  STR_EQ(old.nics[0].nodes.ToList(), "0");
}

Test(nics, multirail_discovery_ports_bridges_and_nodes) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  std::vector<std::string> names, nodes;
  for (const Nic& n : topo.nics) names.push_back(n.name), nodes.push_back(n.nodes.ToList());
  STR_EQ(Join(names), "mlx5_0,mlx5_1,mlx5_4,mlx5_2,mlx5_3");  // bus id order
  STR_EQ(Join(nodes), "0,0,0,1,1");
  const Nic& storage = topo.nics[2];
  STR_EQ(Ports(storage.ports), "1");
  STR_EQ(Ports(storage.down), "2");  // Port2State 1: DOWN
  STR_EQ(Join(topo.nics[0].bridges), "0000:02:01.0,0000:01:00.0,0000:00:01.0");
  STR_EQ(Join(storage.bridges), "0000:00:03.0");
  // The GPUs know their bridges too.
  cr_assert_eq(topo.pci.size(), 9u);
  STR_EQ(topo.pci[0].bus_id, "0000:03:00.0");
  STR_EQ(Join(topo.pci[0].bridges), "0000:02:00.0,0000:01:00.0,0000:00:01.0");
}

Test(nics, synthetic_topology_has_none) {
  Topology topo = LoadNics("synthetic:pack:2 numa:1 core:2 pu:1");
  cr_assert(topo.nics_loaded);
  cr_assert(topo.nics.empty());
  Basis b;
  Prepare(topo, "node", "none", true, &b);
  STR_EQ(RankNics(*b.basis, 4), "|||");
  cr_assert_eq(b.basis->nic_set_count, 0u);
}

Test(nics, tiers_with_gpus) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  NicTier tier;
  NodeSet n0, n1;
  n0.Set(0), n1.Set(1);
  STR_EQ(Join(NearestRails(topo, NicPlace{"0000:03:00.0", n0, false}, &tier)), "mlx5_0:1");
  cr_assert(tier == NicTier::kSwitch);
  // GPU 87 has no HCA behind its switch: its node's, those behind another GPU's switch last.
  STR_EQ(Join(NearestRails(topo, NicPlace{"0000:87:00.0", n1, false}, &tier)), "mlx5_2:1,mlx5_3:1");
  cr_assert(tier == NicTier::kNode);
  STR_EQ(Join(NearestRails(topo, NicPlace{"0000:87:00.0", n1, false}, &tier, {"mlx5_2"})), "mlx5_3:1");
  // Unknown locality: every HCA.
  STR_EQ(Join(NearestRails(topo, NicPlace{"", n0, true}, &tier)),
         "mlx5_0:1,mlx5_1:1,mlx5_4:1,mlx5_2:1,mlx5_3:1");
  cr_assert(tier == NicTier::kAny);
}

Test(nics, package_then_any_tier) {
  // Two packages of two nodes; one HCA (added by hand: no XML here has one) near node 1.
  Topology topo = LoadNics("synthetic:pack:2 numa:2 core:2 pu:1");
  Nic hca;
  hca.name = "mlx5_0";
  hca.ports = {1};
  hca.nodes.Set(1);
  hca.locality_known = true;
  topo.nics.push_back(hca);
  const char* expected[] = {"package", "node", "any", "any"};
  for (uint32_t node = 0; node < 4; ++node) {
    NodeSet one;
    one.Set(node);
    NicTier tier;
    STR_EQ(Join(NearestRails(topo, NicPlace{"", one, false}, &tier)), "mlx5_0:1");
    STR_EQ(NicTierName(tier), expected[node]);
  }
  // An HCA without usable ports is never chosen.
  topo.nics[0].down = topo.nics[0].ports;
  topo.nics[0].ports.clear();
  NicTier tier;
  NodeSet one;
  one.Set(1);
  cr_assert(NearestRails(topo, NicPlace{"", one, false}, &tier).empty());
  cr_assert(tier == NicTier::kNone);
}

Test(nics, one_rank_per_gpu_gets_its_switch_hca) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  Basis b;
  Prepare(topo, "node", "auto", true, &b);
  STR_EQ(RankNics(*b.basis, 4), "mlx5_0:1|mlx5_1:1|mlx5_2:1|mlx5_3:1");
  // Two ranks per GPU share its HCA.
  STR_EQ(RankNics(*b.basis, 8), "mlx5_0:1|mlx5_1:1|mlx5_2:1|mlx5_3:1|mlx5_0:1|mlx5_1:1|mlx5_2:1|mlx5_3:1");
}

Test(nics, without_gpus_ranks_split_their_nodes_rails) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  Basis b;
  Prepare(topo, "node", "none", true, &b);
  // Node 0: 3 rails (mlx5_4's port 2 is down), node 1: 2.
  STR_EQ(RankNics(*b.basis, 2), "mlx5_0:1,mlx5_1:1,mlx5_4:1|mlx5_2:1,mlx5_3:1");
  // m <= k: contiguous shares, floor(i*k/m) .. floor((i+1)*k/m)-1.
  STR_EQ(RankNics(*b.basis, 4), "mlx5_0:1|mlx5_1:1,mlx5_4:1|mlx5_2:1|mlx5_3:1");
  STR_EQ(RankNics(*b.basis, 6), "mlx5_0:1|mlx5_1:1|mlx5_4:1|mlx5_2:1|mlx5_2:1|mlx5_3:1");
  // m > k: blocks of neighbouring ranks share a rail.
  STR_EQ(RankNics(*b.basis, 8), "mlx5_0:1|mlx5_0:1|mlx5_1:1|mlx5_4:1|mlx5_2:1|mlx5_2:1|mlx5_3:1|mlx5_3:1");
}

Test(nics, maps_use_their_entries_nodes) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  Basis b;
  Prepare(topo, "cpus:4-5|0-1", "none", true, &b);
  STR_EQ(RankNics(*b.basis, 2), "mlx5_2:1,mlx5_3:1|mlx5_0:1,mlx5_1:1,mlx5_4:1");
}

Test(nics, not_wanted_means_none) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  Basis b;
  Prepare(topo, "node", "auto", false, &b);
  STR_EQ(RankNics(*b.basis, 4), "|||");
  cr_assert_eq(b.basis->nic_set_count, 0u);
}

Test(nics, basis_survives_the_trip_to_another_process) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  Basis b;
  Prepare(topo, "node", "none", true, &b);
  std::string expected = RankNics(*b.basis, 4);
  size_t size = b.basis->total_bytes;
  std::vector<char> copy(size + 8);
  char* block = copy.data() + (8 - reinterpret_cast<uintptr_t>(copy.data()) % 8) % 8;
  BasisToOffsets(b.basis);
  memcpy(block, b.basis, size);
  cr_assert(BasisFromOffsets(block, size));
  STR_EQ(RankNics(*reinterpret_cast<PlanBasis*>(block), 4), expected);
  // An offset past the text, a set larger than its ranges, or text without its final NUL is refused.
  memcpy(block, b.basis, size);
  PlanBasis* p = reinterpret_cast<PlanBasis*>(block);
  p->nic_text_bytes = size;  // past the block
  cr_assert(!BasisFromOffsets(block, size));
  memcpy(block, b.basis, size);
  const_cast<PlanNicSet*>(
      reinterpret_cast<const PlanNicSet*>(block + reinterpret_cast<uintptr_t>(p->nic_sets)))
      ->rail_count = kMaxNicRails + 1;
  cr_assert(!BasisFromOffsets(block, size));
  memcpy(block, b.basis, size);
  block[reinterpret_cast<uintptr_t>(p->nic_text) + p->nic_text_bytes - 1] = 'x';
  cr_assert(!BasisFromOffsets(block, size));
  BasisFromOffsets(b.basis, size);  // back to pointers for ~Basis (free only needs the address)
}

Test(nics, basis_growth) {
  Topology topo = LoadNics(TopologyFile(kMultiRail));
  Basis with, without;
  Prepare(topo, "node", "auto", true, &with);
  Prepare(topo, "node", "auto", false, &without);
  cr_assert_gt(with.basis->total_bytes, without.basis->total_bytes);
  // docs/internals.md's figure (+80 bytes with devices): 1008 against 928 bytes.
}

Test(nics, sysfs_rdma_devices_and_their_netdevs_functions) {
  std::vector<SysfsRdma> devs = ReadSysfsRdma(GuestSysfs());
  std::vector<std::string> names, netdevs, buses, ports;
  for (const SysfsRdma& d : devs)
    names.push_back(d.name), netdevs.push_back(d.netdev), buses.push_back(d.bus_id),
        ports.push_back(Ports(d.ports) + "/" + Ports(d.down));
  STR_EQ(Join(names), "rxe0,rxe1,rxe2,rxe3");
  STR_EQ(Join(netdevs), "eth0,eth1,eth2,eth3");
  // eth0's `device` is its virtio device, a child of the PCI function.
  STR_EQ(Join(buses), "0000:11:01.0,0000:11:02.0,0000:21:02.0,0000:21:03.0");
  STR_EQ(Join(ports), "1/,1/,1/,/1");  // usable/down: rxe3's "1: DOWN"
  cr_assert(ReadSysfsRdma(GuestSysfs() + "/missing").empty());
  STR_EQ(PciFunctionOf("/sys/devices/pci0000:20/0000:20:00.0/0000:21:02.0/virtio6"), "0000:21:02.0");
  STR_EQ(PciFunctionOf("/sys/devices/pci0000:20/0000:20:00.0"), "0000:20:00.0");
  STR_EQ(PciFunctionOf("/sys/devices/virtual/net/lo"), "");
}

Test(nics, soft_roce_hwloc_alone_does_not_place) {
  // The live machine's view from hwloc only: no OpenFabrics device at all; with virtual OS devices, four
  // under the machine, near no node.
  cr_assert(LoadNics(TopologyFile(kGuest)).nics.empty());
  Topology virt = LoadNics(TopologyFile(kGuestVirtual));
  cr_assert_eq(virt.nics.size(), 4u);
  for (const Nic& n : virt.nics) cr_assert(!n.locality_known && n.bus_id.empty(), "%s", n.name.c_str());
}

Test(nics, soft_roce_placed_at_its_netdevs_pci_function) {
  // Each value is prefixed with the file's name, so that a failure says which file.
  auto At = [](const char* file, const std::string& v) { return std::string(file) + ": " + v; };
  for (const char* file : {kGuest, kGuestVirtual}) {
    Topology topo = LoadNics(TopologyFile(file), true, GuestSysfs());
    std::vector<std::string> names, buses, nodes, netdevs;
    for (const Nic& n : topo.nics)
      names.push_back(n.name), buses.push_back(n.bus_id), nodes.push_back(n.nodes.ToList()),
          netdevs.push_back(n.netdev);
    STR_EQ(At(file, Join(names)), At(file, "rxe0,rxe1,rxe2,rxe3"));
    STR_EQ(At(file, Join(buses)), At(file, "0000:11:01.0,0000:11:02.0,0000:21:02.0,0000:21:03.0"));
    STR_EQ(At(file, Join(nodes)), At(file, "0,0,1,1"));
    STR_EQ(At(file, Join(netdevs)), At(file, "eth0,eth1,eth2,eth3"));
    // The expander's bridge, which the display device is behind too.
    STR_EQ(At(file, Join(topo.nics[2].bridges)), At(file, "0000:20:00.0"));
    STR_EQ(At(file, Ports(topo.nics[3].ports)), At(file, ""));
    STR_EQ(At(file, Ports(topo.nics[3].down)), At(file, "1"));
  }
}

Test(nics, soft_roce_rails_of_the_guest) {
  // tests/vm/layout_B.sh expects these of the live guest (rdma checks).
  Topology topo = LoadNics(TopologyFile(kGuest), true, GuestSysfs());
  Basis none, gpu;
  Prepare(topo, "node", "none", true, &none);
  STR_EQ(RankNics(*none.basis, 2), "rxe0:1,rxe1:1|rxe2:1");  // rxe3's port is down
  STR_EQ(RankNics(*none.basis, 4), "rxe0:1|rxe1:1|rxe2:1|rxe2:1");
  Prepare(topo, "node", "0000:21:01.0", true, &gpu);  // the display device beside rxe2 and rxe3
  STR_EQ(RankNics(*gpu.basis, 2), "rxe2:1|rxe2:1");
  NicTier tier;
  NodeSet n1;
  n1.Set(1);
  STR_EQ(Join(NearestRails(topo, NicPlace{"0000:21:01.0", n1, false}, &tier)), "rxe2:1");
  cr_assert(tier == NicTier::kSwitch);
}
