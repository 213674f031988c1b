// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`'s reading and judging of log lines (cli/report.h).

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>
#include <utility>

#include "base/text.h"
#include "cli/report.h"
#include "config/limits.h"

namespace numabind::cli {
namespace {

using config::LogKey;

/// The longest CPU or node list text read (a 4,096-CPU machine's worst list is under 20 KB).
constexpr size_t kMaxListText = 1 << 16;
/// The largest pid Linux gives (PID_MAX_LIMIT on 64-bit).
constexpr long kMaxPid = 1L << 22;

void SkipSpace(const std::string& s, size_t* i) {
  while (*i < s.size() && (s[*i] == ' ' || s[*i] == '\t' || s[*i] == '\r' || s[*i] == '\n')) ++*i;
}

void AppendUtf8(unsigned cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xc0 | cp >> 6), *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xe0 | cp >> 12), *out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | cp >> 18), *out += static_cast<char>(0x80 | (cp >> 12 & 0x3f));
    *out += static_cast<char>(0x80 | (cp >> 6 & 0x3f)), *out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

bool Hex4(const std::string& s, size_t at, unsigned* out) {
  if (at + 4 > s.size()) return false;
  *out = 0;
  for (size_t k = at; k < at + 4; ++k) {
    char c = s[k];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return false;
    *out = *out * 16 + static_cast<unsigned>(d);
  }
  return true;
}

/// The text with each byte that is not part of valid UTF-8 replaced by U+FFFD, so that what report prints
/// (JSON or text) is valid UTF-8 whatever a log holds.
std::string ValidUtf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t used;
    size_t n = base::Utf8Sequence(reinterpret_cast<const unsigned char*>(s.data()) + i, s.size() - i, &used);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

/// A JSON string at s[*i] (the opening quote), unescaped (a lone surrogate becomes U+FFFD).
bool ParseString(const std::string& s, size_t* i, std::string* out) {
  if (*i >= s.size() || s[*i] != '"') return false;
  for (++*i; *i < s.size(); ++*i) {
    char c = s[*i];
    if (c == '"') {
      ++*i;
      *out = ValidUtf8(*out);
      return true;
    }
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (++*i >= s.size()) return false;
    char e = s[*i];
    unsigned cp = 0, lo = 0;
    switch (e) {
      case 'n': *out += '\n'; break;
      case 't': *out += '\t'; break;
      case 'r': *out += '\r'; break;
      case 'b': *out += '\b'; break;
      case 'f': *out += '\f'; break;
      case 'u':
        if (!Hex4(s, *i + 1, &cp)) return false;
        *i += 4;
        if (cp >= 0xd800 && cp < 0xdc00 && s.compare(*i + 1, 2, "\\u") == 0 && Hex4(s, *i + 3, &lo) &&
            lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          *i += 6;
        }
        AppendUtf8(cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp, out);
        break;
      default: *out += e;  // \" \\ \/
    }
  }
  return false;
}

/// A member's text, "" when the line does not have it or it is null.
std::string Get(const LogFields& f, LogKey key) {
  const LogValue& v = f[key];
  return !v.present || (!v.is_string && v.text == "null") ? "" : v.text;
}

/// A CPU or node list as a line gives it, checked against the library's largest id: false when it is not
/// one (a cut line's list, or ids no machine of the library's has).
bool ParseIds(const std::string& list, uint32_t max_id, planner::CpuSet* out) {
  std::string err;
  *out = planner::CpuSet();
  if (list.empty() || list == "none") return true;
  if (list.size() > kMaxListText || !planner::CpuSet::ParseList(list.c_str(), out, &err) ||
      out->Last() > max_id) {
    *out = planner::CpuSet();
    return false;
  }
  return true;
}

planner::CpuSet Set(const std::string& list) {
  planner::CpuSet set;
  ParseIds(list, config::kMaxCpuId, &set);
  return set;
}

/// A rank, rank count or pid as the line wrote it (decimal digits, at most `max`), or -1.
long Number(const std::string& s, long max = config::kMaxRanks) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  long v = std::strtol(s.c_str(), nullptr, 10);
  return v <= max ? v : -1;
}

/// Ranks of one nesting whose CPUs meet another rank's, but for the ranks with the same CPUs under one
/// policy that shares a domain by plan. Linear in the CPUs the ranks list: a count of ranks per CPU, and per
/// CPU the first two ranks of different sharing classes, name one other rank for each overlapping rank.
void FlagOverlapsOf(ReportHost* h, const std::vector<size_t>& members) {
  std::map<std::pair<std::string, std::string>, size_t> classes;  // (policy, cpus) of sharing ranks
  std::vector<size_t> cls(members.size()), class_size;
  uint32_t top = 0;
  for (size_t k = 0; k < members.size(); ++k) {
    const ReportRank& r = h->ranks[members[k]];
    size_t id = class_size.size();
    if (SharesByPlan(r.policy)) id = classes.emplace(std::make_pair(r.policy, r.cpus), id).first->second;
    if (id == class_size.size()) class_size.push_back(0);
    cls[k] = id;
    ++class_size[id];
    top = std::max(top, static_cast<uint32_t>(r.cpu_set.Last() + 1));
  }
  constexpr size_t kNone = SIZE_MAX;
  std::vector<uint32_t> users(top, 0);
  std::vector<size_t> first(top, kNone), other(top, kNone);  // indices into members
  for (size_t k = 0; k < members.size(); ++k) {
    const planner::CpuSet& s = h->ranks[members[k]].cpu_set;
    for (int64_t c = s.First(); c >= 0; c = s.Next(c)) {
      ++users[c];
      if (first[c] == kNone)
        first[c] = k;
      else if (other[c] == kNone && cls[first[c]] != cls[k])
        other[c] = k;
    }
  }
  for (size_t k = 0; k < members.size(); ++k) {
    ReportRank& x = h->ranks[members[k]];
    planner::CpuSet both;
    size_t partner = kNone;
    bool more = false;
    for (int64_t c = x.cpu_set.First(); c >= 0; c = x.cpu_set.Next(c)) {
      if (users[c] <= class_size[cls[k]]) continue;
      both.Set(static_cast<uint32_t>(c));
      more = more || users[c] > class_size[cls[k]] + 1;
      if (partner != kNone) continue;
      // users[c] counts a rank outside x's class: the first user is one, or else `other` is.
      partner = cls[first[c]] != cls[k] ? first[c] : other[c];
    }
    if (both.Empty() || partner == kNone) continue;
    const ReportRank& y = h->ranks[members[partner]];
    std::string of = y.launch == x.launch ? "" : ", launch " + y.launch + ", at the same time";
    x.flags.push_back("overlaps rank " + y.rank + " (pid " + y.pid + of + ")" + (more ? " and others" : "") +
                      " on cpus " + both.ToList());
  }
}

/// Overlaps among the ranks of each group of launches that ran at the same time (OrderLaunches set the
/// groups), nesting by nesting.
void FlagOverlaps(ReportHost* h) {
  std::map<std::pair<size_t, std::string>, std::vector<size_t>> nests;  // nested ranks share their parent's
  for (size_t i = 0; i < h->ranks.size(); ++i) {
    const ReportRank& r = h->ranks[i];
    if (r.by == "-" || r.cpu_set.Empty()) continue;
    nests[{h->launches[h->launch_index[r.launch]].group, r.inside}].push_back(i);
  }
  for (const auto& [key, members] : nests) FlagOverlapsOf(h, members);
}

std::string RankRange(long first, long last, long n, const std::string& group) {
  std::string of = " of " + std::to_string(n) + " (" + group + ")";
  if (first == last) return "rank " + std::to_string(first) + of + " has no line";
  return "ranks " + std::to_string(first) + "-" + std::to_string(last) + of + " have no line";
}

/// Ranks 0..nranks-1 of each rank variable (and nesting) with no line on the host, as ranges: the work and
/// the flags grow with the lines, not with the counts they claim.
void FlagMissingRanks(ReportHost* h) {
  std::map<std::string, std::set<long>> seen;
  std::map<std::string, long> count;
  for (const ReportRank& r : h->ranks) {
    std::string group = r.rank_var + (r.inside.empty() ? "" : " inside " + r.inside) +
                        (r.launch == "unknown" ? "" : ", launch " + r.launch);
    if (Number(r.rank) >= 0) seen[group].insert(Number(r.rank));
    long& n = count[group];
    n = std::max(n, Number(r.nranks));
  }
  for (const auto& [group, n] : count) {
    long next = 0;  // the lowest rank not yet accounted for
    for (long k : seen[group]) {
      if (k >= n) break;
      if (k > next) h->flags.push_back(RankRange(next, k - 1, n, group));
      next = k + 1;
    }
    if (next < n) h->flags.push_back(RankRange(next, n - 1, n, group));
  }
}

}  // namespace

bool ParseLogLine(const std::string& s, LogFields* out) {
  size_t i = 0;
  SkipSpace(s, &i);
  if (i >= s.size() || s[i++] != '{') return false;
  SkipSpace(s, &i);
  if (i < s.size() && s[i] == '}') return true;
  for (;;) {
    std::string key;
    SkipSpace(s, &i);
    if (!ParseString(s, &i, &key)) return false;
    SkipSpace(s, &i);
    if (i >= s.size() || s[i++] != ':') return false;
    SkipSpace(s, &i);
    LogValue v;
    if (i < s.size() && s[i] == '"') {
      v.is_string = true;
      if (!ParseString(s, &i, &v.text)) return false;
    } else {
      size_t start = i;
      while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ' ') ++i;
      v.text = s.substr(start, i - start);
      bool number = !v.text.empty() && v.text.find_first_not_of("-0123456789.eE+") == std::string::npos;
      if (!number && v.text != "true" && v.text != "false" && v.text != "null") return false;
    }
    LogKey known;
    if (config::FindLogKey(key.data(), key.size(), &known)) {
      v.present = true;
      out->values[static_cast<size_t>(known)] = std::move(v);
    } else {
      out->unknown.push_back(std::move(key));
    }
    SkipSpace(s, &i);
    if (i >= s.size()) return false;
    if (s[i] == '}') break;
    if (s[i++] != ',') return false;
  }
  ++i;
  SkipSpace(s, &i);
  return i == s.size();
}

bool SharesByPlan(const std::string& policy) {
  return policy == "node" || policy == "socket" || policy.rfind("nodes:", 0) == 0;
}

bool ReportJob::Ok() const {
  if (!flags.empty()) return false;
  for (const ReportHost& h : hosts) {
    if (!h.flags.empty()) return false;
    for (const ReportRank& r : h.ranks)
      if (!r.flags.empty()) return false;
  }
  return true;
}

namespace {

/// The launch a line names, "unknown" for a line of a library before launches had names.
std::string LaunchOf(const LogFields& f) {
  std::string launch = Get(f, LogKey::kLaunch);
  return launch.empty() ? "unknown" : launch;
}

/// The bound rank's line a later line of the same launch and pid is about ("end", "released"), or nullptr.
ReportRank* RankOfLine(const LogFields& f, ReportHost* h) {
  auto it = h->pid_index.find(LaunchOf(f) + "\n" + Get(f, LogKey::kPid));
  return it == h->pid_index.end() || h->ranks[it->second].by == "-" ? nullptr : &h->ranks[it->second];
}

/// A rank's line read: its fields, its launch and how it was bound, each number and list checked against
/// the library's limits before use (a field out of them is dropped, null in --json, and flags the rank,
/// whose line the library did not write as it stands).
ReportRank RankOf(const LogFields& f, const std::string& event, bool bound) {
  ReportRank r;
  r.event = event;
  r.pid = Get(f, LogKey::kPid);
  for (auto& [key, field] :
       std::initializer_list<std::pair<LogKey, std::string*>>{{LogKey::kRank, &r.rank},
                                                              {LogKey::kNranks, &r.nranks},
                                                              {LogKey::kRankVar, &r.rank_var},
                                                              {LogKey::kCommand, &r.command},
                                                              {LogKey::kEntry, &r.entry},
                                                              {LogKey::kInside, &r.inside},
                                                              {LogKey::kMessage, &r.message},
                                                              {LogKey::kPolicy, &r.policy},
                                                              {LogKey::kCpus, &r.cpus},
                                                              {LogKey::kNodes, &r.nodes},
                                                              {LogKey::kMemory, &r.memory},
                                                              {LogKey::kDevice, &r.device},
                                                              {LogKey::kDeviceNodes, &r.device_nodes},
                                                              {LogKey::kAuto, &r.share},
                                                              {LogKey::kLauncherCpus, &r.launcher_cpus}})
    *field = Get(f, key);
  r.replaced = Get(f, LogKey::kReplaced) == "true";
  r.launch = LaunchOf(f);
  r.time = Get(f, LogKey::kTime);
  r.cut = Get(f, LogKey::kTruncated) == "true";
  r.by = !bound ? "-" : r.entry != "start-up" ? "launcher" : r.inside.empty() ? "self" : "inherited";
  for (auto& [key, field, max] : std::initializer_list<std::tuple<LogKey, std::string*, long>>{
           {LogKey::kRank, &r.rank, config::kMaxRanks - 1L},
           {LogKey::kNranks, &r.nranks, config::kMaxRanks},
           {LogKey::kPid, &r.pid, kMaxPid}}) {
    if (field->empty() || Number(*field, max) >= 0) continue;
    r.flags.push_back(std::string("its line's ") + config::LogKeyName(key) + " is not a number up to " +
                      std::to_string(max));
    field->clear();
  }
  if (r.cut) {
    // The library leaves out a list that does not fit whole: what the line has is not the rank's binding.
    r.flags.push_back(
        "unknown: its log line was cut short (\"truncated\":true), its CPUs and nodes are not "
        "known");
    r.cpu_set = planner::CpuSet(), r.node_set = planner::CpuSet();
  } else if (!ParseIds(r.cpus, config::kMaxCpuId, &r.cpu_set) ||
             !ParseIds(r.nodes, config::kMaxNodeId, &r.node_set)) {
    r.flags.push_back("its CPU or node list is unknown (not a list of ids: a cut line?)");
  }
  return r;
}

}  // namespace

void AddLogLine(const LogFields& f, ReportJob* job) {
  std::string host = Get(f, LogKey::kHost), event = Get(f, LogKey::kEvent);
  if (host.empty()) return;
  ++job->lines;
  auto [at, added] = job->host_index.emplace(host, job->hosts.size());
  if (added) job->hosts.emplace_back().host = host;
  ReportHost* h = &job->hosts[at->second];
  bool bound = event == "bound" || event == "rebound";
  if (event == "end" || event == "released") {
    // A bound rank's exit; or a fork child that took a rank at fork (NUMABIND_FORKS) and then execs, which
    // gives it back: its bound line no longer holds (a line the same pid writes after stands again).
    if (ReportRank* r = RankOfLine(f, h)) {
      if (event == "end") {
        ReportEnd end = EndOf(f);
        r->ended = end.time, r->where = end.where;
      } else {
        r->event = event;
      }
    } else if (event == "end") {
      h->early_ends[LaunchOf(f) + "\n" + Get(f, LogKey::kPid)] = EndOf(f);
    }
    return;
  }
  if (event == "site_file") {
    bool file = Get(f, LogKey::kIgnored) == "file";
    h->site_ignored.Add(std::string(file ? "site file ignored: " : "site file line ignored: ") +
                        Get(f, LogKey::kMessage));
    return;
  }
  if (!bound && event != "unbound" && event != "refused") {
    if (Get(f, LogKey::kLevel) == "warn") h->warned.Add(Get(f, LogKey::kMessage));
    return;
  }
  ReportRank r = RankOf(f, event, bound);
  auto [known, first] = h->launch_index.emplace(r.launch, h->launches.size());
  if (first) h->launches.push_back(ReportLaunch{r.launch, r.time, r.time, "", 0, 0});
  ReportLaunch& launch = h->launches[known->second];
  if (!r.time.empty() && (launch.first.empty() || r.time < launch.first)) launch.first = r.time;
  if (r.time > launch.last) launch.last = r.time;
  // The last line of a pid in its launch stands: a forked worker bound again at its exec says "rebound".
  // Lines of ranks not bound carry the pid of the process that tried (a posix_spawn launcher's own): the
  // rank tells them apart.
  std::string key = r.launch + "\n" + r.pid + (bound ? "" : "\n" + r.rank);
  if (auto early = h->early_ends.find(key); bound && early != h->early_ends.end()) {
    r.ended = early->second.time, r.where = early->second.where;
    h->early_ends.erase(early);
  }
  auto [same, fresh] = h->pid_index.emplace(key, h->ranks.size());
  if (r.pid.empty() || fresh)
    h->ranks.push_back(std::move(r));
  else
    h->ranks[same->second] = std::move(r);
}

void Judge(ReportJob* job, size_t expected_hosts, const LaunchChoice& choice) {
  if (!SelectLaunches(choice, job))
    job->flags.push_back("no rank line of launch " + choice.id + " on any host");
  job->host_index.clear();
  std::sort(job->hosts.begin(), job->hosts.end(),
            [](const ReportHost& a, const ReportHost& b) { return a.host < b.host; });
  for (ReportHost& h : job->hosts) {
    h.ranks.erase(std::remove_if(h.ranks.begin(), h.ranks.end(),
                                 [](const ReportRank& r) { return r.event == "released"; }),
                  h.ranks.end());
    OrderLaunches(&h);
    // Sorted by keys read once, and each rank moved once (a rank is a few hundred bytes).
    std::vector<std::tuple<size_t, long, long, size_t>> order(h.ranks.size());
    for (size_t i = 0; i < h.ranks.size(); ++i) {
      const ReportRank& r = h.ranks[i];
      size_t launch = h.launch_index[r.launch];
      ++h.launches[launch].ranks;
      order[i] = {launch, Number(r.rank), Number(r.pid, kMaxPid), i};
    }
    std::sort(order.begin(), order.end());
    // In place, cycle by cycle (a second vector of ranks would double the peak): place i takes rank from[i].
    std::vector<size_t> from(order.size());
    for (size_t i = 0; i < order.size(); ++i) from[i] = std::get<3>(order[i]);
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i] == i) continue;
      ReportRank first = std::move(h.ranks[i]);
      size_t j = i;
      for (; from[j] != i; j = std::exchange(from[j], j)) h.ranks[j] = std::move(h.ranks[from[j]]);
      h.ranks[j] = std::move(first);
      from[j] = j;
    }
    h.pid_index.clear();
    for (ReportRank& r : h.ranks) {
      if (r.by == "-")
        r.flags.push_back((r.event == "refused" ? "not started: " : "ran unbound: ") + r.message);
      if (r.memory == "unchanged") r.flags.push_back("memory policy not applied (the kernel refused it)");
      FlagLocality(job->min_local, &r);
      if (!r.device_nodes.empty() && !r.cut && !r.node_set.Intersects(Set(r.device_nodes)))
        r.flags.push_back("nodes " + r.nodes + " miss its device's node " + r.device_nodes);
    }
    FlagOverlaps(&h);
    FlagMissingRanks(&h);
    FlagUnknownEnds(&h);
    for (std::string& f : h.site_ignored.Folded()) h.flags.push_back(std::move(f));
    h.notes = h.warned.Folded();
    if (h.ranks.empty()) h.flags.push_back("no rank line (are the ranks logged at NUMABIND_LOG=info?)");
  }
  if (expected_hosts > job->hosts.size()) {
    job->flags.push_back(std::to_string(expected_hosts - job->hosts.size()) + " of " +
                         std::to_string(expected_hosts) + " hosts have no log");
  }
}

}  // namespace numabind::cli
