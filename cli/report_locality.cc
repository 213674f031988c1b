// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What a rank's end line says of where its memory and threads were (shim/rank/locality.h), and the flags
// report raises from it (docs/log.md, "Where a rank's memory is").

#include <stdlib.h>

#include <string>

#include "cli/report.h"

namespace numabind::cli {
namespace {

using config::LogKey;

std::string Text(const LogFields& f, LogKey key) { return f[key].text; }

uint64_t Count(const LogFields& f, LogKey key) { return strtoull(f[key].text.c_str(), nullptr, 10); }

/// kB as people read it: "512 KiB", "64 MiB", "1.5 GiB".
std::string Size(uint64_t kb) {
  char buf[32];
  if (kb < 1024)
    snprintf(buf, sizeof(buf), "%llu KiB", static_cast<unsigned long long>(kb));
  else if (kb < uint64_t{1024} * 1024)
    snprintf(buf, sizeof(buf), "%.0f MiB", static_cast<double>(kb) / 1024);
  else
    snprintf(buf, sizeof(buf), "%.1f GiB", static_cast<double>(kb) / (1024 * 1024));
  return buf;
}

}  // namespace

ReportEnd EndOf(const LogFields& f) {
  ReportEnd e;
  e.time = Text(f, LogKey::kTime);
  ReportLocality& w = e.where;
  w.known = !f[LogKey::kAnonKb].text.empty();
  if (!w.known) return e;
  w.anon_kb = Count(f, LogKey::kAnonKb);
  w.local_kb = Count(f, LogKey::kLocalKb);
  w.threads = Count(f, LogKey::kThreads);
  w.outside = Count(f, LogKey::kOutside);
  w.remote_node = Text(f, LogKey::kRemoteNode);
  w.by_node = Text(f, LogKey::kByNode);
  w.planned_nodes = Text(f, LogKey::kPlannedNodes);
  w.outside_threads = Text(f, LogKey::kOutsideThreads);
  w.partial = Text(f, LogKey::kPartial) == "true";
  if (w.local_kb > w.anon_kb) w.local_kb = w.anon_kb;
  return e;
}

void FlagLocality(double min_local, ReportRank* r) {
  const ReportLocality& w = r->where;
  if (!w.known || r->by == "-") return;
  double local = w.LocalPercent();
  if (w.anon_kb >= kJudgedKb && local < min_local) {
    char share[16];
    snprintf(share, sizeof(share), "%.0f%%", local);
    std::string rest = Size(w.anon_kb - w.local_kb);
    r->flags.push_back(
        std::string("memory: ") + share + " of its " + Size(w.anon_kb) + " on its nodes " + w.planned_nodes +
        " at its end (--min-local " + std::to_string(static_cast<int>(min_local)) + "%), " + rest +
        " elsewhere" +
        (w.remote_node.empty() || w.remote_node == "null" ? "" : ", most on node " + w.remote_node));
  }
  if (w.outside > 0) {
    r->flags.push_back(std::to_string(w.outside) + (w.outside == 1 ? " thread" : " threads") +
                       " outside its CPUs at its end (TID NAME CPUS: " + w.outside_threads +
                       (w.outside > 4 ? "; ..." : "") + ")");
  }
}

}  // namespace numabind::cli
