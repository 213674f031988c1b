// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`'s launches (cli/report.h): a job script may launch several times (two `mpirun`, two
// `srun` steps), each launch judged on its own. A launch on a host is the ranks whose lines carry the same
// token (shim/launcher/launch_id.h). Which launches ran at the same time is read from the lines' times: a
// rank line is written when the rank starts, and an "end" line when it exits by itself (exit, main's
// return, _exit, _Exit; with a JSON log file), none when a signal ends it. A launch that starts before an
// earlier one's last rank line or last end line ran with it. One that starts later followed it, but for
// the earlier's ranks whose end is unknown: a later rank on their CPUs may have run beside them, which the
// verdict cannot rule out.

#include <algorithm>
#include <cstdint>
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
  // A launch ran at least until the last end line of its ranks (those whose end is unknown: FlagUnknownEnds).
  for (const ReportRank& r : h->ranks) {
    ReportLaunch& l = h->launches[h->launch_index[r.launch]];
    if (r.by != "-") l.ended = std::max(l.ended, r.ended);
  }
  std::string end;  // the latest line or end line of the group so far
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

void FlagUnknownEnds(ReportHost* h) {
  // Group by group (ranks come by launch, launches by group), per CPU the first bound rank of an earlier
  // group whose end is unknown, and the first after it that does not share that one's domain by plan (so
  // that a rank sharing the first's finds the other): linear in the CPUs the ranks list.
  constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> first, other;
  auto sharing = [&](size_t a, size_t b) {
    const ReportRank &x = h->ranks[a], &y = h->ranks[b];
    return SharesByPlan(x.policy) && x.policy == y.policy && x.cpus == y.cpus;
  };
  auto group_of = [&](size_t i) { return h->launches[h->launch_index[h->ranks[i].launch]].group; };
  auto judged = [&](const ReportRank& r) { return r.by != "-" && !r.cpu_set.Empty(); };
  for (size_t begin = 0, end = 0; begin < h->ranks.size(); begin = end) {
    while (end < h->ranks.size() && group_of(end) == group_of(begin)) ++end;
    for (size_t i = begin; i < end; ++i) {
      ReportRank& y = h->ranks[i];
      if (!judged(y)) continue;
      planner::CpuSet both;
      size_t partner = kNone;
      bool more = false;
      for (int64_t c = y.cpu_set.First(); c >= 0 && static_cast<size_t>(c) < first.size();
           c = y.cpu_set.Next(c)) {
        size_t x = first[c] == kNone || !sharing(first[c], i) ? first[c] : other[c];
        if (x == kNone) continue;
        both.Set(static_cast<uint32_t>(c));
        more = more || (partner != kNone && partner != x);
        if (partner == kNone) partner = x;
      }
      if (partner == kNone) continue;
      const ReportRank& x = h->ranks[partner];
      y.flags.push_back("cannot rule out an overlap with rank " + x.rank + " (pid " + x.pid + ", launch " +
                        x.launch + ")" + (more ? " and others" : "") + " on cpus " + both.ToList() +
                        ": its end is unknown (no end line) and this rank started after it");
    }
    for (size_t i = begin; i < end; ++i) {
      const ReportRank& x = h->ranks[i];
      if (!judged(x) || !x.ended.empty()) continue;
      if (first.size() <= static_cast<size_t>(x.cpu_set.Last())) {
        first.resize(x.cpu_set.Last() + 1, kNone);
        other.resize(x.cpu_set.Last() + 1, kNone);
      }
      for (int64_t c = x.cpu_set.First(); c >= 0; c = x.cpu_set.Next(c)) {
        if (first[c] == kNone)
          first[c] = i;
        else if (other[c] == kNone && !sharing(first[c], i))
          other[c] = i;
      }
    }
  }
}

}  // namespace numabind::cli
