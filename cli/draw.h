// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan --draw` and `numabind show --draw`: a text picture of the machine and of where ranks (or
// processes) run on it. One row per NUMA node, grouped by package: its memory, its CPUs as ranges, a bar of
// cells with a mark per rank on the CPUs it has, the ranks there, and a line of the devices near the node
// (accelerators, network cards with the RDMA devices on them and their ports' state). A legend maps each mark
// to its rank, CPUs, nodes and device. Plain ASCII, at most kDrawWidth columns and kDrawHeight lines whatever
// the machine: bars are scaled (a cell stands for several CPUs on big nodes), lists are cut with "...", and
// the legend or the node rows are cut last with a line that says how many were left out.

#ifndef NUMABIND_CLI_DRAW_H_
#define NUMABIND_CLI_DRAW_H_

#include <stddef.h>

#include <string>
#include <vector>

#include "planner/cpu_set.h"
#include "planner/topology.h"

namespace numabind::cli {

inline constexpr size_t kDrawWidth = 100;
inline constexpr size_t kDrawHeight = 45;
/// The most cells in a node's bar: a bigger node gets ceil(cpus / kDrawCells) CPUs per cell.
inline constexpr size_t kDrawCells = 32;

/// One rank (plan) or process (show) to draw.
struct DrawItem {
  std::string id;                    ///< "3" (the rank) or "4242" (the pid)
  planner::CpuSet cpus;              ///< where it runs
  planner::NodeSet nodes;            ///< where its memory goes (may be empty: show's default policy)
  std::string device;                ///< PCI bus id of its device, "" for none
  std::vector<std::string> details;  ///< last fields of its legend entry (show: memory policy, command)
  std::string error;                 ///< non-empty: it has no place (plan), drawn as a line of its own
};

struct Drawing {
  std::string title;            ///< the first line(s), wrapped at kDrawWidth
  std::string item_word;        ///< "rank" or "process", for the column header and messages
  std::string items_word;       ///< its plural
  std::vector<DrawItem> items;  ///< item i is drawn with DrawMark(i)
  /// CPUs drawn 'x': plan marks those a plan may not use (outside topo.allowed), show those outside the
  /// machine's allowed set (cgroup), since numabind's own affinity says nothing about other processes.
  bool plan = true;
  /// The legend's names of the items' details (after "mark=pid, cpus"); "" for show's ("memory policy,
  /// command"). Only when plan is false.
  std::string detail_fields;
};

/// A picture of `count` live processes (show, ps): "numabind COMMAND: N process(es) WHERE" as its title,
/// process as its item word, the machine's allowed CPUs as its 'x' (plan false). Its items are the caller's.
Drawing ProcessesDrawing(const std::string& command, size_t count, const std::string& where);

/// The mark of item i: 0-9, A-Z, a-z, repeating after 62 (the header says so when it does).
char DrawMark(size_t i);

/// The picture, lines ending in '\n'.
std::string Draw(const planner::Topology& topo, const Drawing& drawing);

/// Loads `spec` (nullptr or "" = this machine; an hwloc XML file; "synthetic:DESC") with its PCI devices and
/// draws on it. False with a one-line reason in *err when the topology cannot be loaded.
bool DrawOn(const char* spec, const Drawing& drawing, std::string* out, std::string* err);

// Parts of the picture: the node rows in draw_nodes.cc, text pieces in draw_text.cc.

/// The table's header line, then a block per node: its row (package, node, memory, CPUs, a bar of `per`
/// CPUs a cell, the items there) with its devices at the end when they fit, else on lines under it.
/// A network function names its RDMA devices ("eth 11:01.0 rxe0", "ib 81:00.0 mlx5_4 port 2 down"); an
/// RDMA device on no drawn function is "rdma rxe5". Devices near no node (or unknown to the topology) go
/// to *floating as "gpu 06:00.0 (rank 0)" or "dev 34:00.0 (rank 0)" (a listed device the topology does
/// not have: its kind is unknown).
std::vector<std::vector<std::string>> NodeBlocks(const planner::Topology& topo, const Drawing& drawing,
                                                 const planner::CpuSet& usable, size_t per,
                                                 std::vector<std::string>* floating);

/// "31 GB", "512 MB", "1.5 TB"; "-" for 0 (unknown).
std::string DrawSize(uint64_t bytes);
/// "06:00.0" for "0000:06:00.0"; other domains kept.
std::string ShortBusId(const std::string& bus_id);
/// The list form of `set` cut at a comma to at most `width` characters, ending in ",..." when cut.
std::string CutList(const planner::CpuSet& set, size_t width);
/// `text` cut to at most `width` characters, ending in "..." when cut.
std::string Cut(const std::string& text, size_t width);
/// The most lines WrapList gives.
inline constexpr size_t kWrapLines = 2;
/// `items` after `prefix`, separated by ", " and wrapped at kDrawWidth (continuation lines indented as
/// far as the prefix), appended to *out: at most kWrapLines lines, the last ending in ", +N more" when
/// items were left out; nothing when there are none.
void WrapList(const std::string& prefix, const std::vector<std::string>& items,
              std::vector<std::string>* out);
/// The rows of a table as lines, columns two spaces apart, trailing spaces dropped, cut at kDrawWidth.
std::vector<std::string> Columns(const std::vector<std::vector<std::string>>& cells);
/// The legend: entries (each a row of fields) aligned field by field and laid out in as many columns as
/// fit kDrawWidth, top to bottom then left to right; at most max_lines lines, the last one then saying how
/// many entries were left out (`more` names where to see them all).
std::vector<std::string> LegendLines(const std::vector<std::vector<std::string>>& entries, size_t max_lines,
                                     const std::string& more);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_DRAW_H_
