// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Slurm's compressed task counts (config/rank_count.cc: SLURM_STEP_TASKS_PER_NODE, SLURM_TASKS_PER_NODE,
// "2(x3),1"), which the library reads between fork and exec. Input: the value on the first line; the
// other lines are an environment for LocalRankCount. Beyond not crashing: ParseTaskCounts agrees with a
// plain reference reading of the grammar (entries "N" or "N(xM)", N from 1 to 2^20, M from 1 to 2^32-1)
// for nodes at, inside and past the list; LocalRankCount gives 0 or a count up to 2^20 for every rank
// variable, and names the variable it read exactly when it found one.

#include <string>
#include <vector>

#include "config/config.h"
#include "config/rank_count.h"
#include "fuzz/fuzz_util.h"

namespace {

struct Entry {
  uint64_t count, repeat;
};

// Decimal digits only, at most max; false otherwise.
bool Number(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  uint64_t v = 0;
  for (char c : s) {
    v = v * 10 + static_cast<uint64_t>(c - '0');
    if (v > max) return false;
  }
  *out = v;
  return true;
}

bool Reference(const std::string& value, std::vector<Entry>* out) {
  size_t start = 0;
  for (;;) {
    size_t comma = value.find(',', start);
    std::string e = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    Entry entry{0, 1};
    size_t paren = e.find('(');
    if (paren != std::string::npos) {
      if (e.size() < paren + 4 || e.compare(paren, 2, "(x") != 0 || e.back() != ')') return false;
      if (!Number(e.substr(paren + 2, e.size() - paren - 3), 0xffffffffu, &entry.repeat) || entry.repeat == 0)
        return false;
      e = e.substr(0, paren);
    }
    if (!Number(e, 1u << 20, &entry.count) || entry.count == 0) return false;
    out->push_back(entry);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> lines = numabind::fuzz::Lines(data, size);
  const std::string& value = lines[0];
  std::vector<Entry> entries;
  bool grammar = Reference(value, &entries);
  uint64_t nodes = 0;
  for (const Entry& e : entries) nodes += e.repeat;

  std::vector<uint64_t> probes = {0, 1, 2, 3, 7, 0xffffffffu};
  if (grammar) {
    uint64_t first = 0;
    for (const Entry& e : entries) {  // each entry's first and last node, and the one past the list
      probes.push_back(first);
      probes.push_back(first + e.repeat - 1);
      first += e.repeat;
    }
    probes.push_back(first);
  }
  for (uint64_t node : probes) {
    if (node > 0xffffffffu) continue;
    uint32_t got = 0;
    bool ok = numabind::config::ParseTaskCounts(value.c_str(), static_cast<uint32_t>(node), &got);
    uint64_t want = 0;
    bool want_ok = grammar && node < nodes;
    if (want_ok) {
      uint64_t first = 0;
      for (const Entry& e : entries) {
        if (node < first + e.repeat) {
          want = e.count;
          break;
        }
        first += e.repeat;
      }
    }
    FUZZ_CHECK(ok == want_ok && (!ok || got == want), "\"%s\" node %llu: got %s %u, want %s %llu",
               value.c_str(), static_cast<unsigned long long>(node), ok ? "ok" : "refused", got,
               want_ok ? "ok" : "refused", static_cast<unsigned long long>(want));
  }

  std::vector<const char*> env;
  for (size_t i = 1; i < lines.size(); ++i) env.push_back(lines[i].c_str());
  env.push_back(nullptr);
  for (int var = -1; var <= numabind::config::kRankVarCount; ++var) {
    uint32_t n = numabind::config::LocalRankCount(env.data(), var);
    const char* source = numabind::config::LocalRankCountSource(env.data(), var);
    FUZZ_CHECK(n <= (1u << 20), "variable %d: count %u", var, n);
    FUZZ_CHECK(n == 0 || source != nullptr, "variable %d: count %u from no variable", var, n);
  }
  return 0;
}
