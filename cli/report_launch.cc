// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`'s launches (cli/report.h): a job script may launch several times (two `mpirun`, two
// `srun` steps), each launch judged on its own. A launch on a host is the ranks whose lines carry the same
// token (shim/launcher/launch_id.h). Which launches ran at the same time is read from the lines' times: a
// rank line is written when the rank starts, and an "end" line when it exits (from exit or main's return,
// with a JSON log file; not from _exit or a fatal signal). A launch
// that starts before an earlier one's last rank ended ran with it; one that starts after every bound rank
// of the earlier wrote its end followed it; otherwise, two launches whose rank lines interleave certainly
// ran together, and two that follow each other may or may not have.

#include <algorithm>
#include <unordered_map>
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
  for (size_t i = 0; i < h->launches.size(); ++i) h->launch_index[h->launches[i].id] = i;
  // A launch has ended when every bound rank of it wrote its end line: then, when its last one did.
  std::unordered_map<std::string, bool> open;  // a launch with a bound rank that wrote no end
  for (const ReportRank& r : h->ranks) {
    if (r.by == "-") continue;
    ReportLaunch& l = h->launches[h->launch_index[r.launch]];
    if (r.ended.empty()) open[r.launch] = true;
    l.ended = std::max(l.ended, r.ended);
  }
  for (auto& [id, unended] : open)
    if (unended) h->launches[h->launch_index[id]].ended.clear();
  std::string end;  // the latest line of the group so far, or its last rank's end when known
  for (size_t i = 0; i < h->launches.size(); ++i) {
    ReportLaunch& l = h->launches[i];
    l.ranks = 0;
    // A launch whose first line comes before the group's end ran while the group's ranks were starting or
    // running.
    bool together = i > 0 && l.first <= end;
    l.group = i == 0 ? 0 : h->launches[i - 1].group + (together ? 0 : 1);
    std::string until = std::max(l.last, l.ended);
    end = together ? std::max(end, until) : until;
  }
}

void NoteSequentialSharing(ReportHost* h) {
  // Group by group (ranks come by launch, launches by group): the CPUs of the group before and of this one,
  // two sets whatever the number of groups.
  planner::CpuSet before, now;
  std::string before_names, names;
  bool before_ended = false, ended = true;  // every launch of the group has ended (ReportLaunch::ended)
  size_t group = 0;
  auto compare = [&] {
    if (before_ended) return;  // it had ended before this group started: one after the other, known
    planner::CpuSet both;
    for (int64_t c = before.First(); c >= 0; c = before.Next(c))
      if (now.Has(static_cast<uint32_t>(c))) both.Set(static_cast<uint32_t>(c));
    if (both.Empty()) return;
    h->notes.push_back(
        "launch " + names + " used cpus " + both.ToList() + " after launch " + before_names +
        ": its ranks started after all of the earlier's had, taken as one after the other (not every "
        "rank of the earlier wrote its end line)");
  };
  std::string launch;
  for (const ReportRank& r : h->ranks) {
    const ReportLaunch& l = h->launches[h->launch_index[r.launch]];
    if (l.group != group) {
      compare();
      before = std::move(now), before_names = std::move(names), before_ended = ended;
      now = planner::CpuSet(), names.clear(), ended = true;
      group = l.group;
    }
    if (r.launch != launch)
      names += (names.empty() ? "" : ", ") + r.launch, ended = ended && !l.ended.empty();
    launch = r.launch;
    if (r.by == "-") continue;
    for (int64_t c = r.cpu_set.First(); c >= 0; c = r.cpu_set.Next(c)) now.Set(static_cast<uint32_t>(c));
  }
  compare();
}

}  // namespace numabind::cli
