// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`'s reading and judging of log lines (cli/report.h).

#include <algorithm>
#include <cstdlib>
#include <set>

#include "cli/report.h"
#include "planner/cpu_set.h"

namespace numabind::cli {
namespace {

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

/// A JSON string at s[*i] (the opening quote), unescaped.
bool ParseString(const std::string& s, size_t* i, std::string* out) {
  if (*i >= s.size() || s[*i] != '"') return false;
  for (++*i; *i < s.size(); ++*i) {
    char c = s[*i];
    if (c == '"') {
      ++*i;
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
        AppendUtf8(cp, out);
        break;
      default: *out += e;  // \" \\ \/
    }
  }
  return false;
}

std::string Get(const LogFields& f, const char* key) {
  auto it = f.find(key);
  return it == f.end() || (!it->second.is_string && it->second.text == "null") ? "" : it->second.text;
}

core::CpuSet Set(const std::string& list) {
  core::CpuSet set;
  std::string err;
  if (list.empty() || list == "none" || !core::CpuSet::ParseList(list.c_str(), &set, &err)) return {};
  return set;
}

/// Whether the policy gives each rank a whole domain, which ranks of one domain share by plan.
bool SharesByPlan(const std::string& policy) {
  return policy == "node" || policy == "socket" || policy.rfind("nodes:", 0) == 0;
}

/// A rank, rank count or pid as the line wrote it (decimal digits), or -1.
long Number(const std::string& s) {
  char* end = nullptr;
  long v = s.empty() ? -1 : std::strtol(s.c_str(), &end, 10);
  return end != nullptr && *end == '\0' ? v : -1;
}

void FlagOverlaps(ReportHost* h) {
  for (size_t a = 0; a < h->ranks.size(); ++a) {
    for (size_t b = a + 1; b < h->ranks.size(); ++b) {
      ReportRank& x = h->ranks[a];
      ReportRank& y = h->ranks[b];
      if (x.by == "-" || y.by == "-" || x.inside != y.inside) continue;  // nested ranks share their parent's
      core::CpuSet cx = Set(x.cpus), cy = Set(y.cpus);
      if (!cx.Intersects(cy) || (cx == cy && x.policy == y.policy && SharesByPlan(x.policy))) continue;
      std::string both = cx.Intersect(cy).ToList();
      x.flags.push_back("overlaps rank " + y.rank + " (pid " + y.pid + ") on cpus " + both);
      y.flags.push_back("overlaps rank " + x.rank + " (pid " + x.pid + ") on cpus " + both);
    }
  }
}

/// Ranks 0..nranks-1 of each rank variable (and nesting) with no line on the host.
void FlagMissingRanks(ReportHost* h) {
  std::map<std::string, std::set<long>> seen;
  std::map<std::string, long> count;
  for (const ReportRank& r : h->ranks) {
    std::string group = r.rank_var + (r.inside.empty() ? "" : " inside " + r.inside);
    if (Number(r.rank) >= 0) seen[group].insert(Number(r.rank));
    count[group] = std::max(count[group], Number(r.nranks));
  }
  for (const auto& [group, n] : count) {
    for (long k = 0; k < n; ++k) {
      if (seen[group].count(k) == 0)
        h->flags.push_back("rank " + std::to_string(k) + " of " + std::to_string(n) + " (" + group +
                           ") has no line");
    }
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
    (*out)[key] = v;
    SkipSpace(s, &i);
    if (i >= s.size()) return false;
    if (s[i] == '}') break;
    if (s[i++] != ',') return false;
  }
  ++i;
  SkipSpace(s, &i);
  return i == s.size();
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

void AddLogLine(const LogFields& f, ReportJob* job) {
  std::string host = Get(f, "host"), event = Get(f, "event");
  if (host.empty()) return;
  ++job->lines;
  auto h =
      std::find_if(job->hosts.begin(), job->hosts.end(), [&](const ReportHost& x) { return x.host == host; });
  if (h == job->hosts.end()) h = job->hosts.insert(job->hosts.end(), ReportHost{host, {}, {}, {}});
  bool bound = event == "bound" || event == "rebound";
  if (!bound && event != "unbound" && event != "refused") {
    if (Get(f, "level") == "warn") h->notes.push_back(Get(f, "message"));
    return;
  }
  ReportRank r;
  r.event = event;
  r.pid = Get(f, "pid");
  for (auto& [key, field] :
       std::initializer_list<std::pair<const char*, std::string*>>{{"rank", &r.rank},
                                                                   {"nranks", &r.nranks},
                                                                   {"rank_var", &r.rank_var},
                                                                   {"command", &r.command},
                                                                   {"entry", &r.entry},
                                                                   {"inside", &r.inside},
                                                                   {"message", &r.message},
                                                                   {"policy", &r.policy},
                                                                   {"cpus", &r.cpus},
                                                                   {"nodes", &r.nodes},
                                                                   {"memory", &r.memory},
                                                                   {"device", &r.device},
                                                                   {"device_nodes", &r.device_nodes},
                                                                   {"auto", &r.share},
                                                                   {"launcher_cpus", &r.launcher_cpus}})
    *field = Get(f, key);
  r.replaced = Get(f, "replaced") == "true";
  r.by = !bound ? "-" : r.entry != "start-up" ? "launcher" : r.inside.empty() ? "self" : "inherited";
  // The last line of a pid stands: a forked worker bound again at its exec says "rebound".
  auto same = std::find_if(h->ranks.begin(), h->ranks.end(),
                           [&](const ReportRank& x) { return !r.pid.empty() && x.pid == r.pid; });
  if (same != h->ranks.end())
    *same = r;
  else
    h->ranks.push_back(r);
}

void Judge(ReportJob* job, size_t expected_hosts) {
  std::sort(job->hosts.begin(), job->hosts.end(),
            [](const ReportHost& a, const ReportHost& b) { return a.host < b.host; });
  for (ReportHost& h : job->hosts) {
    std::stable_sort(h.ranks.begin(), h.ranks.end(), [](const ReportRank& a, const ReportRank& b) {
      return std::make_pair(Number(a.rank), Number(a.pid)) < std::make_pair(Number(b.rank), Number(b.pid));
    });
    for (ReportRank& r : h.ranks) {
      if (r.by == "-")
        r.flags.push_back((r.event == "refused" ? "not started: " : "ran unbound: ") + r.message);
      if (r.memory == "unchanged") r.flags.push_back("memory policy not applied (the kernel refused it)");
      if (!r.device_nodes.empty() && !Set(r.nodes).Intersects(Set(r.device_nodes)))
        r.flags.push_back("nodes " + r.nodes + " miss its device's node " + r.device_nodes);
    }
    FlagOverlaps(&h);
    FlagMissingRanks(&h);
    if (h.ranks.empty()) h.flags.push_back("no rank line (are the ranks logged at NUMABIND_LOG=info?)");
  }
  if (expected_hosts > job->hosts.size()) {
    job->flags.push_back(std::to_string(expected_hosts - job->hosts.size()) + " of " +
                         std::to_string(expected_hosts) + " hosts have no log");
  }
}

}  // namespace numabind::cli
