// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report [--json|--draw] [--nodes N] [FILE|DIR|PATTERN...]`: did every rank of a job run where it
// should? Reads the library's JSON log lines of a job (cli/report.h judges them) and prints, per host and
// rank, the plan, whether it was applied and by whom, and the flags. Exit 0 when every rank was bound as
// planned and nothing is flagged, 1 otherwise, 2 for bad usage or a log that cannot be read.

#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "base/env.h"
#include "base/log_path.h"
#include "cli/cli.h"
#include "cli/report.h"
#include "planner/cpu_set.h"

namespace numabind::cli {
namespace {

const OptionSpec kReportOptions[] = {
    {"--json", nullptr, true, "", "print one JSON object: ok, flags, and each host's ranks with their flags"},
    {"--draw", nullptr, true, "", "draw each host's CPUs with a row per rank (a mark on each CPU it has)"},
    {"--nodes", nullptr, false, "N", "the job ran on N hosts: flag the hosts without a log"},
};
constexpr size_t kReportOptionCount = sizeof(kReportOptions) / sizeof(kReportOptions[0]);
/// The most CPUs a --draw row shows one per cell; above, a cell stands for several.
constexpr uint32_t kDrawRowCells = 64;

/// The files an argument names: a directory's regular files, a NUMABIND_LOG_FILE value's (its %h and %p any
/// host and pid, %j this job's, as the library expands them), or the file itself.
bool FindFiles(const std::string& arg, const char* const* env, std::vector<std::string>* files,
               std::string* error) {
  struct stat st;
  if (shim::HasLogPathFields(arg.c_str())) {
    std::string pattern(arg.size() + 4096, '\0');
    shim::LogPathFields any{"*", shim::LogJobId(env), "*"};
    size_t n = shim::ExpandLogPath(arg.c_str(), any, pattern.data(), pattern.size());
    pattern.resize(n);
    glob_t g;
    if (n == 0 || glob(pattern.c_str(), 0, nullptr, &g) != 0) {
      *error = arg + ": no file matches " + pattern;
      return false;
    }
    files->insert(files->end(), g.gl_pathv, g.gl_pathv + g.gl_pathc);
    globfree(&g);
  } else if (stat(arg.c_str(), &st) != 0) {
    *error = arg + ": no such file or directory";
    return false;
  } else if (S_ISDIR(st.st_mode)) {
    DIR* d = opendir(arg.c_str());
    if (d == nullptr) {
      *error = arg + ": cannot be read";
      return false;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      std::string path = arg + "/" + e->d_name;
      if (e->d_name[0] != '.' && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) names.push_back(path);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    files->insert(files->end(), names.begin(), names.end());
  } else {
    files->push_back(arg);
  }
  return true;
}

std::string Joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string Dash(const std::string& s) { return s.empty() ? "-" : s; }

void PrintText(const ReportJob& job, FILE* out) {
  for (const ReportHost& h : job.hosts) {
    fprintf(out, "host %s: %zu rank%s\n", h.host.c_str(), h.ranks.size(), h.ranks.size() == 1 ? "" : "s");
    std::vector<std::vector<std::string>> table = {
        {"  rank", "pid", "planned (policy: cpus / nodes / memory / device)", "applied", "by", "flags"}};
    for (const ReportRank& r : h.ranks) {
      std::string planned = r.by == "-" ? "-"
                                        : Dash(r.policy) + ": " + r.cpus + " / " + r.nodes + " / " +
                                              r.memory + " / " + Dash(r.device);
      std::string applied = r.by == "-" ? r.event : r.memory == "unchanged" ? "cpus only" : "yes";
      table.push_back({"  " + Dash(r.rank) + (r.nranks.empty() ? "" : "/" + r.nranks), Dash(r.pid), planned,
                       applied, r.by == "launcher" ? "launcher (" + r.entry + ")" : r.by,
                       r.flags.empty() ? "ok" : Joined(r.flags, "; ")});
    }
    PrintTable(out, table);
    for (const std::string& f : h.flags) fprintf(out, "  flag: %s\n", f.c_str());
    for (const std::string& n : h.notes) fprintf(out, "  warning: %s\n", n.c_str());
  }
  for (const std::string& f : job.flags) fprintf(out, "flag: %s\n", f.c_str());
}

void PrintDraw(const ReportJob& job, FILE* out) {
  for (const ReportHost& h : job.hosts) {
    core::CpuSet all;
    std::vector<core::CpuSet> sets;
    for (const ReportRank& r : h.ranks) {
      core::CpuSet s;
      std::string e;
      if (r.by != "-") core::CpuSet::ParseList(r.cpus.c_str(), &s, &e);
      sets.push_back(s);
      all.UnionWith(s);
    }
    uint32_t top = 0;
    for (uint32_t c = 0; c < core::CpuSet::kMaxBits; ++c)
      if (all.Has(c)) top = c + 1;
    uint32_t per = (top + kDrawRowCells - 1) / kDrawRowCells;
    if (per == 0) per = 1;
    fprintf(out, "host %s: cpus 0-%u, %u per cell ('#' its cpus, '!' shared with another rank)\n",
            h.host.c_str(), top == 0 ? 0 : top - 1, per);
    for (size_t i = 0; i < h.ranks.size(); ++i) {
      const ReportRank& r = h.ranks[i];
      std::string row;
      for (uint32_t c = 0; c < top; c += per) {
        char mark = '.';
        for (uint32_t k = c; k < c + per && k < top; ++k) {
          if (!sets[i].Has(k)) continue;
          bool shared = false;
          for (size_t j = 0; j < sets.size(); ++j) shared = shared || (j != i && sets[j].Has(k));
          mark = shared ? '!' : mark == '!' ? '!' : '#';
        }
        row += mark;
      }
      std::string flags = r.flags.empty() ? "" : "  <- " + Joined(r.flags, "; ");
      fprintf(out, "  rank %-4s %s%s\n", Dash(r.rank).c_str(), row.c_str(), flags.c_str());
    }
    for (const std::string& f : h.flags) fprintf(out, "  flag: %s\n", f.c_str());
  }
  for (const std::string& f : job.flags) fprintf(out, "flag: %s\n", f.c_str());
}

std::string JsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? "," : "") + JsonString(items[i]);
  return out + "]";
}

std::string JsonOrNull(const std::string& s) { return s.empty() ? "null" : JsonString(s); }

void PrintJson(const ReportJob& job, FILE* out) {
  fprintf(out, "{\"ok\":%s,\"flags\":%s,\"hosts\":[", job.Ok() ? "true" : "false",
          JsonList(job.flags).c_str());
  for (size_t i = 0; i < job.hosts.size(); ++i) {
    const ReportHost& h = job.hosts[i];
    fprintf(out, "%s\n {\"host\":%s,\"flags\":%s,\"warnings\":%s,\"ranks\":[", i > 0 ? "," : "",
            JsonString(h.host).c_str(), JsonList(h.flags).c_str(), JsonList(h.notes).c_str());
    for (size_t k = 0; k < h.ranks.size(); ++k) {
      const ReportRank& r = h.ranks[k];
      fprintf(out,
              "%s\n  {\"rank\":%s,\"nranks\":%s,\"rank_var\":%s,\"pid\":%s,\"command\":%s,\"event\":%s,"
              "\"bound\":%s,\"by\":%s,\"entry\":%s,\"policy\":%s,\"cpus\":%s,\"nodes\":%s,\"memory\":%s,"
              "\"device\":%s,\"device_nodes\":%s,\"message\":%s,\"flags\":%s}",
              k > 0 ? "," : "", r.rank.empty() ? "null" : r.rank.c_str(),
              r.nranks.empty() ? "null" : r.nranks.c_str(), JsonOrNull(r.rank_var).c_str(),
              r.pid.empty() ? "null" : r.pid.c_str(), JsonOrNull(r.command).c_str(),
              JsonString(r.event).c_str(), r.by != "-" ? "true" : "false",
              r.by != "-" ? JsonString(r.by).c_str() : "null", JsonOrNull(r.entry).c_str(),
              JsonOrNull(r.policy).c_str(), JsonOrNull(r.cpus).c_str(), JsonOrNull(r.nodes).c_str(),
              JsonOrNull(r.memory).c_str(), JsonOrNull(r.device).c_str(), JsonOrNull(r.device_nodes).c_str(),
              JsonOrNull(r.message).c_str(), JsonList(r.flags).c_str());
    }
    fprintf(out, "]}");
  }
  fprintf(out, "]}\n");
}

}  // namespace

void PrintReportHelp(FILE* out) {
  fprintf(
      out,
      "Usage: numabind report [--json|--draw] [--nodes N] [FILE|DIR|PATTERN...]\n"
      "\n"
      "Says whether every rank of a job ran where it should, from the library's JSON log\n"
      "(NUMABIND_LOG=info NUMABIND_LOG_FORMAT=json NUMABIND_LOG_FILE=/shared/nb/%%j/%%h.log): the files\n"
      "given, a directory's files, or a NUMABIND_LOG_FILE value (%%j this job's id, %%h and %%p any host\n"
      "and pid); without one, $NUMABIND_LOG_FILE. Per host and rank: the plan, whether it was applied\n"
      "and by whom (launcher, self, inherited: inside a rank numabind bound), and flags: ranks that ran\n"
      "unbound and why, a memory policy not applied, CPUs shared with another rank (but for the ranks\n"
      "of one domain under node, socket and nodes:), nodes away from the rank's device, ranks with no\n"
      "line, hosts with no rank line or (--nodes) no log.\n"
      "\n");
  PrintOptions(out, kReportOptions, kReportOptionCount);
  fprintf(out,
          "\nExit status: 0 when every rank was bound as planned and nothing is flagged, 1 otherwise, 2 for\n"
          "bad usage or a log that cannot be read.\n");
}

int ReportCommand(const Args& args, const char* const* env, FILE* out, FILE* err) {
  ParsedArgs parsed;
  std::string error;
  if (!ParseArgs("report", args, kReportOptions, kReportOptionCount, false, &parsed, &error)) {
    fprintf(err, "%s\n", error.c_str());
    return kExitUsage;
  }
  if (parsed.help) {
    PrintReportHelp(out);
    return 0;
  }
  if (parsed.Has("--json") && parsed.Has("--draw")) {
    fprintf(err, "numabind report: --json and --draw do not go together\n");
    return kExitUsage;
  }
  size_t expected = 0;
  if (const std::string* n = parsed.Value("--nodes")) {
    char* end = nullptr;
    unsigned long v = strtoul(n->c_str(), &end, 10);
    if (n->empty() || *end != '\0' || (*n)[0] < '0' || (*n)[0] > '9' || v == 0 || v > 1000000) {
      fprintf(err, "numabind report: --nodes %s: expected a number of hosts, 1 or more\n", n->c_str());
      return kExitUsage;
    }
    expected = v;
  }
  std::vector<std::string> args_files = parsed.positionals;
  if (args_files.empty()) {
    const char* file = shim::Lookup(env, "NUMABIND_LOG_FILE");
    if (file == nullptr || *file == '\0') {
      fprintf(err,
              "numabind report: no log given and NUMABIND_LOG_FILE is not set (numabind report --help)\n");
      return kExitUsage;
    }
    args_files.push_back(file);
  }
  std::vector<std::string> files;
  for (const std::string& a : args_files) {
    if (!FindFiles(a, env, &files, &error)) {
      fprintf(err, "numabind report: %s\n", error.c_str());
      return kExitUsage;
    }
  }
  ReportJob job;
  for (const std::string& path : files) {
    std::ifstream in(path);
    if (!in) {
      fprintf(err, "numabind report: %s: cannot be read\n", path.c_str());
      return kExitUsage;
    }
    size_t bad = 0;
    for (std::string line; std::getline(in, line);) {
      LogFields fields;
      if (line.empty()) continue;
      if (ParseLogLine(line, &fields))
        AddLogLine(fields, &job);
      else
        ++bad;
    }
    if (bad > 0)
      fprintf(err, "numabind report: %s: %zu lines are not JSON log lines (NUMABIND_LOG_FORMAT=json)\n",
              path.c_str(), bad);
  }
  Judge(&job, expected);
  if (job.lines == 0) job.flags.push_back("no JSON log line in " + Joined(args_files, ", "));
  if (parsed.Has("--json"))
    PrintJson(job, out);
  else if (parsed.Has("--draw"))
    PrintDraw(job, out);
  else
    PrintText(job, out);
  size_t ranks = 0;
  for (const ReportHost& h : job.hosts) ranks += h.ranks.size();
  if (!parsed.Has("--json")) {
    fprintf(out, "%s: %zu host%s, %zu rank%s\n", job.Ok() ? "every rank bound as planned" : "NOT as planned",
            job.hosts.size(), job.hosts.size() == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s");
  }
  return job.Ok() ? 0 : kExitFailure;
}

}  // namespace numabind::cli
