// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan --export` (NUMABIND_EXPORT): each rank's variables, below the table one per line and
// within 100 columns however many CPUs a rank has, and in the JSON.

#include "tests/cli/cli_util.h"
#include "tests/cli/plan_topologies.h"

using numabind::test::kFourNodes;
using numabind::test::kTwoPackages;
using numabind::test::RealTopology;
using numabind::test::Result;
using numabind::test::Run;

namespace {

const char kWide[] = "synthetic:pack:4 numa:1 core:32 pu:1";  // 4 nodes of 32 cores

}  // namespace

// NUMABIND_EXPORT (--export): each rank's variables, from the builder the library runs in the rank's exec.
Test(plan_export, exports_table) {
  Result r =
      Run({"plan", "--topology", kFourNodes, "--policy", "exclusive", "--ranks", "4", "--export", "omp"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "4 ranks, policy exclusive, memory local\n"
               "rank  device  nodes  cpus   memory\n"
               "0     -       0      0-3    local\n"
               "1     -       1      4-7    local\n"
               "2     -       2      8-11   local\n"
               "3     -       3      12-15  local\n"
               "rank 0 exports:\n  OMP_NUM_THREADS=2\n  OMP_PLACES={0,1},{2,3}\n  OMP_PROC_BIND=close\n"
               "rank 1 exports:\n  OMP_NUM_THREADS=2\n  OMP_PLACES={4,5},{6,7}\n  OMP_PROC_BIND=close\n"
               "rank 2 exports:\n  OMP_NUM_THREADS=2\n  OMP_PLACES={8,9},{10,11}\n  OMP_PROC_BIND=close\n"
               "rank 3 exports:\n  OMP_NUM_THREADS=2\n  OMP_PLACES={12,13},{14,15}\n  OMP_PROC_BIND=close\n");
}

Test(plan_export, exports_json_keep_what_is_set_and_say_what_is_not_exported) {
  Result r = Run({"plan", "--topology", kFourNodes, "--ranks", "2", "--json"},
                 {"NUMABIND_EXPORT=omp-cpus,gpu", "OMP_NUM_THREADS=2"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(
      r.out.c_str(),
      "[\n"
      "  "
      "{\"rank\":0,\"device\":\"\",\"devices\":[],\"nodes\":\"0\",\"cpus\":\"0-3\",\"memory\":\"local\","
      "\"exports\":"
      "{\"OMP_PLACES\":\"{0},{1},{2},{3}\",\"OMP_PROC_BIND\":\"close\"},\"export_note\":\"gpu: the rank "
      "has no device\"},\n"
      "  "
      "{\"rank\":1,\"device\":\"\",\"devices\":[],\"nodes\":\"2\",\"cpus\":\"8-11\",\"memory\":\"local\","
      "\"exports\":"
      "{\"OMP_PLACES\":\"{8},{9},{10},{11}\",\"OMP_PROC_BIND\":\"close\"},\"export_note\":\"gpu: the rank "
      "has no device\"}\n"
      "]\n");
}

Test(plan_export, exports_of_gpus_on_a_real_machine) {
  Result r = Run({"plan", "--topology", RealTopology("32em64t-2n8c2t-pci-wholeio.xml"), "--export", "gpu"},
                 {"CUDA_VISIBLE_DEVICES=2,1"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "2 ranks, policy node (the default; --policy to choose), memory local\n"
               "rank  device        nodes  cpus        memory\n"
               "0     0000:84:00.0  1      8-15,24-31  local\n"
               "1     0000:83:00.0  1      8-15,24-31  local\n"
               "rank 0 exports:\n  CUDA_VISIBLE_DEVICES=2\n"
               "rank 1 exports:\n  CUDA_VISIBLE_DEVICES=1\n");
}

// NVIDIA's rule, in the command as in a launch: the first invalid entry ends the list, so 2,1,-1,0 is GPUs
// 2 and 1 (before, the whole list was dropped: 4 ranks over every GPU).
Test(plan_export, an_invalid_visible_entry_ends_the_list) {
  Result r = Run({"plan", "--topology", RealTopology("32em64t-2n8c2t-pci-wholeio.xml"), "--export", "gpu"},
                 {"CUDA_VISIBLE_DEVICES=2,1,-1,0"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "2 ranks, policy node (the default; --policy to choose), memory local\n"
               "rank  device        nodes  cpus        memory\n"
               "0     0000:84:00.0  1      8-15,24-31  local\n"
               "1     0000:83:00.0  1      8-15,24-31  local\n"
               "rank 0 exports:\n  CUDA_VISIBLE_DEVICES=2\n"
               "rank 1 exports:\n  CUDA_VISIBLE_DEVICES=1\n");
}

Test(plan_export, bad_export_names_the_option) {
  Result r = Run({"plan", "--export", "omq"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(
      r.err.c_str(),
      "numabind plan: --export omq: unknown item omq: expected none or a comma list of omp, omp-cpus, "
      "gpu, nic (did you mean omp?)\n");
}

Test(plan_export, nics_column_when_export_asks_for_nics) {
  std::string topo = RealTopology("8em64t-2n2c2t-4gpu-multirail.xml");
  Result r = Run({"plan", "--topology", topo, "--policy", "node"}, {"NUMABIND_EXPORT=nic"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(),
               "4 ranks, policy node, memory local\n"
               "rank  device        nodes  cpus  memory  nics\n"
               "0     0000:03:00.0  0      0-3   local   mlx5_0:1\n"
               "1     0000:07:00.0  0      0-3   local   mlx5_1:1\n"
               "2     0000:83:00.0  1      4-7   local   mlx5_2:1\n"
               "3     0000:87:00.0  1      4-7   local   mlx5_3:1\n"
               "rank 0 exports:\n  NCCL_IB_HCA==mlx5_0:1\n  UCX_NET_DEVICES=mlx5_0:1\n"
               "rank 1 exports:\n  NCCL_IB_HCA==mlx5_1:1\n  UCX_NET_DEVICES=mlx5_1:1\n"
               "rank 2 exports:\n  NCCL_IB_HCA==mlx5_2:1\n  UCX_NET_DEVICES=mlx5_2:1\n"
               "rank 3 exports:\n  NCCL_IB_HCA==mlx5_3:1\n  UCX_NET_DEVICES=mlx5_3:1\n");
  // Without devices, the ranks of a node split its rails.
  r = Run({"plan", "--topology", topo, "--devices", "none", "--ranks", "4", "--json"},
          {"NUMABIND_EXPORT=nic"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::vector<std::string> nics;
  for (const char* p = r.out.c_str(); (p = strstr(p, "\"nics\":\"")) != nullptr;) {
    p += 8;
    nics.emplace_back(p, strchr(p, '"') - p);
  }
  cr_assert_eq(nics.size(), 4u, "%s", r.out.c_str());
  EXPECT_STREQ(nics[0].c_str(), "mlx5_0:1");
  EXPECT_STREQ(nics[1].c_str(), "mlx5_1:1,mlx5_4:1");
  EXPECT_STREQ(nics[2].c_str(), "mlx5_2:1");
  EXPECT_STREQ(nics[3].c_str(), "mlx5_3:1");
}

Test(plan_export, no_nics_unless_asked_and_none_found) {
  std::string topo = RealTopology("8em64t-2n2c2t-4gpu-multirail.xml");
  Result r = Run({"plan", "--topology", topo, "--policy", "node", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_null(strstr(r.out.c_str(), "nics"), "%s", r.out.c_str());
  r = Run({"plan", "--topology", topo, "--policy", "node", "--export", "omp"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_null(strstr(r.out.c_str(), "nics"), "%s", r.out.c_str());
  // Asked for, on a machine without HCAs: no column; JSON says "" for each rank.
  r = Run({"plan", "--topology", kTwoPackages, "--ranks", "2"}, {"NUMABIND_EXPORT=nic"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_null(strstr(r.out.c_str(), "nics"), "%s", r.out.c_str());
  r = Run({"plan", "--topology", kTwoPackages, "--ranks", "1", "--json"}, {"NUMABIND_EXPORT=nic"});
  cr_assert_not_null(strstr(r.out.c_str(), "\"memory\":\"local\",\"nics\":\"\","), "%s", r.out.c_str());
}

// 4 nodes of 32 cores: OMP_PLACES alone is about 150 columns. Every line fits 100, each variable starts a
// line of its own, and a wrapped value read back is the value (as --json gives it).
Test(plan_export, exports_fit_100_columns) {
  for (const char* ranks : {"4", "8", "128"}) {
    Result r = Run({"plan", "--topology", kWide, "--policy", "exclusive", "--ranks", ranks, "--export",
                    "omp,omp-cpus,gpu,nic"});
    cr_assert_eq(r.status, 0, "%s", r.err.c_str());
    size_t widest = 0;
    for (size_t pos = 0; pos < r.out.size();) {
      size_t end = r.out.find('\n', pos);
      widest = std::max(widest, end - pos);
      pos = end + 1;
    }
    cr_assert_leq(widest, 100u, "%s ranks: a line of %zu columns:\n%s", ranks, widest, r.out.c_str());
  }
  Result r = Run({"plan", "--topology", kWide, "--export", "omp"});
  Result j = Run({"plan", "--topology", kWide, "--export", "omp", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.find("rank 3 exports:\n  OMP_NUM_THREADS=32\n  OMP_PLACES={96},") != std::string::npos,
            "%s", r.out.c_str());
  size_t at = r.out.find("rank 3 exports:\n") + 16;
  std::string places;
  for (size_t pos = r.out.find("  OMP_PLACES=", at); pos < r.out.size();) {
    size_t end = r.out.find('\n', pos);
    std::string line = r.out.substr(pos, end - pos);
    if (!places.empty() && line.rfind("      ", 0) != 0) break;  // the next variable
    places += line.substr(line.find_first_not_of(' '));
    pos = end + 1;
  }
  std::string want = "OMP_PLACES=";
  size_t k = j.out.rfind("\"OMP_PLACES\":\"") + 14;
  want += j.out.substr(k, j.out.find('"', k) - k);
  EXPECT_STREQ(places, want);
}
