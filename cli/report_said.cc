// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`'s folding of lines that say the same thing (cli/report.h: SaidOnce): each process that
// reads a bad site file says so, and a job's log must not bury its verdict under a thousand copies.

#include "cli/report.h"

namespace numabind::cli {

void SaidOnce::Add(const std::string& text) {
  auto [at, fresh] = index.emplace(text, items.size());
  if (fresh)
    items.emplace_back(text, 1);
  else
    ++items[at->second].second;
}

std::vector<std::string> SaidOnce::Folded() const {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& [text, lines] : items)
    out.push_back(lines == 1 ? text : text + " (said " + std::to_string(lines) + " times)");
  return out;
}

}  // namespace numabind::cli
