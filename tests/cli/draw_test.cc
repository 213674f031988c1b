// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan --draw` against golden pictures (tests/cli/golden/NAME.txt) on the topologies of
// tests/data/topologies and synthetic ones, every picture within 100 columns and 45 lines; `numabind show
// --draw` on live bound processes; the pieces of cli/draw.h. `make golden` rewrites the golden files
// (GOLDEN_UPDATE=1 runs this suite's golden test in writing mode); review them with `git diff`.

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "cli/draw.h"
#include "tests/cli/bound_child.h"
#include "tests/cli/cli_util.h"

using numabind::test::CountLines;
using numabind::test::Result;
using numabind::test::Run;

namespace {

constexpr char kTopologies[] = "tests/data/topologies/";
constexpr char kGolden[] = "tests/cli/golden/";

struct Case {
  const char* name;  ///< the golden file's name, without .txt
  std::vector<std::string> args;
  int status;
};

/// The pictures: each real topology with policies that show what it has, big synthetic machines (384
/// CPUs on 2 nodes, on 8 nodes, 64 nodes with 300 ranks), devices the topology knows and ones it does not,
/// memory-only nodes, shared CPUs, ranks without a place.
std::vector<Case> Cases() {
  auto file = [](const char* name) { return std::string(kTopologies) + name; };
  return {
      {"192em64t-exclusive-48",
       {"--topology", file("192em64t-12gr2n8c2t.xml"), "--policy", "exclusive", "--ranks", "48"},
       0},
      {"192em64t-node", {"--topology", file("192em64t-12gr2n8c2t.xml"), "--policy", "node"}, 0},
      {"24em64t-pci-node", {"--topology", file("24em64t-2n6c2t-pci.xml"), "--policy", "node"}, 0},
      {"24em64t-pci-exclusive-6",
       {"--topology", file("24em64t-2n6c2t-pci.xml"), "--policy", "exclusive", "--ranks", "6"},
       0},
      {"24em64t-nodevices-socket-4",
       {"--topology", file("24em64t-2n6c2t-pci.xml"), "--devices", "none", "--policy", "socket", "--ranks",
        "4"},
       0},
      {"32em64t-wholeio-core-complex-6",
       {"--topology", file("32em64t-2n8c2t-pci-wholeio.xml"), "--policy", "core-complex", "--ranks", "6"},
       0},
      {"16amd64-cpusets-node", {"--topology", file("16amd64-8n2c-cpusets.xml"), "--policy", "node"}, 0},
      {"16em64t-offlines-exclusive-3",
       {"--topology", file("16em64t-4s2c2t-offlines.xml"), "--policy", "exclusive", "--ranks", "3"},
       0},
      {"16em64t-offlines-too-many-12",
       {"--topology", file("16em64t-4s2c2t-offlines.xml"), "--policy", "exclusive", "--ranks", "12"},
       1},
      {"knl-hybrid-exclusive-8",
       {"--topology", file("64intel64-fakeKNL-SNC4-hybrid.xml"), "--policy", "exclusive", "--ranks", "8"},
       0},
      {"knl-hybrid-nodes-map-interleave",
       {"--topology", file("64intel64-fakeKNL-SNC4-hybrid.xml"), "--policy", "nodes:0,4|1,5", "--memory",
        "interleave", "--ranks", "4"},
       0},
      {"power8-node", {"--topology", file("power8gpudistances.xml"), "--policy", "node"}, 0},
      {"synthetic-384-2nodes-exclusive-48",
       {"--topology", "synthetic:pack:2 numa:1 core:96 pu:2", "--policy", "exclusive", "--ranks", "48"},
       0},
      {"synthetic-384-8nodes-core-complex-16",
       {"--topology", "synthetic:pack:4 numa:2 l3:2 core:12 pu:2", "--policy", "core-complex", "--ranks",
        "16"},
       0},
      {"synthetic-64nodes-node-300",
       {"--topology", "synthetic:pack:4 numa:16 core:3 pu:2", "--policy", "node", "--ranks", "300"},
       0},
      {"synthetic-cpu-map-shared",
       {"--topology", "synthetic:pack:2 numa:2 core:2 pu:2", "--policy", "cpus:0-1|1-2|4-7", "--ranks", "3"},
       0},
      {"24em64t-listed-nic-and-storage",
       {"--topology", file("24em64t-2n6c2t-pci.xml"), "--devices", "05:00.0,00:1f.2", "--policy", "node",
        "--ranks", "2"},
       0},
      {"synthetic-listed-devices",
       {"--topology", "synthetic:pack:2 numa:1 core:4 pu:1", "--devices", "34:00.0,b1:00.0", "--policy",
        "node", "--ranks", "2"},
       0},
  };
}

std::string PlanCommand(const Case& c) {
  std::string text = "numabind plan --draw";
  for (const std::string& a : c.args) text += a.find(' ') != std::string::npos ? " '" + a + "'" : " " + a;
  return text;
}

Result Picture(const Case& c) {
  std::vector<std::string> args = {"plan", "--draw"};
  args.insert(args.end(), c.args.begin(), c.args.end());
  return Run(args);
}

/// The first line where a and b differ, for the failure message.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t line = 1, pos = 0;
  while (pos < a.size() && pos < b.size()) {
    size_t ea = a.find('\n', pos), eb = b.find('\n', pos);
    std::string la = a.substr(pos, ea - pos), lb = b.substr(pos, eb - pos);
    if (la != lb) return "line " + std::to_string(line) + ":\n  drawn:  " + la + "\n  golden: " + lb;
    if (ea == std::string::npos || eb == std::string::npos) break;
    pos = ea + 1;
    ++line;
  }
  return "line " + std::to_string(line) + ": one ends before the other";
}

/// The widest line and the number of lines.
void Extent(const std::string& text, size_t* width, int* lines) {
  *width = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    *width = std::max(*width, end - pos);
    pos = end + 1;
  }
  *lines = CountLines(text);
}

}  // namespace

Test(draw, golden_pictures) {
  const char* update = getenv("GOLDEN_UPDATE");
  bool writing = update != nullptr && strcmp(update, "1") == 0;
  std::string failures;
  for (const Case& c : Cases()) {
    Result r = Picture(c);
    cr_assert_eq(r.status, c.status, "%s: status %d: %s", PlanCommand(c).c_str(), r.status, r.err.c_str());
    std::string path = std::string(kGolden) + c.name + ".txt";
    if (writing) {
      numabind::test::WriteAll(path, r.out);
      continue;
    }
    cr_assert_eq(access(path.c_str(), R_OK), 0, "%s is missing: run `make golden`", path.c_str());
    std::string golden = numabind::test::ReadAll(path);
    if (r.out != golden)
      failures += "\n" + path + " (" + PlanCommand(c) + "), " + FirstDifference(r.out, golden);
  }
  cr_assert(failures.empty(),
            "pictures differ from their golden files; if the change is meant, run `make golden` and review "
            "`git diff tests/cli/golden`:%s",
            failures.c_str());
}

Test(draw, every_golden_file_has_a_case) {
  // A golden file whose case was removed or renamed would never be checked again.
  std::string listing = numabind::test::RunProgram({"ls", kGolden}).out;
  for (size_t pos = 0; pos < listing.size();) {
    size_t end = listing.find('\n', pos);
    std::string name = listing.substr(pos, end - pos);
    pos = end + 1;
    bool found = false;
    for (const Case& c : Cases()) found |= name == std::string(c.name) + ".txt";
    cr_assert(found, "%s%s belongs to no case of tests/cli/draw_test.cc", kGolden, name.c_str());
  }
}

Test(draw, within_100_columns_and_45_lines) {
  for (const Case& c : Cases()) {
    Result r = Picture(c);
    size_t width = 0;
    int lines = 0;
    Extent(r.out, &width, &lines);
    cr_assert_leq(width, numabind::cli::kDrawWidth, "%s: %zu columns", PlanCommand(c).c_str(), width);
    cr_assert_leq(lines, static_cast<int>(numabind::cli::kDrawHeight), "%s: %d lines", PlanCommand(c).c_str(),
                  lines);
    cr_assert_gt(lines, 5, "%s", r.out.c_str());
    for (char ch : r.out) cr_assert(ch == '\n' || (ch >= ' ' && ch <= '~'), "%s: not plain ASCII", c.name);
  }
}

Test(draw, every_rank_on_its_node_row_at_384_cpus) {
  Result r = Picture(Cases()[0]);  // 192em64t, exclusive, 48 ranks: two ranks on each of 24 nodes
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.find("... and") == std::string::npos, "nothing may be cut:\n%s", r.out.c_str());
  for (int node = 0; node < 24; ++node) {
    // The row: package, node, memory, CPUs, map, ranks; the map holds the two ranks' marks, 8 CPUs each.
    std::string a(4, numabind::cli::DrawMark(2 * node)), b(4, numabind::cli::DrawMark(2 * node + 1));
    std::string row = " " + std::to_string(node) + " ";
    std::string map =
        a + b + " " + a + b + "  " + std::to_string(2 * node) + "-" + std::to_string(2 * node + 1);
    size_t at = r.out.find(map);
    cr_assert_neq(at, std::string::npos, "node %d: no %s in\n%s", node, map.c_str(), r.out.c_str());
    size_t line = r.out.rfind('\n', at) + 1;
    cr_assert(r.out.substr(line, at - line).find(row) != std::string::npos, "node %d: %s", node,
              r.out.substr(line, at - line).c_str());
    // The legend has each rank with its CPUs: rank 2n has cores 8n..8n+3 and their siblings (+192).
    std::string entry =
        std::string(1, numabind::cli::DrawMark(2 * node)) + "=" + std::to_string(2 * node) + " ";
    cr_assert_neq(r.out.find(entry), std::string::npos, "no legend entry %s", entry.c_str());
  }
}

Test(draw, legend_and_rows_are_cut_with_a_count) {
  Result r = Run({"plan", "--draw", "--topology", "synthetic:pack:4 numa:16 core:3 pu:2", "--policy", "node",
                  "--ranks", "300"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_leq(CountLines(r.out), 45);
  cr_assert_neq(r.out.find(" more NUMA nodes\n"), std::string::npos, "%s", r.out.c_str());
  cr_assert_neq(r.out.find(" more (numabind plan without --draw lists every rank)\n"), std::string::npos,
                "%s", r.out.c_str());
  cr_assert_neq(r.out.find("marks repeat after 62"), std::string::npos, "%s", r.out.c_str());
}

Test(draw, usage) {
  Result r = Run({"plan", "--draw", "--json", "--topology", "synthetic:pack:1 core:2 pu:1"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err, "numabind plan: --json and --draw do not go together\n");
  r = Run({"show", "--draw", "--json"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err, "numabind show: --json and --draw do not go together\n");
  r = Run({"plan", "--draw", "--topology", "/nonexistent.xml"});
  cr_assert_eq(r.status, 1);
  cr_assert_str_empty(r.out.c_str());
  for (const char* cmd : {"plan", "show"}) {
    r = Run({"help", cmd});
    cr_assert_neq(r.out.find("\n  --draw  "), std::string::npos, "%s --help: %s", cmd, r.out.c_str());
  }
  r = Run({"man", "1"});
  cr_assert_neq(r.out.find(".TP\n\\fB\\-\\-draw\\fR"), std::string::npos, "numabind(1) has no --draw");
}

Test(draw, not_usable_cpus_and_scaled_cells) {
  // By hand: one node of 64 CPUs of which 60-63 are outside the allowed set, one memory-only node, one
  // rank on 0-31: cells of 2 CPUs, 'x' where the plan may not go.
  numabind::planner::Topology topo;
  topo.online = numabind::planner::CpuSet::Range(0, 63);
  topo.complete = topo.online;
  topo.allowed = numabind::planner::CpuSet::Range(0, 59);
  topo.hwloc_allowed = topo.online;
  numabind::planner::TopoNode n0, n1;
  n0.os = 0;
  n0.cpus = topo.online;
  n0.locality = topo.online;
  n1.os = 1;
  n1.locality = topo.online;
  n1.memory = 16ull << 30;
  n1.subtype = "HBM";
  topo.nodes = {n0, n1};
  numabind::cli::Drawing d;
  d.item_word = "rank";
  d.items_word = "ranks";
  numabind::cli::DrawItem item;
  item.id = "0";
  item.cpus = numabind::planner::CpuSet::Range(0, 31);
  item.nodes.Set(1);
  d.items.push_back(item);
  std::string text = numabind::cli::Draw(topo, d);
  cr_assert_neq(text.find("a cell is 2 CPUs"), std::string::npos, "%s", text.c_str());
  cr_assert_neq(text.find(std::string(16, '0') + std::string(14, '.') + "xx  0\n"), std::string::npos, "%s",
                text.c_str());
  cr_assert_neq(text.find("x: not usable"), std::string::npos, "%s", text.c_str());
  cr_assert_neq(text.find("16 GB HBM  memory only"), std::string::npos, "%s", text.c_str());
  cr_assert_neq(text.find("0=0  0-31  node 1"), std::string::npos, "%s", text.c_str());
}

Test(draw, text_pieces) {
  using numabind::cli::CutList;
  EXPECT_STREQ(numabind::cli::DrawSize(0), "-");
  EXPECT_STREQ(numabind::cli::DrawSize(512ull << 20), "512 MB");
  EXPECT_STREQ(numabind::cli::DrawSize(31ull << 30), "31 GB");
  EXPECT_STREQ(numabind::cli::DrawSize(3ull << 39), "1.5 TB");
  EXPECT_STREQ(numabind::cli::ShortBusId("0000:06:00.0"), "06:00.0");
  EXPECT_STREQ(numabind::cli::ShortBusId("0002:03:00.1"), "0002:03:00.1");
  numabind::planner::CpuSet even;
  for (uint32_t i = 0; i < 64; i += 2) even.Set(i);
  EXPECT_STREQ(CutList(even, 20), "0,2,4,6,8,10,12,...");
  EXPECT_STREQ(CutList(numabind::planner::CpuSet::Range(0, 383), 20), "0-383");
  std::string marks;
  for (size_t i = 0; i < 63; ++i) marks += numabind::cli::DrawMark(i);
  EXPECT_STREQ(marks, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0");
  // Entries of 8 columns, 3 apart, fit 9 to a line; entries of 35 columns 2 to a line: 40 of them cut to 3
  // lines are 2 lines of 2 and a line that counts the other 36.
  std::vector<std::vector<std::string>> entries(9, {"1=1", "0-3"});
  cr_assert_eq(numabind::cli::LegendLines(entries, 5, "x").size(), 1u);
  entries.assign(40, {"1=1", std::string(30, '9')});
  std::vector<std::string> cut = numabind::cli::LegendLines(entries, 3, "see x");
  cr_assert_eq(cut.size(), 3u);
  EXPECT_STREQ(cut.back(), "  ... and 36 more (see x)");
}

Test(draw, show_draws_live_processes) {
  // Two processes on two CPUs of this machine (the two lowest it lets this test use), with bind and
  // interleave on node 0: each mark on its own CPU, no CPU shared, both in the legend with their policy.
  cpu_set_t mine;
  cr_assert_eq(sched_getaffinity(0, sizeof(mine), &mine), 0);
  std::vector<int> cpus;
  for (int i = 0; i < CPU_SETSIZE && cpus.size() < 2; ++i)
    if (CPU_ISSET(i, &mine)) cpus.push_back(i);
  if (cpus.size() < 2) cr_skip_test("this test needs two CPUs");
  pid_t a = BoundChild(cpus[0], 2 /* MPOL_BIND */);
  pid_t b = BoundChild(cpus[1], 3 /* MPOL_INTERLEAVE */);
  Result r = Run({"show", "--draw", std::to_string(a), std::to_string(b)});
  Reap(a);
  Reap(b);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.rfind("numabind show: 2 processes on this machine\n", 0) == 0, "%s", r.out.c_str());
  size_t width = 0;
  int lines = 0;
  Extent(r.out, &width, &lines);
  cr_assert_leq(width, numabind::cli::kDrawWidth, "%s", r.out.c_str());
  cr_assert_leq(lines, static_cast<int>(numabind::cli::kDrawHeight), "%s", r.out.c_str());
  // The map column of the node rows: the header names it; marks 0 and 1, no '#'.
  size_t header = r.out.find("\npkg ");
  cr_assert_neq(header, std::string::npos, "%s", r.out.c_str());
  size_t col = r.out.find("map", header) - header - 1;
  std::string maps;
  for (size_t pos = r.out.find('\n', header + 1) + 1; pos < r.out.size() && r.out[pos] != '\n';) {
    size_t end = r.out.find('\n', pos);
    std::string line = r.out.substr(pos, end - pos);
    if (line.empty() || line.rfind("...", 0) == 0 || line.rfind("devices of", 0) == 0) break;
    if (line.size() > col && line.find("near: ") == std::string::npos)
      maps += line.substr(col, line.find("  ", col) - col);
    pos = end + 1;
  }
  cr_assert_eq(std::count(maps.begin(), maps.end(), '0'), 1, "maps %s in\n%s", maps.c_str(), r.out.c_str());
  cr_assert_eq(std::count(maps.begin(), maps.end(), '1'), 1, "maps %s in\n%s", maps.c_str(), r.out.c_str());
  cr_assert_eq(maps.find('#'), std::string::npos, "%s", r.out.c_str());
  std::string entry_a = "0=" + std::to_string(a) + " ", entry_b = "1=" + std::to_string(b) + " ";
  cr_assert_neq(r.out.find(entry_a), std::string::npos, "%s", r.out.c_str());
  cr_assert_neq(r.out.find(entry_b), std::string::npos, "%s", r.out.c_str());
  cr_assert_neq(r.out.find("bind:0"), std::string::npos, "%s", r.out.c_str());
  cr_assert_neq(r.out.find("interleave:0"), std::string::npos, "%s", r.out.c_str());
}

Test(draw, device_lists_are_bounded) {
  std::vector<std::string> items(40, "gpu 0000:06:00.0 (ranks 0,3)"), lines;
  numabind::cli::WrapList("  near: ", items, &lines);
  cr_assert_eq(lines.size(), numabind::cli::kWrapLines);
  for (const std::string& l : lines) cr_assert_leq(l.size(), numabind::cli::kDrawWidth, "%s", l.c_str());
  cr_assert(lines.back().size() > 10 && lines.back().compare(lines.back().size() - 10, 10, ", +34 more") == 0,
            "%s", lines.back().c_str());
  lines.clear();
  numabind::cli::WrapList("near: ", {"eth 01:00.0", "ib 05:00.0"}, &lines);
  cr_assert_eq(lines.size(), 1u);
  EXPECT_STREQ(lines[0], "near: eth 01:00.0, ib 05:00.0");
}

Test(draw, rdma_devices_named_on_their_functions) {
  // tests/vm layout B's guest (tests/planner/nics_test.cc): rxe0-rxe3 on eth0-eth3, rxe3's port down.
  numabind::planner::LoadOptions options;
  options.pci = options.nics = true;
  options.sysfs_root = "tests/data/sysfs/vm-layout-b";
  numabind::planner::Topology topo;
  std::string err;
  std::string xml = std::string(kTopologies) + "vm/8qemu-2n4c-4net-rxe.xml";
  cr_assert(numabind::planner::LoadTopology(xml.c_str(), options, &topo, &err), "%s", err.c_str());
  numabind::cli::Drawing d;
  d.title = "rdma";
  d.item_word = "rank", d.items_word = "ranks";
  std::string out = numabind::cli::Draw(topo, d);
  for (const char* near : {"eth 11:01.0 rxe0, eth 11:02.0 rxe1", "eth 21:02.0 rxe2, eth 21:03.0 rxe3 down"})
    cr_assert_neq(out.find(near), std::string::npos, "no '%s' in\n%s", near, out.c_str());
  // hwloc's virtual OS devices alone: named, of unknown locality.
  options.sysfs_root = "";
  xml = std::string(kTopologies) + "vm/8qemu-2n4c-4net-rxe-virtual-osdev.xml";
  cr_assert(numabind::planner::LoadTopology(xml.c_str(), options, &topo, &err), "%s", err.c_str());
  out = numabind::cli::Draw(topo, d);
  const char* floating = "devices of unknown locality: rdma rxe0, rdma rxe1, rdma rxe2, rdma rxe3 down";
  cr_assert_neq(out.find(floating), std::string::npos, "%s", out.c_str());
}
