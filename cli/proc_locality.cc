// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A live process's memory per node and its threads' CPUs (cli/proc_locality.h).

#include "cli/proc_locality.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>

#include "cli/proc_text.h"
#include "planner/cpu_set.h"

namespace numabind::cli {

base::NodeMemory CountNumaMaps(const std::string& numa_maps) {
  base::NodeMemory m;
  size_t start = 0;
  while (start < numa_maps.size()) {
    size_t end = numa_maps.find('\n', start);
    if (end == std::string::npos) end = numa_maps.size();
    base::AddNumaMapsLine(numa_maps.data() + start, end - start, &m);
    start = end + 1;
  }
  return m;
}

std::string PerNode(const base::NodeMemory& m, bool file) {
  std::string out;
  for (uint32_t n = 0; n < base::kNumaMapsNodes; ++n) {
    uint64_t kb = file ? m.file_kb[n] : m.anon_kb[n];
    if (kb == 0) continue;
    char cell[48];
    snprintf(cell, sizeof(cell), "%s%u:%.1fM", out.empty() ? "" : " ", n, static_cast<double>(kb) / 1024);
    out += cell;
  }
  if (!file && m.higher_kb > 0) {
    char cell[48];
    snprintf(cell, sizeof(cell), "%s64+:%.1fM", out.empty() ? "" : " ",
             static_cast<double>(m.higher_kb) / 1024);
    out += cell;
  }
  return out.empty() ? "-" : out;
}

std::vector<ThreadInfo> ReadThreads(long pid, const std::string& process_cpus) {
  std::vector<ThreadInfo> threads;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  planner::CpuSet mine;
  std::string ignored;
  bool known = planner::CpuSet::ParseList(process_cpus.c_str(), &mine, &ignored);
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return threads;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long tid = strtol(e->d_name, &end, 10);
    if (tid <= 0 || *end != '\0') continue;
    std::string status;
    if (ReadProcFile(dir + "/" + e->d_name + "/status", 1 << 16, &status) != 0 || status.empty()) continue;
    ThreadInfo t;
    t.tid = tid;
    if (!StatusValue(status, "Name", &t.name)) t.name = "?";
    if (!StatusValue(status, "Cpus_allowed_list", &t.cpus)) t.cpus = "?";
    planner::CpuSet has;
    t.outside = known && planner::CpuSet::ParseList(t.cpus.c_str(), &has, &ignored) && !has.IsSubsetOf(mine);
    threads.push_back(std::move(t));
  }
  closedir(d);
  std::sort(threads.begin(), threads.end(),
            [](const ThreadInfo& a, const ThreadInfo& b) { return a.tid < b.tid; });
  return threads;
}

}  // namespace numabind::cli
