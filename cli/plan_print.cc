// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// How `numabind plan` prints its rows (cli/plan_rows.h).

#include <algorithm>

#include "cli/cli.h"
#include "cli/draw.h"
#include "cli/plan_rows.h"
#include "planner/cpu_set.h"

namespace numabind::cli {
namespace {

constexpr size_t kWidth = 100;  ///< the columns the table's exports fit

/// "NAME=value" at `indent`, broken after commas so that each line fits kWidth where it can (a piece
/// without a comma longer than that stays whole); the lines after the first are indented 4 more.
std::string WrapExport(const std::string& entry, size_t indent) {
  std::string out, line = std::string(indent, ' ');
  size_t start = line.size();  // where this line's text starts
  for (size_t pos = 0; pos < entry.size();) {
    size_t comma = entry.find(',', pos);
    size_t end = comma == std::string::npos ? entry.size() : comma + 1;
    if (line.size() > start && line.size() + (end - pos) > kWidth) {
      out += line + "\n";
      line = std::string(indent + 4, ' ');
      start = line.size();
    }
    line += entry.substr(pos, end - pos);
    pos = end;
  }
  return out + line + "\n";
}

/// After the table: each placed rank's exports, one variable per line, and what was not exported.
void PrintExports(const PlanRows& plan, FILE* out) {
  for (const RankRow& row : plan.rows) {
    if (!row.ok) continue;
    fprintf(out, "rank %u exports:%s\n", row.rank, row.exports.empty() && row.note.empty() ? " none" : "");
    for (const std::string& e : row.exports) fputs(WrapExport(e, 2).c_str(), out);
    if (!row.note.empty()) fputs(Wrap("not exported: " + row.note, 2, kWidth).c_str(), out);
  }
}

}  // namespace

bool DrawRows(const PlanRows& plan, const config::Config& cfg, uint32_t nranks, FILE* out,
              std::string* error) {
  Drawing drawing;
  std::string where = cfg.topology != nullptr && *cfg.topology != '\0' ? cfg.topology : "this machine";
  if (where.compare(0, 10, "synthetic:") != 0) where = where.substr(where.rfind('/') + 1);  // a file's name
  drawing.title = "numabind plan: " + plan.heading + ", on " + where;
  drawing.item_word = "rank";
  drawing.items_word = "ranks";
  std::string ignored;  // the lists are FormatBits' own output
  for (const RankRow& row : plan.rows) {
    DrawItem item;
    item.id = std::to_string(row.rank);
    planner::CpuSet::ParseList(row.cpus.c_str(), &item.cpus, &ignored);
    planner::CpuSet::ParseList(row.nodes.c_str(), &item.nodes, &ignored);
    item.device = row.device;
    item.error = row.error;
    drawing.items.push_back(std::move(item));
  }
  std::string text;
  if (!DrawOn(cfg.topology, drawing, &text, error)) return false;
  fputs(text.c_str(), out);
  return true;
}

void PrintJson(const PlanRows& plan, const config::Config& cfg, FILE* out) {
  fprintf(out, "[\n");
  for (size_t i = 0; i < plan.rows.size(); ++i) {
    const RankRow& row = plan.rows[i];
    if (row.ok) {
      fprintf(out, "  {\"rank\":%u,\"device\":%s,\"devices\":[", row.rank, JsonString(row.device).c_str());
      for (size_t d = 0; d < row.devices.size(); ++d)
        fprintf(out, "%s%s", d > 0 ? "," : "", JsonString(row.devices[d]).c_str());
      fprintf(out, "],\"nodes\":%s,\"cpus\":%s,\"memory\":%s", JsonString(row.nodes).c_str(),
              JsonString(row.cpus).c_str(), JsonString(row.memory).c_str());
      if ((cfg.exports & config::kExportNic) != 0) fprintf(out, ",\"nics\":%s", JsonString(row.nics).c_str());
      if (plan.is_auto)
        fprintf(out, ",\"auto\":{\"decision\":%s,\"share\":%s}", JsonString(plan.decision).c_str(),
                JsonString(row.share).c_str());
      if (cfg.exports != 0) {
        fprintf(out, ",\"exports\":{");
        for (size_t e = 0; e < row.exports.size(); ++e) {
          size_t eq = row.exports[e].find('=');
          fprintf(out, "%s%s:%s", e > 0 ? "," : "", JsonString(row.exports[e].substr(0, eq)).c_str(),
                  JsonString(row.exports[e].substr(eq + 1)).c_str());
        }
        fprintf(out, "},\"export_note\":%s", row.note.empty() ? "null" : JsonString(row.note).c_str());
      }
      fprintf(out, "}");
    } else {
      fprintf(out, "  {\"rank\":%u,\"error\":%s}", row.rank, JsonString(row.error).c_str());
    }
    fprintf(out, "%s\n", i + 1 < plan.rows.size() ? "," : "");
  }
  fprintf(out, "]\n");
}

void PrintRows(const PlanRows& plan, const config::Config& cfg, FILE* out) {
  std::vector<std::vector<std::string>> table;
  table.push_back({"rank", "device", "nodes", "cpus", "memory"});
  fprintf(out, "%s\n", plan.heading.c_str());
  if (plan.is_auto) {
    fprintf(out, "%s\n", plan.decision.c_str());
    table[0].push_back("auto share");
  }
  if (plan.any_nics) table[0].push_back("nics");
  for (const RankRow& row : plan.rows) {
    if (row.ok) {
      table.push_back({std::to_string(row.rank),
                       row.device.empty()      ? "-"
                       : row.more_devices == 0 ? row.device
                                               : row.device + "+" + std::to_string(row.more_devices),
                       row.nodes, row.cpus, row.memory});
      if (plan.is_auto) table.back().push_back(row.share);
      if (plan.any_nics) table.back().push_back(row.nics.empty() ? "-" : row.nics);
    } else {
      table.push_back({std::to_string(row.rank), "error: " + row.error});
    }
  }
  PrintTable(out, table);
  if (cfg.exports != 0) PrintExports(plan, out);
}

}  // namespace numabind::cli
