// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every policy on synthetic and real topologies, with and without devices. Expected CPU lists are written
// by hand from the topology: in hwloc synthetic descriptions PUs are numbered in order, so in
// "pack:2 numa:2 l3:2 core:4 pu:2" node n holds CPUs 16n..16n+15, its L3s 16n..16n+7 and 16n+8..16n+15,
// and core c the CPUs 2c, 2c+1. PyTorch's own test cases (test/test_numa_binding.py) are replayed once, in
// tests/cli/torch_parity_test.cc.

#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "planner/devices.h"
#include "planner/planner.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::testing::Basis;
using numabind::testing::FileExists;
using numabind::testing::Gpu;
using numabind::testing::Load;
using numabind::testing::ParseMemory;
using numabind::testing::ParsePolicy;
using numabind::testing::PlanAll;
using numabind::testing::PlanRank;
using numabind::testing::PrepareOn;
using numabind::testing::RankText;
using numabind::testing::TopologyFile;

static const char* const kT64 = "synthetic:pack:2 numa:2 l3:2 core:4 pu:2";

// The CPU lists of ranks 0..n-1, joined with " | " (errors as "!" + message).
static std::string Cpus(const PlanBasis& basis, uint32_t n) {
  std::string s;
  for (const RankText& t : PlanAll(basis, n)) s += (s.empty() ? "" : " | ") + (t.ok ? t.cpus : "!" + t.error);
  return s;
}

static std::string Nodes(const PlanBasis& basis, uint32_t n) {
  std::string s;
  for (const RankText& t : PlanAll(basis, n)) s += (s.empty() ? "" : " | ") + t.nodes;
  return s;
}

static std::string Devices(const PlanBasis& basis, uint32_t n) {
  std::string s;
  for (const RankText& t : PlanAll(basis, n)) s += (s.empty() ? "" : " | ") + t.device;
  return s;
}

static void PrepareArgs(Basis* b, const Topology& t, const char* policy, const char* devices = "none",
                        const char* memory = nullptr) {
  PrepareOn(t, policy, b, devices, memory);
  cr_assert(b->basis, "prepare failed: %s", b->error.c_str());
}

// Declares Basis `b` prepared for (topology, policy[, devices[, memory]]).
#define PREPARE(b, ...) \
  Basis b;              \
  PrepareArgs(&b, __VA_ARGS__)

// Prepares with devices (default "auto").
static void PrepareDev(const Topology& t, const char* policy, Basis* b, const char* devices = "auto",
                       const char* const* env = nullptr) {
  PrepareOn(t, policy, b, devices, nullptr, env);
  cr_assert(b->basis, "prepare failed: %s", b->error.c_str());
}

// `per` NVIDIA GPUs on each NUMA node of t, bus ids 0000:01:00.0, 0000:02:00.0, ... in node order.
static void AddGpus(Topology* t, int per) {
  int i = 0;
  for (const TopoNode& n : t->nodes) {
    for (int k = 0; k < per; ++k) {
      char id[32];
      snprintf(id, sizeof id, "0000:%02x:00.0", ++i);
      t->pci.push_back(Gpu(id, static_cast<int>(n.os)));
    }
  }
  t->io_loaded = true;
}

static std::string XmlOrSkip(const char* name) {
  std::string path = TopologyFile(name);
  if (!FileExists(path))
    cr_assert_fail("topology file %s is missing from tests/data/topologies", path.c_str());
  return path;
}

// ---- parsing ----

Test(parse, policies) {
  Policy p;
  std::string err;
  cr_assert(ParsePolicy("node", &p, &err) && p.kind == PolicyKind::kNode);
  cr_assert(ParsePolicy("socket", &p, &err) && p.kind == PolicyKind::kSocket && p.text == "socket");
  cr_assert(ParsePolicy("exclusive", &p, &err) && p.kind == PolicyKind::kExclusive);
  cr_assert(ParsePolicy("core-complex", &p, &err) && p.kind == PolicyKind::kCoreComplex);
  cr_assert(ParsePolicy("cpus:0-15|16-31", &p, &err) && p.kind == PolicyKind::kCpuMap);
  cr_assert_eq(p.entries.size(), 2u);
  STR_EQ(p.entries[1].ToList(), "16-31");
  cr_assert(ParsePolicy("nodes:0|0|1|1", &p, &err) && p.kind == PolicyKind::kNodeMap);
  cr_assert_eq(p.entries.size(), 4u);
  cr_assert(ParsePolicy("cpus:0-3*2|4-7*2|8,10", &p, &err));
  cr_assert_eq(p.entries.size(), 5u);
  STR_EQ(p.entries[1].ToList(), "0-3");
  STR_EQ(p.entries[2].ToList(), "4-7");
  STR_EQ(p.entries[4].ToList(), "8,10");
  cr_assert(ParsePolicy("nodes:0*3|1", &p, &err));
  cr_assert_eq(p.entries.size(), 4u);
}

Test(parse, policy_errors_name_the_variable_and_the_part) {
  Policy p;
  struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"banana", "NUMABIND_POLICY=banana: expected node, socket"},
      {"Node", "expected node, socket"},
      {"node ", "expected node, socket"},
      {"cpus:", "entry 1 (): expected a list of CPU numbers"},
      {"cpus:0-3|x", "entry 2 (x)"},
      {"cpus:0-3*0", "*N takes a count from 1 to 4096"},
      {"cpus:0-3*", "*N takes a count"},
      {"cpus:0-3*a", "*N takes a count"},
      {"nodes:0||1", "entry 2 (): expected a list of node numbers"},
      {"nodes:3-1", "range 3-1 goes down"},
      {"cpus:0*70000", "*N takes a count from 1 to 4096"},
      {"cpus:0-65535*4096|1", "more than 4096 entries"},
  };
  for (auto& c : cases) {
    std::string err;
    cr_assert(!ParsePolicy(c.text, &p, &err), "\"%s\" should not parse", c.text);
    cr_assert(err.find("NUMABIND_POLICY") == 0, "%s", err.c_str());
    cr_assert(err.find(c.says) != std::string::npos, "\"%s\": %s", c.text, err.c_str());
  }
}

Test(parse, config_and_core_agree) {
  // One grammar: every value config::Parse (the library, the command's checks) accepts, core plans, and
  // every value it rejects, core rejects with the same line.
  const char* policies[] = {
      "node",       "socket",     "exclusive",         "core-complex",        "node ",     " node",
      "Node",       "nodes",      "cpus:0-3|4-7",      "cpus:0-3*2|4",        "cpus: 1",   "cpus:1 ",
      "cpus:0 - 3", "cpus:0-3*0", "cpus:0-65535*4096", "cpus:0-65535*4096|1", "cpus:3-1",  "cpus:65536",
      "nodes:1023", "nodes:1024", "nodes:0*3|1",       "nodes:0 * 3 | 1",     "cpus:0,,1", "cpus:-1",
      "cpus:+1"};
  for (const char* v : policies) {
    std::string entry = std::string("NUMABIND_POLICY=") + v;
    const char* env[] = {entry.c_str(), nullptr};
    numabind::config::Config c;
    numabind::config::Error e;
    bool config_ok = numabind::config::Parse(env, &c, &e);
    Policy p;
    std::string err;
    bool core_ok = ParsePolicy(v, &p, &err);
    cr_expect_eq(config_ok, core_ok, "\"%s\": config %s, core %s", v, config_ok ? "accepts" : e.text,
                 core_ok ? "accepts" : err.c_str());
    if (!config_ok && !core_ok) cr_expect_eq(err, std::string(e.text), "\"%s\"", v);
  }
  const char* devices[] = {"auto",
                           "none",
                           "34:00.0",
                           "0000:34:00.0,0000:4e:00.0",
                           "10000:00:01.0",
                           "12345678:00:01.0",
                           "123456789:00:01.0",
                           "34:1f.7",
                           "34:20.0",
                           "34:00.8",
                           " 34:00.0",
                           "34:00.0,",
                           "gpu0"};
  for (const char* v : devices) {
    std::string entry = std::string("NUMABIND_DEVICES=") + v;
    const char* env[] = {entry.c_str(), nullptr};
    numabind::config::Config c;
    numabind::config::Error e;
    bool config_ok = numabind::config::Parse(env, &c, &e);
    numabind::planner::DeviceSpec spec;
    std::string err;
    bool core_ok = numabind::testing::ParseDevices(v, &spec, &err);
    cr_expect_eq(config_ok, core_ok, "\"%s\": config %s, core %s", v, config_ok ? "accepts" : e.text,
                 core_ok ? "accepts" : err.c_str());
  }
}

Test(parse, memory) {
  MemoryKind m;
  std::string err;
  cr_assert(ParseMemory(nullptr, &m, &err) && m == MemoryKind::kLocal);
  cr_assert(ParseMemory("local", &m, &err) && m == MemoryKind::kLocal);
  cr_assert(ParseMemory("preferred", &m, &err) && m == MemoryKind::kPreferred);
  cr_assert(ParseMemory("bind", &m, &err) && m == MemoryKind::kBind);
  cr_assert(ParseMemory("interleave", &m, &err) && m == MemoryKind::kInterleave);
  cr_assert(!ParseMemory("membind", &m, &err));
  cr_assert(err.find("NUMABIND_MEMORY") == 0 && err.find("membind") != std::string::npos, "%s", err.c_str());
  cr_assert(!ParseMemory(" bind", &m, &err), "config rejects it: so does core");
}

Test(prepare, errors) {
  Topology t = Load(kT64);
  Basis a, b, c, d;
  PrepareOn(t, "", &a);
  cr_assert(!a.basis && a.error.find("NUMABIND_POLICY") != std::string::npos, "%s", a.error.c_str());
  PrepareOn(t, "nodes", &b);
  cr_assert(!b.basis && b.error.find("NUMABIND_POLICY=nodes: expected") != std::string::npos, "%s",
            b.error.c_str());
  PrepareOn(t, "node", &c, "gpu0");
  cr_assert(!c.basis && c.error.find("NUMABIND_DEVICES") != std::string::npos, "%s", c.error.c_str());
  t.allowed = CpuSet();
  PrepareOn(t, "node", &d);
  cr_assert(!d.basis && d.error.find("no allowed CPUs") != std::string::npos, "%s", d.error.c_str());
}

// ---- without devices: ranks in blocks over the nodes ----

Test(no_devices, node) {
  Topology t = Load(kT64);
  PREPARE(b, t, "node", "none", "bind");
  cr_assert(b.basis->spread_in_blocks);
  cr_assert_eq(b.basis->slot_count, 4u);
  STR_EQ(Cpus(*b.basis, 4), "0-15 | 16-31 | 32-47 | 48-63");
  STR_EQ(Nodes(*b.basis, 4), "0 | 1 | 2 | 3");
  STR_EQ(Nodes(*b.basis, 8), "0 | 0 | 1 | 1 | 2 | 2 | 3 | 3");
  STR_EQ(Nodes(*b.basis, 6), "0 | 0 | 1 | 2 | 2 | 3");
  STR_EQ(Nodes(*b.basis, 2), "0 | 2");  // one rank per socket
  STR_EQ(Nodes(*b.basis, 1), "0");
  RankText r = PlanRank(*b.basis, 1, 4);
  STR_EQ(r.label, "node 1");
  STR_EQ(r.device, "");
  cr_assert_eq(r.memory, MemoryKind::kBind);
  STR_EQ(b.basis->memory_text, "bind");
  STR_EQ(b.basis->policy_text, "node");
  // Unknown rank count: one rank per node.
  STR_EQ(PlanRank(*b.basis, 2, 0).cpus, "32-47");
}

Test(no_devices, socket) {
  Topology t = Load(kT64);
  PREPARE(b, t, "socket");
  STR_EQ(Cpus(*b.basis, 4), "0-31 | 0-31 | 32-63 | 32-63");
  STR_EQ(Nodes(*b.basis, 4), "0-1 | 0-1 | 2-3 | 2-3");
  STR_EQ(PlanRank(*b.basis, 3, 4).label, "package 1 (node 3)");
}

Test(no_devices, exclusive) {
  Topology t = Load(kT64);
  PREPARE(b, t, "exclusive");
  STR_EQ(Cpus(*b.basis, 4), "0-15 | 16-31 | 32-47 | 48-63");
  STR_EQ(Cpus(*b.basis, 8), "0-7 | 8-15 | 16-23 | 24-31 | 32-39 | 40-47 | 48-55 | 56-63");
  // 3 ranks per node, 8 cores: 3, 3, 2 cores.
  STR_EQ(Cpus(*b.basis, 12),
         "0-5 | 6-11 | 12-15 | 16-21 | 22-27 | 28-31 | 32-37 | 38-43 | 44-47 | 48-53 | 54-59 | 60-63");
  // 5 ranks: nodes 0,0,1,2,3.
  STR_EQ(Cpus(*b.basis, 5), "0-7 | 8-15 | 16-31 | 32-47 | 48-63");
  STR_EQ(Nodes(*b.basis, 5), "0 | 0 | 1 | 2 | 3");
  // 32 ranks: one core each.
  STR_EQ(PlanRank(*b.basis, 9, 32).cpus, "18-19");
}

Test(no_devices, exclusive_more_ranks_than_cores) {
  Topology t = Load(kT64);
  PREPARE(b, t, "exclusive");
  RankText r = PlanRank(*b.basis, 0, 40);
  cr_assert(!r.ok);
  STR_EQ(r.error,
         "rank 0: policy exclusive: node 0 has 8 cores for 10 ranks: use node or auto, or at most 8 ranks");
  r = PlanRank(*b.basis, 39, 40);
  STR_EQ(r.error,
         "rank 39: policy exclusive: node 3 has 8 cores for 10 ranks: use node or auto, or at most 8 ranks");
}

Test(no_devices, exclusive_smt_off) {
  Topology t = Load("synthetic:pack:2 numa:2 l3:2 core:4 pu:1");
  PREPARE(b, t, "exclusive");
  STR_EQ(Cpus(*b.basis, 8), "0-3 | 4-7 | 8-11 | 12-15 | 16-19 | 20-23 | 24-27 | 28-31");
  // 6 ranks per node on 8 cores: 2, 2, 1, 1, 1, 1.
  STR_EQ(Cpus(*b.basis, 24).substr(0, 25), "0-1 | 2-3 | 4 | 5 | 6 | 7");
}

Test(no_devices, exclusive_never_splits_smt_siblings) {
  Topology t = Load(kT64);
  // Only the first thread of each core is allowed: a core is still one unit.
  t.allowed = CpuSet();
  for (uint32_t c = 0; c < 64; c += 2) t.allowed.Set(c);
  PREPARE(b, t, "exclusive");
  STR_EQ(Cpus(*b.basis, 8).substr(0, 31), "0,2,4,6 | 8,10,12,14 | 16,18,20");
  // CPUs 1 and 3 allowed too: cores {0,1} {2,3} stay whole, never one sibling here and one there.
  t.allowed.Set(1);
  t.allowed.Set(3);
  PREPARE(c, t, "exclusive");
  STR_EQ(PlanRank(*c.basis, 0, 8).cpus, "0-4,6");
  STR_EQ(PlanRank(*c.basis, 0, 32).cpus, "0-1");
  STR_EQ(PlanRank(*c.basis, 1, 32).cpus, "2-3");
  STR_EQ(PlanRank(*c.basis, 2, 32).cpus, "4");
}

Test(no_devices, core_complex) {
  Topology t = Load(kT64);
  PREPARE(b, t, "core-complex");
  STR_EQ(Cpus(*b.basis, 4), "0-7 | 16-23 | 32-39 | 48-55");
  STR_EQ(Cpus(*b.basis, 8), "0-7 | 8-15 | 16-23 | 24-31 | 32-39 | 40-47 | 48-55 | 56-63");
  // 3 ranks per node, 2 caches: wrap.
  STR_EQ(Cpus(*b.basis, 12).substr(0, 20), "0-7 | 8-15 | 0-7 | 1");
}

Test(no_devices, restricted_allowed_set_drops_nodes) {
  Topology t = Load(kT64);
  t.allowed = CpuSet::Range(16, 63);
  t.allowed.Subtract(CpuSet::Range(40, 47));
  PREPARE(b, t, "node");
  cr_assert_eq(b.basis->slot_count, 3u);
  STR_EQ(Cpus(*b.basis, 3), "16-31 | 32-39 | 48-63");
  PREPARE(c, t, "socket");
  STR_EQ(Cpus(*c.basis, 3), "16-31 | 32-39,48-63 | 32-39,48-63");
  STR_EQ(Nodes(*c.basis, 3), "1 | 2-3 | 2-3");
  PREPARE(d, t, "core-complex");
  STR_EQ(Cpus(*d.basis, 3), "16-23 | 32-39 | 48-55");
}

Test(no_devices, more_than_1024_cpus) {
  // 8 packages x 2 nodes x 2 L3 x 32 cores x 2 PUs: node n holds 128n..128n+127, L3s of 64 CPUs.
  Topology t = Load("synthetic:pack:8 numa:2 l3:2 core:32 pu:2");
  PREPARE(b, t, "node");
  cr_assert_eq(b.basis->cpu_words, 32u);
  STR_EQ(PlanRank(*b.basis, 15, 16).cpus, "1920-2047");
  STR_EQ(PlanRank(*b.basis, 15, 16).nodes, "15");
  PREPARE(c, t, "exclusive");
  STR_EQ(PlanRank(*c.basis, 31, 32).cpus, "1984-2047");
  cr_assert(!PlanRank(*c.basis, 0, 2048).ok);  // 128 ranks per node, 64 cores
  PREPARE(d, t, "core-complex");
  STR_EQ(PlanRank(*d.basis, 1, 32).cpus, "64-127");
  PREPARE(e, t, "socket");
  STR_EQ(PlanRank(*e.basis, 15, 16).cpus, "1792-2047");
  STR_EQ(PlanRank(*e.basis, 15, 16).nodes, "14-15");
}

// ---- explicit maps ----

Test(maps, cpus_with_repetition_and_wrap) {
  Topology t = Load(kT64);
  PREPARE(b, t, "cpus:0-3*2|4-7*2", "auto");
  cr_assert(!b.basis->spread_in_blocks);
  STR_EQ(Cpus(*b.basis, 6), "0-3 | 0-3 | 4-7 | 4-7 | 0-3 | 0-3");
  STR_EQ(PlanRank(*b.basis, 1, 6).device, "");
  STR_EQ(PlanRank(*b.basis, 2, 6).label, "cpus 4-7");
  PREPARE(c, t, "cpus:1|0");
  STR_EQ(Cpus(*c.basis, 3), "1 | 0 | 1");
  PREPARE(d, t, "cpus:15-16|40");
  STR_EQ(Nodes(*d.basis, 2), "0-1 | 2");
}

Test(maps, cpus_outside_the_allowed_set) {
  Topology t = Load(kT64);
  t.allowed = CpuSet::Range(16, 63);
  PREPARE(b, t, "cpus:0-31|100|8");
  STR_EQ(Cpus(*b.basis, 3),
         "16-31 | !rank 1: policy cpus:0-31|100|8: cpus 100 has no allowed CPUs | "
         "!rank 2: policy cpus:0-31|100|8: cpus 8 has no allowed CPUs");
  STR_EQ(PlanRank(*b.basis, 2, 3).nodes, "0");  // where the CPU would be
}

Test(maps, nodes) {
  Topology t = Load(kT64);
  PREPARE(b, t, "nodes:0|0|1|1", "none", "interleave");
  STR_EQ(Cpus(*b.basis, 4), "0-15 | 0-15 | 16-31 | 16-31");
  STR_EQ(Nodes(*b.basis, 5), "0 | 0 | 1 | 1 | 0");
  cr_assert_eq(PlanRank(*b.basis, 0, 4).memory, MemoryKind::kInterleave);
  PREPARE(c, t, "nodes:0,2|9");
  STR_EQ(Cpus(*c.basis, 2), "0-15,32-47 | !rank 1: policy nodes:0,2|9: node 9 has no allowed CPUs");
  STR_EQ(Nodes(*c.basis, 1), "0,2");
}

// ---- with devices ----

Test(devices_policy, node_socket_exclusive_core_complex) {
  Topology t = Load(kT64);
  AddGpus(&t, 2);  // 0000:01..08:00.0, two per node
  Basis node, socket, excl, cc;
  PrepareDev(t, "node", &node);
  PrepareDev(t, "socket", &socket);
  PrepareDev(t, "exclusive", &excl);
  PrepareDev(t, "core-complex", &cc);
  cr_assert(!node.basis->spread_in_blocks);
  cr_assert_eq(node.basis->slot_count, 8u);
  STR_EQ(Devices(*node.basis, 3), "0000:01:00.0 | 0000:02:00.0 | 0000:03:00.0");
  STR_EQ(Cpus(*node.basis, 8), "0-15 | 0-15 | 16-31 | 16-31 | 32-47 | 32-47 | 48-63 | 48-63");
  STR_EQ(Cpus(*socket.basis, 8), "0-31 | 0-31 | 0-31 | 0-31 | 32-63 | 32-63 | 32-63 | 32-63");
  STR_EQ(Nodes(*socket.basis, 3), "0-1 | 0-1 | 0-1");
  STR_EQ(Cpus(*excl.basis, 8), "0-7 | 8-15 | 16-23 | 24-31 | 32-39 | 40-47 | 48-55 | 56-63");
  STR_EQ(Cpus(*cc.basis, 8), "0-7 | 8-15 | 16-23 | 24-31 | 32-39 | 40-47 | 48-55 | 56-63");
  STR_EQ(Nodes(*excl.basis, 8), "0 | 0 | 1 | 1 | 2 | 2 | 3 | 3");
  // Fewer ranks than devices: rank r still drives device r, and the ranks of a node share it.
  STR_EQ(Cpus(*excl.basis, 2), "0-7 | 8-15");
  STR_EQ(Devices(*excl.basis, 2), "0000:01:00.0 | 0000:02:00.0");
}

Test(devices_policy, more_ranks_than_devices) {
  Topology t = Load(kT64);
  t.pci = {Gpu("0000:01:00.0", 0), Gpu("0000:02:00.0", 0)};
  t.io_loaded = true;
  Basis excl, node, cc;
  PrepareDev(t, "exclusive", &excl);
  PrepareDev(t, "node", &node);
  PrepareDev(t, "core-complex", &cc);
  STR_EQ(Devices(*excl.basis, 4), "0000:01:00.0 | 0000:02:00.0 | 0000:01:00.0 | 0000:02:00.0");
  STR_EQ(Cpus(*excl.basis, 4), "0-3 | 4-7 | 8-11 | 12-15");
  STR_EQ(Cpus(*node.basis, 4), "0-15 | 0-15 | 0-15 | 0-15");
  STR_EQ(Cpus(*cc.basis, 4), "0-7 | 8-15 | 0-7 | 8-15");
  RankText r = PlanRank(*excl.basis, 5, 9);
  STR_EQ(r.error,
         "rank 5: policy exclusive: node 0 has 8 cores for 9 ranks: use node or auto, or at most 8 ranks");
}

Test(devices_policy, unknown_locality) {
  Topology t = Load(kT64);
  t.pci = {Gpu("0000:01:00.0", 1), Gpu("0000:02:00.0", -1)};
  t.io_loaded = true;
  Basis node, socket, excl, cc;
  PrepareDev(t, "node", &node);
  PrepareDev(t, "socket", &socket);
  PrepareDev(t, "exclusive", &excl);
  PrepareDev(t, "core-complex", &cc);
  STR_EQ(Cpus(*node.basis, 2), "16-31 | 0-63");
  STR_EQ(Nodes(*node.basis, 2), "1 | 0-3");
  STR_EQ(PlanRank(*node.basis, 1, 2).label, "node 0-3 (locality unknown)");
  STR_EQ(PlanRank(*node.basis, 0, 2).label, "node 1");
  STR_EQ(Cpus(*socket.basis, 2), "0-31 | 0-63");
  STR_EQ(Cpus(*excl.basis, 2), "16-31 | 0-63");
  STR_EQ(Cpus(*excl.basis, 4), "16-23 | 0-31 | 24-31 | 32-63");
  STR_EQ(Cpus(*cc.basis, 4), "16-23 | 0-7 | 24-31 | 8-15");
}

Test(devices_policy, explicit_devices_on_a_synthetic_topology) {
  // A synthetic topology has no PCI data: listed devices are of unknown locality and share everything.
  Topology t = Load(kT64);
  Basis b;
  PrepareDev(t, "node", &b, "34:00.0,0000:35:00.0");
  STR_EQ(Devices(*b.basis, 2), "0000:34:00.0 | 0000:35:00.0");
  STR_EQ(Cpus(*b.basis, 2), "0-63 | 0-63");
  Basis e;
  PrepareDev(t, "exclusive", &e, "34:00.0,0000:35:00.0");
  STR_EQ(Cpus(*e.basis, 2), "0-31 | 32-63");
}

Test(devices_policy, device_node_without_allowed_cpus) {
  Topology t = Load(kT64);
  t.pci = {Gpu("0000:01:00.0", 0), Gpu("0000:02:00.0", 2)};
  t.io_loaded = true;
  t.allowed = CpuSet::Range(0, 15);
  const char* policies[] = {"node", "socket", "exclusive", "core-complex"};
  const char* expect[] = {"rank 1: policy node: node 2 has no allowed CPUs",
                          "rank 1: policy socket: node 2 has no allowed CPUs",
                          "rank 1: policy exclusive: node 2 has no allowed CPUs",
                          "rank 1: policy core-complex: node 2 has no allowed CPUs"};
  for (int i = 0; i < 4; ++i) {
    Basis b;
    PrepareDev(t, policies[i], &b);
    RankText r0 = PlanRank(*b.basis, 0, 2), r1 = PlanRank(*b.basis, 1, 2);
    cr_assert(r0.ok, "%s", r0.error.c_str());
    cr_assert(!r1.ok);
    STR_EQ(r1.error, expect[i]);
  }
}

Test(devices_policy, visible_devices_pick_the_node) {
  Topology t = Load(kT64);
  AddGpus(&t, 1);  // 01 on node 0, 02 on node 1, 03 on node 2, 04 on node 3
  const char* env[] = {"CUDA_VISIBLE_DEVICES=3,1", nullptr};
  Basis b;
  PrepareDev(t, "node", &b, "auto", env);
  STR_EQ(Devices(*b.basis, 2), "0000:04:00.0 | 0000:02:00.0");
  STR_EQ(Cpus(*b.basis, 2), "48-63 | 16-31");
}

Test(devices_policy, none_ignores_devices) {
  Topology t = Load(kT64);
  AddGpus(&t, 1);
  Basis b;
  PrepareDev(t, "node", &b, "none");
  cr_assert(b.basis->spread_in_blocks);
  STR_EQ(Devices(*b.basis, 1), "");
}

// ---- real machines ----

Test(xml, gpus_with_locality_24em64t) {
  // Node 0 = even CPUs (cores {0,12} {2,14} ... {10,22}), node 1 = odd CPUs (cores {1,13} ... {11,23});
  // GPUs 06:00.0 on node 0, 11:00.0 and 14:00.0 on node 1; the AMD VGA does not count.
  Topology t = Load(XmlOrSkip("24em64t-2n6c2t-pci.xml"), true);
  Basis node, socket, excl, cc;
  PrepareDev(t, "node", &node);
  PrepareDev(t, "socket", &socket);
  PrepareDev(t, "exclusive", &excl);
  PrepareDev(t, "core-complex", &cc);
  const char* even = "0,2,4,6,8,10,12,14,16,18,20,22";
  const char* odd = "1,3,5,7,9,11,13,15,17,19,21,23";
  STR_EQ(Devices(*node.basis, 3), "0000:06:00.0 | 0000:11:00.0 | 0000:14:00.0");
  STR_EQ(Cpus(*node.basis, 3), (std::string(even) + " | " + odd + " | " + odd));
  STR_EQ(Cpus(*socket.basis, 3), (std::string(even) + " | " + odd + " | " + odd));
  STR_EQ(PlanRank(*socket.basis, 1, 3).label, "package 1 (node 1)");
  STR_EQ(Cpus(*excl.basis, 3), (std::string(even) + " | 1,3,5,13,15,17 | 7,9,11,19,21,23"));
  STR_EQ(Cpus(*cc.basis, 3), (std::string(even) + " | " + odd + " | " + odd));
  // 6 ranks: node 0 has ranks 0 and 3, node 1 ranks 1, 2, 4, 5 (6 cores: 2, 2, 1, 1).
  STR_EQ(Cpus(*excl.basis, 6), "0,2,4,12,14,16 | 1,3,13,15 | 5,7,17,19 | 6,8,10,18,20,22 | 9,21 | 11,23");
}

Test(xml, power8_gpus_on_two_sockets) {
  Topology t = Load(XmlOrSkip("power8gpudistances.xml"), true);
  Basis excl;
  PrepareDev(t, "exclusive", &excl);
  cr_assert_eq(excl.basis->cpu_words, 2u);
  STR_EQ(Cpus(*excl.basis, 4), "0-1,8-9 | 16-17,24-25 | 80-81,88-89 | 96-97,104-105");
  STR_EQ(Nodes(*excl.basis, 4), "0 | 0 | 1 | 1");
  STR_EQ(Devices(*excl.basis, 4), "0002:01:00.0 | 0003:01:00.0 | 000a:01:00.0 | 000b:01:00.0");
}

Test(xml, restricted_cpusets_16amd64) {
  // Nodes with allowed CPUs: 1 (2-3), 2 (5), 3 (6); nodes 4 and 5 have no CPUs; CPUs 0-1 and 12-15 no node.
  Topology t = Load(XmlOrSkip("16amd64-8n2c-cpusets.xml"));
  PREPARE(b, t, "node");
  cr_assert_eq(b.basis->slot_count, 3u);
  STR_EQ(Cpus(*b.basis, 3), "2-3 | 5 | 6");
  STR_EQ(Nodes(*b.basis, 3), "1 | 2 | 3");
  PREPARE(s, t, "socket");
  STR_EQ(PlanRank(*s.basis, 0, 3).label, "package 1 (node 1)");
  PREPARE(e, t, "exclusive");
  STR_EQ(Cpus(*e.basis, 4), "2 | 3 | 5 | 6");
  PREPARE(m, t, "nodes:4|1");
  STR_EQ(Cpus(*m.basis, 2), "!rank 0: policy nodes:4|1: node 4 has no allowed CPUs | 2-3");
}

Test(xml, offline_cpus_16em64t) {
  // One node; online 0,1,3,4,6,12,15; cores {0} {4,12} {1} {6} {3} {15}; L3 per package: {0,4,12} {1} {6}
  // {3,15}.
  Topology t = Load(XmlOrSkip("16em64t-4s2c2t-offlines.xml"));
  PREPARE(e, t, "exclusive");
  STR_EQ(Cpus(*e.basis, 4), "0-1 | 3-4,12 | 6 | 15");
  STR_EQ(PlanRank(*e.basis, 0, 7).error,
         "rank 0: policy exclusive: node 0 has 6 cores for 7 ranks: use node or auto, or at most 6 ranks");
  PREPARE(c, t, "core-complex");
  STR_EQ(Cpus(*c.basis, 5), "0,4,12 | 3,15 | 1 | 6 | 0,4,12");
  PREPARE(n, t, "node");
  STR_EQ(Cpus(*n.basis, 1), "0-1,3-4,6,12,15");
}

Test(xml, knl_hbm_nodes_are_not_targets) {
  Topology t = Load(XmlOrSkip("64intel64-fakeKNL-SNC4-hybrid.xml"));
  PREPARE(b, t, "node");
  cr_assert_eq(b.basis->slot_count, 4u);
  STR_EQ(Nodes(*b.basis, 4), "0 | 1 | 2 | 3");
  STR_EQ(PlanRank(*b.basis, 0, 4).cpus, "0-3,16-19,32-35,48-51");
  // Tiles: 2 cores sharing an L2.
  PREPARE(c, t, "core-complex");
  STR_EQ(Cpus(*c.basis, 8).substr(0, 45), "0-1,16-17,32-33,48-49 | 2-3,18-19,34-35,50-51");
  // Memory on the cluster's MCDRAM through an explicit node map.
  PREPARE(m, t, "nodes:0,7", "none", "bind");
  STR_EQ(PlanRank(*m.basis, 0, 1).nodes, "0,7");
  STR_EQ(PlanRank(*m.basis, 0, 1).cpus, "0-3,16-19,32-35,48-51");
  PREPARE(s, t, "socket");
  STR_EQ(PlanRank(*s.basis, 0, 4).nodes, "0-3");
}

Test(xml, largest_384_pus) {
  Topology t = Load(XmlOrSkip("192em64t-12gr2n8c2t.xml"));
  PREPARE(b, t, "node");
  cr_assert_eq(b.basis->slot_count, 24u);
  cr_assert_eq(b.basis->cpu_words, 6u);
  STR_EQ(PlanRank(*b.basis, 23, 24).cpus, "184-191,376-383");
  PREPARE(e, t, "exclusive");
  STR_EQ(Cpus(*e.basis, 48).substr(0, 30), "0-3,192-195 | 4-7,196-199 | 8-");
  // 1024 ranks: 42 or 43 per node for 8 cores.
  cr_assert(!PlanRank(*e.basis, 1023, 1024).ok);
  PREPARE(n, t, "node");
  STR_EQ(PlanRank(*n.basis, 1023, 1024).nodes, "23");
}

Test(xml, hand_made_device_without_locality) {
  // Devices: 01:00.0 (no locality), 02:00.0 (node 1); the ASPEED VGA does not count. CPU 3 is not
  // allowed, so node 1 offers CPU 2 only.
  std::string path = numabind::testing::WriteHandMadeXml();
  Topology t = Load(path, true);
  unlink(path.c_str());
  Basis node, excl;
  PrepareDev(t, "node", &node);
  PrepareDev(t, "exclusive", &excl);
  STR_EQ(Devices(*node.basis, 2), "0000:01:00.0 | 0000:02:00.0");
  STR_EQ(Cpus(*node.basis, 2), "0-2 | 2");
  STR_EQ(Nodes(*node.basis, 2), "0-1 | 1");
  STR_EQ(PlanRank(*node.basis, 0, 2).label, "node 0-1 (locality unknown)");
  STR_EQ(
      Cpus(*excl.basis, 4),
      "0-1 | !rank 1: policy exclusive: node 1 has 1 core for 2 ranks: use node or auto, or at most 1 rank | "
      "2 | !rank 3: policy exclusive: node 1 has 1 core for 2 ranks: use node or auto, or at most 1 rank");
  // An explicit list may name any device; one the machine lacks is an error.
  Basis vga, missing;
  PrepareDev(t, "node", &vga, "03:00.0");
  STR_EQ(Cpus(*vga.basis, 1), "0-1");
  PrepareOn(t, "node", &missing, "05:00.0");
  cr_assert(!missing.basis);
  cr_assert(missing.error.find("no PCI device 0000:05:00.0") != std::string::npos, "%s",
            missing.error.c_str());
}

// A GPU's UUID (NVML's NVIDIAUUID, RSMI's AMDUUID in an OS device under it) reaches its slot in the form
// the runtimes' visibility variables take, for NUMABIND_BY_DEVICE; a topology without one leaves it empty.
Test(xml, gpu_uuids_reach_the_slots) {
  Topology nv = Load(TopologyFile("uuid/2synth-2n1c1t-2gpu-uuid.xml"), true);
  Basis n;
  PrepareDev(nv, "node", &n);
  cr_assert_eq(n.basis->slot_count, 2u);
  STR_EQ(n.basis->slots[0].uuid, "GPU-8f3c1a2b-5d6e-4f70-8192-a3b4c5d6e7f8");
  STR_EQ(n.basis->slots[1].uuid, "GPU-8f3c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e");
  // ROCm writes the unique id as 16 hex digits; hwloc drops the leading zeros.
  Topology amd = Load(TopologyFile("uuid/2synth-2n1c1t-2amd-uuid.xml"), true);
  Basis a;
  PrepareDev(amd, "node", &a);
  cr_assert_eq(a.basis->slot_count, 2u);
  STR_EQ(a.basis->slots[0].uuid, "GPU-5a3c8f2e1d4b6a79");
  STR_EQ(a.basis->slots[1].uuid, "GPU-00a3c8f2e1d4b6a7");
  cr_expect_eq(a.basis->slots[1].device_vendor, numabind::plan::kPciAmd);
  Topology plain = Load(TopologyFile("2synth-2n1c1t-2gpu.xml"), true);
  Basis p;
  PrepareDev(plain, "node", &p);
  cr_assert_eq(p.basis->slot_count, 2u);
  STR_EQ(p.basis->slots[1].uuid, "");
}

// ---- the basis block ----

Test(basis, one_self_contained_block) {
  Topology t = Load(kT64);
  AddGpus(&t, 2);
  Basis b;
  PrepareDev(t, "exclusive", &b);
  const char* start = reinterpret_cast<const char*>(b.basis);
  const char* slots = reinterpret_cast<const char*>(b.basis->slots);
  const char* nodes = reinterpret_cast<const char*>(b.basis->slot_nodes);
  const char* units = reinterpret_cast<const char*>(b.basis->unit_cpus);
  cr_assert(slots >= start + sizeof(PlanBasis));
  cr_assert(nodes >= slots + b.basis->slot_count * sizeof(PlanSlot));
  cr_assert(units >= nodes + b.basis->slot_count * b.basis->node_words * 8);
  cr_assert_eq(reinterpret_cast<uintptr_t>(nodes) % 8, 0u);
  cr_assert_eq(reinterpret_cast<uintptr_t>(units) % 8, 0u);
  cr_assert_eq(b.basis->unit_count, 32u);  // 8 cores per node, each node's group listed once
  cr_assert_eq(b.basis->slots[1].group, b.basis->slots[0].group);
  cr_assert_neq(b.basis->slots[2].group, b.basis->slots[0].group);
  STR_EQ(b.basis->slots[7].device, "0000:08:00.0");
}

Test(basis, long_policy_text_is_cut) {
  Topology t = Load(kT64);
  std::string policy = "cpus:";
  for (int i = 0; i < 40; ++i) policy += std::to_string(i) + "|";
  policy += "40";
  PREPARE(b, t, policy.c_str());
  cr_assert_eq(strlen(b.basis->policy_text), sizeof b.basis->policy_text - 1);
  STR_EQ(b.basis->policy_text + sizeof b.basis->policy_text - 4, "...");
}
