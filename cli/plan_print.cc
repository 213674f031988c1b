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
  if (!plan.kinds.empty()) fprintf(out, "%s\n", plan.kinds.c_str());
  return true;
}

void PrintJson(const PlanRows& plan, const config::Config& cfg, FILE* out) {
  JsonFile file(out);
  base::JsonWriter& j = file.json();
  j.BeginArray();
  for (const RankRow& row : plan.rows) {
    j.Break(2).BeginObject().Key("rank").Uint(row.rank);
    if (!row.ok) {
      j.Key("error").String(row.error).EndObject();
      continue;
    }
    j.Key("device").String(row.device).Key("devices").BeginArray();
    for (const std::string& d : row.devices) j.String(d);
    j.EndArray();
    j.Key("nodes").String(row.nodes);
    j.Key("cpus").String(row.cpus);
    j.Key("memory").String(row.memory);
    if (!row.kind.empty()) j.Key("kind").String(row.kind);
    if ((cfg.exports & config::kExportNic) != 0) j.Key("nics").String(row.nics);
    if (plan.is_auto) {
      j.Key("auto").BeginObject().Key("decision").String(plan.decision);
      j.Key("share").String(row.share).EndObject();
    }
    if (cfg.exports != 0) {
      j.Key("exports").BeginObject();
      for (const std::string& e : row.exports) {
        size_t eq = e.find('=');
        size_t value = eq == std::string::npos ? e.size() : eq + 1;
        j.Key(e.data(), eq == std::string::npos ? e.size() : eq).String(e.data() + value, e.size() - value);
      }
      j.EndObject().Key("export_note");
      StringOrNull(&j, row.note);
    }
    j.EndObject();
  }
  j.Break(0).EndArray().Finish();
}

void PrintRows(const PlanRows& plan, const config::Config& cfg, FILE* out) {
  std::vector<std::vector<std::string>> table;
  table.push_back({"rank", "device", "nodes", "cpus", "memory"});
  fprintf(out, "%s\n", plan.heading.c_str());
  if (!plan.kinds.empty()) {
    fprintf(out, "%s\n", plan.kinds.c_str());
    table[0].push_back("kind");
  }
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
      if (!plan.kinds.empty()) table.back().push_back(row.kind.empty() ? "-" : row.kind);
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
