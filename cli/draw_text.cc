// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The small text pieces of `--draw` (cli/draw.h): sizes, bus ids, lists cut to a width, the legend's
// columns.

#include <stdio.h>

#include <algorithm>

#include "cli/draw.h"

namespace numabind::cli {

std::string DrawSize(uint64_t bytes) {
  if (bytes == 0) return "-";
  const char* units[] = {"MB", "GB", "TB", "PB"};
  double v = static_cast<double>(bytes) / (1024.0 * 1024.0);
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  // Whole units from 10 up (31 GB, not 31.4 GB); one decimal below, where it matters (1.5 TB).
  snprintf(buf, sizeof buf,
           v >= 10.0 || v == static_cast<double>(static_cast<uint64_t>(v)) ? "%.0f %s" : "%.1f %s", v,
           units[u]);
  return buf;
}

std::string ShortBusId(const std::string& bus_id) {
  if (bus_id.size() == 12 && bus_id.compare(0, 5, "0000:") == 0) return bus_id.substr(5);
  return bus_id;
}

std::string Cut(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  return text.substr(0, width - 3) + "...";
}

std::string CutList(const planner::CpuSet& set, size_t width) {
  std::string list = set.ToList();
  if (list.size() <= width) return list;
  // Whole ranges only: "0,2,4,..." never "0,2,4,1...".
  size_t keep = width >= 4 ? width - 4 : 0;
  size_t comma = list.rfind(',', keep);
  if (comma == std::string::npos || comma == 0) return Cut(list, width);
  return list.substr(0, comma) + ",...";
}

void WrapList(const std::string& prefix, const std::vector<std::string>& items,
              std::vector<std::string>* out) {
  if (items.empty()) return;
  std::vector<std::string> lines;
  std::string line = prefix;
  size_t on_line = 0, done = 0;
  for (const std::string& item : items) {
    if (on_line > 0 && line.size() + 2 + item.size() > kDrawWidth) {
      if (lines.size() + 1 == kWrapLines) break;  // the last line counts the rest
      lines.push_back(line);
      line = std::string(prefix.size(), ' ');
      on_line = 0;
    }
    line += (on_line++ > 0 ? ", " : "") + item;
    ++done;
  }
  if (done < items.size()) {
    std::string more = ", +" + std::to_string(items.size() - done) + " more";
    line = Cut(line, kDrawWidth - more.size()) + more;
  }
  lines.push_back(Cut(line, kDrawWidth));
  out->insert(out->end(), lines.begin(), lines.end());
}

std::vector<std::string> Columns(const std::vector<std::vector<std::string>>& cells) {
  std::vector<size_t> w;
  for (const auto& row : cells) {
    if (w.size() < row.size()) w.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  }
  std::vector<std::string> lines;
  for (const auto& row : cells) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) line += row[i] + std::string(w[i] - row[i].size() + 2, ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(Cut(line, kDrawWidth));
  }
  return lines;
}

std::vector<std::string> LegendLines(const std::vector<std::vector<std::string>>& entries, size_t max_lines,
                                     const std::string& more) {
  std::vector<std::string> out;
  if (entries.empty() || max_lines == 0) return out;
  size_t nfields = 0;
  for (const auto& e : entries) nfields = std::max(nfields, e.size());
  std::vector<size_t> widths(nfields, 0);
  for (const auto& e : entries)
    for (size_t f = 0; f < e.size(); ++f) widths[f] = std::max(widths[f], e[f].size());
  std::vector<std::string> texts;
  size_t width = 0;
  for (const auto& e : entries) {
    std::string t;
    for (size_t f = 0; f < e.size(); ++f) {
      if (f > 0) t += "  ";
      t += e[f] + std::string(widths[f] - e[f].size(), ' ');
    }
    while (!t.empty() && t.back() == ' ') t.pop_back();
    width = std::max(width, t.size());
    texts.push_back(Cut(t, kDrawWidth - 2));
  }
  width = std::min(width, kDrawWidth - 2);
  const size_t gap = 3;
  size_t columns = std::max<size_t>(1, (kDrawWidth - 2 + gap) / (width + gap));
  size_t lines = (texts.size() + columns - 1) / columns;
  size_t shown = texts.size();
  if (lines > max_lines) {
    // The last line says what is missing; the lines above it are full.
    lines = max_lines - 1;
    shown = lines * columns;
  }
  for (size_t l = 0; l < lines; ++l) {
    std::string line = "  ";
    for (size_t c = 0; c < columns; ++c) {
      size_t i = c * lines + l;
      if (i >= shown) break;
      if (c > 0) line += std::string(gap, ' ');
      line += texts[i] + std::string(width - std::min(width, texts[i].size()), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.push_back(line);
  }
  if (shown < texts.size()) {
    out.push_back("  ... and " + std::to_string(texts.size() - shown) + " more (" + more + ")");
  }
  return out;
}

}  // namespace numabind::cli
