// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_EXPORT's builder (plan/rank_env.h), the one the shim runs in a rank's exec and `numabind plan`
// prints: OpenMP places per core and per CPU (SMT siblings adjacent or far apart), what the user set kept,
// GPU visibility by vendor and ordinal, NICs, and entries that do not fit.

#include "plan/rank_env.h"

#include <criterion/criterion.h>
#include <string.h>

#include <map>
#include <string>
#include <vector>

#include "config/grammar.h"
#include "tests/planner/planner_test_util.h"

using namespace numabind::plan;
using namespace numabind::planner;
using numabind::config::kExportGpu;
using numabind::config::kExportNic;
using numabind::config::kExportOmp;
using numabind::config::kExportOmpCpus;
using numabind::testing::Basis;
using numabind::testing::Gpu;
using numabind::testing::Load;
using numabind::testing::PrepareOn;

namespace {

struct Built {
  std::vector<std::string> entries;  // in order
  std::map<std::string, std::string> vars;
  std::string note;
  size_t need = 0;
};

/// Rank `rank` of `nranks` on `basis`, exports built with the rank environment `env` (a vector of
/// "NAME=value"), into a buffer of `cap` bytes (default: what it needs). `nics` stands in for RankPlan::nics.
Built Build(const PlanBasis& basis, uint32_t rank, uint32_t nranks, uint8_t exports,
            std::vector<std::string> env = {}, size_t cap = ~size_t{0}, const char* nics = nullptr) {
  std::vector<uint64_t> cpus(basis.cpu_words), nodes(basis.node_words);
  RankPlan plan;
  plan.cpus = cpus.data();
  plan.nodes = nodes.data();
  cr_assert(ComputeRankPlan(basis, rank, nranks, &plan), "%s", plan.error);
  if (nics != nullptr) plan.nics = nics;
  std::vector<const char*> envp;
  for (const std::string& e : env) envp.push_back(e.c_str());
  envp.push_back(nullptr);
  RankEnv out;
  Built b;
  b.need = BuildRankEnv(basis, plan, exports, envp.data(), nullptr, 0, &out);
  cr_assert_eq(out.count, 0, "nothing fits in 0 bytes");
  if (cap == ~size_t{0}) cap = b.need;
  std::vector<char> buf(cap + 1, 'x');
  size_t again = BuildRankEnv(basis, plan, exports, envp.data(), buf.data(), cap, &out);
  cr_assert_eq(again, b.need, "the size does not depend on the buffer");
  cr_assert_eq(buf[cap], 'x', "nothing written past cap");
  for (int i = 0; i < out.count; ++i) {
    std::string e = out.entries[i];
    cr_assert(out.entries[i] >= buf.data() && out.entries[i] + e.size() < buf.data() + cap, "inside buf");
    b.entries.push_back(e);
    b.vars[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
  }
  b.note = out.note;
  return b;
}

}  // namespace

Test(rank_env, omp_one_place_per_core) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:4 pu:2"), "exclusive", &b);
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  Built r0 = Build(*b.basis, 0, 2, kExportOmp), r1 = Build(*b.basis, 1, 2, kExportOmp);
  cr_assert_eq(r0.entries.size(), 3u);
  STR_EQ(r0.entries[0], "OMP_NUM_THREADS=2");
  STR_EQ(r0.entries[1], "OMP_PLACES={0,1},{2,3}");
  STR_EQ(r0.entries[2], "OMP_PROC_BIND=close");
  STR_EQ(r1.vars["OMP_PLACES"], "{4,5},{6,7}");
  STR_EQ(r0.note, "");
  cr_expect_eq(r0.need, strlen("OMP_NUM_THREADS=2") + strlen("OMP_PLACES={0,1},{2,3}") +
                            strlen("OMP_PROC_BIND=close") + 3);
}

Test(rank_env, omp_cpus_one_place_per_cpu) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:4 pu:2"), "exclusive", &b);
  Built r1 = Build(*b.basis, 1, 2, kExportOmp | kExportOmpCpus);
  STR_EQ(r1.vars["OMP_NUM_THREADS"], "4");
  STR_EQ(r1.vars["OMP_PLACES"], "{4},{5},{6},{7}");
}

// Linux numbers the second SMT thread of each core far away (0 and 192): a place still holds both.
Test(rank_env, omp_siblings_far_apart) {
  std::string file = numabind::testing::TopologyFile("192em64t-12gr2n8c2t.xml");
  Basis b;
  PrepareOn(Load(file), "exclusive", &b);
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  Built r = Build(*b.basis, 0, 48, kExportOmp);  // 4 cores of node 0's 8
  STR_EQ(r.vars["OMP_NUM_THREADS"], "4");
  STR_EQ(r.vars["OMP_PLACES"], "{0,192},{1,193},{2,194},{3,195}");
}

// A core whose sibling is outside the rank's set (a cpus: map taking one thread of each) is a place of one.
Test(rank_env, omp_core_partly_in_the_set) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:4 pu:2"), "cpus:1-4", &b);
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  Built r = Build(*b.basis, 0, 1, kExportOmp);
  STR_EQ(r.vars["OMP_PLACES"], "{1},{2,3},{4}");
  STR_EQ(r.vars["OMP_NUM_THREADS"], "3");
}

Test(rank_env, what_the_user_set_is_kept) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:4 pu:2"), "node", &b);
  Built r = Build(*b.basis, 0, 1, kExportOmp, {"PATH=/bin", "OMP_NUM_THREADS=3", "OMP_PROC_BIND=spread"});
  cr_assert_eq(r.entries.size(), 1u);
  STR_EQ(r.entries[0], "OMP_PLACES={0,1},{2,3},{4,5},{6,7}");
  Built all =
      Build(*b.basis, 0, 1, kExportOmp, {"OMP_NUM_THREADS=", "OMP_PLACES=cores", "OMP_PROC_BIND=true"});
  cr_assert_eq(all.entries.size(), 0u, "an empty value is set too");
}

Test(rank_env, nothing_asked_nothing_built) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:4 pu:2"), "node", &b);
  Built r = Build(*b.basis, 0, 1, 0);
  cr_assert_eq(r.entries.size(), 0u);
  cr_assert_eq(r.need, 0u);
  STR_EQ(r.note, "");
}

namespace {

/// Two nodes; NVIDIA GPUs at 0000:02:00.0 (node 1) and 0000:01:00.0 (node 0), an AMD Instinct at
/// 0000:05:00.0 (node 0) and an Intel data-centre GPU at 0000:06:00.0 (node 1).
Topology GpuMachine() {
  Topology t = Load("synthetic:pack:2 numa:1 core:2 pu:2");
  t.pci = {Gpu("0000:02:00.0", 1), Gpu("0000:01:00.0", 0), Gpu("0000:05:00.0", 0, 0x1002, 0x0380),
           Gpu("0000:06:00.0", 1, 0x8086, 0x0380)};
  t.io_loaded = true;
  return t;
}

}  // namespace

Test(rank_env, gpu_index_in_bus_order_per_vendor) {
  Basis b;
  PrepareOn(GpuMachine(), "node", &b, "auto");
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  // auto: all four in bus id order, rank r on device r.
  Built r0 = Build(*b.basis, 0, 4, kExportGpu), r1 = Build(*b.basis, 1, 4, kExportGpu);
  Built r2 = Build(*b.basis, 2, 4, kExportGpu), r3 = Build(*b.basis, 3, 4, kExportGpu);
  STR_EQ(r0.entries.at(0), "CUDA_VISIBLE_DEVICES=0");  // 01:00.0
  STR_EQ(r1.entries.at(0), "CUDA_VISIBLE_DEVICES=1");  // 02:00.0
  STR_EQ(r2.entries.at(0), "ROCR_VISIBLE_DEVICES=0");  // the first AMD device
  cr_assert_eq(r3.entries.size(), 0u);
  STR_EQ(r3.note, "gpu: device 0000:06:00.0 is neither NVIDIA's nor AMD's");
}

Test(rank_env, gpu_narrows_the_launchers_list) {
  std::vector<std::string> env = {"CUDA_VISIBLE_DEVICES=1,0"};
  std::vector<const char*> envp = {env[0].c_str(), nullptr};
  Basis b;
  PrepareOn(GpuMachine(), "node", &b, "auto", nullptr, envp.data());
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  Built r0 = Build(*b.basis, 0, 2, kExportGpu, env);
  STR_EQ(r0.entries.at(0), "CUDA_VISIBLE_DEVICES=1");  // the list's first entry: physical device 1
  Built r1 = Build(*b.basis, 1, 2, kExportGpu, env);
  STR_EQ(r1.entries.at(0), "CUDA_VISIBLE_DEVICES=0");
  // The narrowed value replaces the list in the rank's environment.
  RankEnv e;
  e.count = 1;
  e.entries[0] = "CUDA_VISIBLE_DEVICES=0";
  cr_expect(RankEnvReplaces(e, "CUDA_VISIBLE_DEVICES=1,0"));
  cr_expect_not(RankEnvReplaces(e, "CUDA_VISIBLE_DEVICES_X=1"));
  cr_expect_not(RankEnvReplaces(e, "CUDA=1"));
}

Test(rank_env, gpu_kept_when_narrowed_or_unknown) {
  Basis b;
  PrepareOn(GpuMachine(), "node", &b, "auto");
  Built one = Build(*b.basis, 0, 4, kExportGpu, {"CUDA_VISIBLE_DEVICES=3"});
  cr_assert_eq(one.entries.size(), 0u);
  STR_EQ(one.note, "gpu: CUDA_VISIBLE_DEVICES=3 names one device already: kept");
  Built uuids = Build(*b.basis, 0, 4, kExportGpu, {"CUDA_VISIBLE_DEVICES=GPU-aa,GPU-bb"});
  STR_EQ(uuids.note, "gpu: CUDA_VISIBLE_DEVICES=GPU-aa,GPU-bb does not list the device: kept");
  Built hip = Build(*b.basis, 2, 4, kExportGpu, {"HIP_VISIBLE_DEVICES=0"});
  STR_EQ(hip.note, "gpu: HIP_VISIBLE_DEVICES=0 is set: kept");
  // The runtimes' rule (config/visible_devices.h): a list ends at its first invalid entry, so device 0 after
  // -1 is not visible, and narrowing to it would show the rank a device its job hid.
  Built ended = Build(*b.basis, 0, 4, kExportGpu, {"CUDA_VISIBLE_DEVICES=1,3,-1,0"});
  cr_assert_eq(ended.entries.size(), 0u);
  STR_EQ(ended.note, "gpu: CUDA_VISIBLE_DEVICES=1,3,-1,0 does not list the device: kept");
  Built one_left = Build(*b.basis, 1, 4, kExportGpu, {"CUDA_VISIBLE_DEVICES=1,-1"});
  STR_EQ(one_left.note, "gpu: CUDA_VISIBLE_DEVICES=1,-1 names one device already: kept");
  // An empty HIP_VISIBLE_DEVICES is unset to HIP: ROCR_VISIBLE_DEVICES is the rank's.
  Built hip_empty = Build(*b.basis, 2, 4, kExportGpu, {"HIP_VISIBLE_DEVICES="});
  STR_EQ(hip_empty.entries.at(0), "ROCR_VISIBLE_DEVICES=0");
  Basis none;
  PrepareOn(GpuMachine(), "node", &none, "none");
  Built no = Build(*none.basis, 0, 2, kExportGpu);
  STR_EQ(no.note, "gpu: the rank has no device");
}

// A device named by bus id that the topology does not have (a synthetic topology has no PCI): no index.
Test(rank_env, gpu_not_in_the_topology) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:2 pu:1"), "node", &b, "0000:01:00.0");
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  Built r = Build(*b.basis, 0, 1, kExportGpu);
  cr_assert_eq(r.entries.size(), 0u);
  STR_EQ(r.note, "gpu: device 0000:01:00.0 is not an accelerator of the topology: no CUDA or ROCm index");
}

Test(rank_env, nic_entries_from_the_plan) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:2 pu:1"), "node", &b);
  Built r = Build(*b.basis, 0, 1, kExportNic, {}, ~size_t{0}, "mlx5_0:1,mlx5_1:1");
  cr_assert_eq(r.entries.size(), 2u);
  STR_EQ(r.entries[0], "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1");  // '=': exact names, not prefixes
  STR_EQ(r.entries[1], "UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1");
  Built kept = Build(*b.basis, 0, 1, kExportNic, {"NCCL_IB_HCA=mlx5_3"}, ~size_t{0}, "mlx5_0:1");
  cr_assert_eq(kept.entries.size(), 1u);
  STR_EQ(kept.entries[0], "UCX_NET_DEVICES=mlx5_0:1");
  Built none = Build(*b.basis, 0, 1, kExportNic);  // ComputeRankPlan's "" until NICs are discovered
  cr_assert_eq(none.entries.size(), 0u);
  STR_EQ(none.note, "nic: no network device near the rank");
}

Test(rank_env, entries_that_do_not_fit_are_left_out_whole) {
  Basis b;
  PrepareOn(Load("synthetic:pack:1 numa:1 core:4 pu:2"), "node", &b);
  // 18 + 20 bytes for the two short ones; OMP_PLACES needs 35.
  Built r = Build(*b.basis, 0, 1, kExportOmp, {}, 40);
  cr_assert_eq(r.entries.size(), 2u);
  STR_EQ(r.entries[0], "OMP_NUM_THREADS=4");
  STR_EQ(r.entries[1], "OMP_PROC_BIND=close");
  STR_EQ(r.note, "OMP_PLACES needs 35 bytes, more than numabind exports: not set");
}

// 8192 CPUs in one rank: one place per CPU needs more than kRankEnvMax.
Test(rank_env, largest_machines_are_capped) {
  Basis b;
  // 8,192 PUs under 64 caches: hwloc inserts a flat list of 4,096 cores in quadratic time (14 s).
  PrepareOn(Load("synthetic:pack:1 numa:1 l3:64 core:64 pu:2"), "node", &b);
  cr_assert_not_null(b.basis, "%s", b.error.c_str());
  Built r = Build(*b.basis, 0, 1, kExportOmp | kExportOmpCpus, {}, kRankEnvMax);
  cr_assert_gt(r.need, kRankEnvMax);
  cr_assert_eq(r.entries.size(), 2u);
  cr_expect(strstr(r.note.c_str(), "OMP_PLACES needs ") == r.note.c_str(), "%s", r.note.c_str());
  STR_EQ(r.vars["OMP_NUM_THREADS"], "8192");
}
