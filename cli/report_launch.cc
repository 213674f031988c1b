// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`'s launches (cli/report.h): a job script may launch several times (two `mpirun`, two
// `srun` steps), each launch judged on its own. A launch on a host is the ranks whose lines carry the same
// token (shim/launcher/launch_id.h). Which launches ran at the same time is read from the lines' times: a
// rank line is written when the rank starts, and nothing is written when it ends, so two launches whose
// rank lines interleave certainly ran together, and two that follow each other may or may not have.

#include <algorithm>
#include <utility>

#include "cli/report.h"

namespace numabind::cli {

bool LaunchNamed(const std::string& token, const std::string& id) {
  if (token == id) return true;
  size_t slash = token.find('/');
  return slash != std::string::npos &&
         (token.compare(0, slash, id) == 0 || token.compare(slash + 1, std::string::npos, id) == 0);
}

bool SelectLaunches(const LaunchChoice& choice, ReportJob* job) {
  if (choice.id.empty() && !choice.last) return true;
  bool found = false;
  std::vector<ReportHost> kept;
  for (ReportHost& h : job->hosts) {
    std::string last;  // --last: the launch whose first line is the latest (ties: the one seen last)
    for (const ReportLaunch& l : h.launches)
      if (last.empty() || l.first >= h.launches[h.launch_index[last]].first) last = l.id;
    std::vector<ReportRank> ranks;
    for (ReportRank& r : h.ranks)
      if (choice.last ? r.launch == last : LaunchNamed(r.launch, choice.id)) ranks.push_back(std::move(r));
    if (ranks.empty()) continue;  // a host where the launch did not run
    found = true;
    std::vector<ReportLaunch> launches;
    for (ReportLaunch& l : h.launches)
      if (choice.last ? l.id == last : LaunchNamed(l.id, choice.id)) launches.push_back(std::move(l));
    h.ranks = std::move(ranks);
    h.launches = std::move(launches);
    h.pid_index.clear();
    kept.push_back(std::move(h));
  }
  job->hosts = std::move(kept);
  return found || choice.last;
}

void OrderLaunches(ReportHost* h) {
  std::sort(h->launches.begin(), h->launches.end(), [](const ReportLaunch& a, const ReportLaunch& b) {
    return std::tie(a.first, a.id) < std::tie(b.first, b.id);
  });
  h->launch_index.clear();
  std::string end;  // the latest line of the group so far
  for (size_t i = 0; i < h->launches.size(); ++i) {
    ReportLaunch& l = h->launches[i];
    h->launch_index[l.id] = i;
    l.ranks = 0;
    // A launch whose first line comes before the group's last ran while the group's ranks were starting.
    bool together = i > 0 && l.first <= end;
    l.group = i == 0 ? 0 : h->launches[i - 1].group + (together ? 0 : 1);
    end = together ? std::max(end, l.last) : l.last;
  }
}

void NoteSequentialSharing(ReportHost* h) {
  // Group by group (ranks come by launch, launches by group): the CPUs of the group before and of this one,
  // two sets whatever the number of groups.
  planner::CpuSet before, now;
  std::string before_names, names;
  size_t group = 0;
  auto compare = [&] {
    planner::CpuSet both;
    for (int64_t c = before.First(); c >= 0; c = before.Next(c))
      if (now.Has(static_cast<uint32_t>(c))) both.Set(static_cast<uint32_t>(c));
    if (both.Empty()) return;
    h->notes.push_back(
        "launch " + names + " used cpus " + both.ToList() + " after launch " + before_names +
        ": its ranks started after all of the earlier's had, taken as one after the other (the "
        "log records when ranks start, not when they end)");
  };
  std::string launch;
  for (const ReportRank& r : h->ranks) {
    const ReportLaunch& l = h->launches[h->launch_index[r.launch]];
    if (l.group != group) {
      compare();
      before = std::move(now), before_names = std::move(names);
      now = planner::CpuSet(), names.clear();
      group = l.group;
    }
    if (r.launch != launch) names += (names.empty() ? "" : ", ") + r.launch;
    launch = r.launch;
    if (r.by == "-") continue;
    for (int64_t c = r.cpu_set.First(); c >= 0; c = r.cpu_set.Next(c)) now.Set(static_cast<uint32_t>(c));
  }
  compare();
}

}  // namespace numabind::cli
