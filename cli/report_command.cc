// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report LOG...`: did every rank of a job run where it
// should? Reads the library's JSON log lines of a job (cli/report.h judges them) and prints, per host and
// rank, the plan, whether it was applied and by whom, and the flags. Exit 0 when every rank was bound as
// planned and nothing is flagged, 1 otherwise, 2 for bad usage or a log that cannot be read.

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <utility>

#include "base/env.h"
#include "base/log_path.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/report.h"
#include "config/site_file.h"
#include "planner/cpu_set.h"

namespace numabind::cli {
namespace {

const OptionSpec kReportOptions[] = {
    {"--json", kNoVar, true, "", "print one JSON object: ok, flags, and each host's ranks with their flags"},
    {"--draw", kNoVar, true, "", "draw each host's CPUs with a row per rank (a mark on each CPU it has)",
     true},
    {"--nodes", kNoVar, false, "N", "the job ran on N hosts: flag the hosts without a log"},
    {"--launch", kNoVar, false, "ID",
     "judge that launch alone: its token, its step (slurm:JOB.STEP) or its PID@START"},
    {"--last", kNoVar, true, "", "judge the last launch on each host alone", true},
    {"--min-local", kNoVar, false, "PCT",
     "flag a rank with less than PCT% of its memory on its planned nodes at its end (default 90)"},
};

const char* const kReportAbout[] = {
    "Says whether every rank of a job ran where it should, from the library's JSON log\n"
    "(NUMABIND_LOG=info NUMABIND_LOG_FORMAT=json NUMABIND_LOG_FILE=/shared/nb/%j/%h.log): the files\n"
    "given, a directory's files, or a NUMABIND_LOG_FILE value (%j this job's id, %h and %p any host\n"
    "and pid); without one, NUMABIND_LOG_FILE from the environment, else from the site file. Per host\n"
    "and rank: the plan, whether it was applied and by whom (launcher, self, inherited: inside a rank\n"
    "numabind bound), and flags: ranks that ran unbound and why, a memory policy not applied, CPUs\n"
    "shared with another rank (but for the ranks of one domain under node, socket and nodes:), nodes\n"
    "away from the rank's device, ranks with no line, a line whose lists are cut (unknown), hosts\n"
    "with no rank line or (--nodes) no log, a site file (or a line of it) the library ignored.\n"
    "Warnings said alike by many processes are shown once with their count. FIFOs, devices and\n"
    "directories among the matches are skipped with a line.",
    "Each launch (an mpirun, a torchrun, a Slurm step: the launch=PID@START or STEP/PID@START on its\n"
    "lines) is judged on its own and shown per host; lines without one are launch \"unknown\". Two\n"
    "launches ran at the same time, and their ranks' CPUs are judged together, when their rank lines\n"
    "interleave or one starts before the other's ranks' end lines (written when a rank exits by\n"
    "itself); launches one after the other may share CPUs. A rank that wrote no end line (ended by a\n"
    "signal, SIGKILL) may still have run when a later launch used its CPUs: \"cannot rule out an\n"
    "overlap\", a flag.",
    nullptr};
/// The most CPUs a --draw row shows one per cell; above, a cell stands for several.
constexpr uint32_t kDrawRowCells = 64;

/// Whether a path is a regular file to read; otherwise says once on `err` that it is skipped. Never opens it
/// (a FIFO's open blocks until a writer comes).
bool Readable(const std::string& path, FILE* err) {
  struct stat st;
  bool known = stat(path.c_str(), &st) == 0;
  if (known && S_ISREG(st.st_mode)) return true;
  const char* what = !known                 ? "cannot be read"
                     : S_ISDIR(st.st_mode)  ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                                            : "not a regular file";
  fprintf(err, "numabind report: %s: %s, skipped\n", Printable(path).c_str(), what);
  return false;
}

/// The files an argument names: a directory's regular files, a NUMABIND_LOG_FILE value's (its %h and %p any
/// host and pid, %j this job's, as the library expands them), or the file itself. Other kinds of file among
/// a pattern's matches or a directory's entries are skipped with one line each on `err`.
bool FindFiles(const std::string& arg, const char* const* env, std::vector<std::string>* files,
               std::string* error, FILE* err) {
  struct stat st;
  if (base::HasLogPathFields(arg.c_str())) {
    std::string pattern(arg.size() + 4096, '\0');
    base::LogPathFields any{"*", base::LogJobId(env), "*"};
    size_t n = base::ExpandLogPath(arg.c_str(), any, pattern.data(), pattern.size());
    pattern.resize(n);
    glob_t g;
    if (n == 0 || glob(pattern.c_str(), 0, nullptr, &g) != 0) {
      *error = arg + ": no file matches " + pattern;
      return false;
    }
    for (size_t i = 0; i < g.gl_pathc; ++i)
      if (Readable(g.gl_pathv[i], err)) files->push_back(g.gl_pathv[i]);
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
      if (e->d_name[0] != '.' && Readable(path, err)) names.push_back(path);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    files->insert(files->end(), names.begin(), names.end());
  } else if (Readable(arg, err)) {
    files->push_back(arg);
  }
  return true;
}

/// Reads one log file's lines into the job. Opened without blocking and checked again once open (the path
/// may have changed since it was listed). False when it cannot be read.
bool ReadLog(const std::string& path, ReportJob* job, FILE* err) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) close(fd);
    return false;
  }
  FILE* in = fdopen(fd, "r");
  if (in == nullptr) {
    close(fd);
    return false;
  }
  size_t bad = 0;
  char* buf = nullptr;
  size_t cap = 0;
  std::string line;
  for (ssize_t n; (n = getline(&buf, &cap, in)) >= 0;) {
    line.assign(buf, static_cast<size_t>(n));
    while (!line.empty() && line.back() == '\n') line.pop_back();
    LogFields fields;
    if (line.empty()) continue;
    if (ParseLogLine(line, &fields))
      AddLogLine(fields, job);
    else
      ++bad;
  }
  free(buf);
  fclose(in);
  if (bad > 0)
    fprintf(err, "numabind report: %s: %zu lines are not JSON log lines (NUMABIND_LOG_FORMAT=json)\n",
            Printable(path).c_str(), bad);
  return true;
}

std::string Joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string Dash(const std::string& s) { return s.empty() ? "-" : s; }

/// "launch ID: N ranks, started TIME" (and its end when later): a launch's heading in text and --draw.
std::string LaunchHeading(const ReportLaunch& l) {
  std::string out = "launch " + l.id + ": " + std::to_string(l.ranks) + " rank" + (l.ranks == 1 ? "" : "s");
  if (!l.first.empty()) out += ", lines " + l.first + (l.last > l.first ? " to " + l.last : "");
  return Printable(out);
}

/// Where a rank's memory was at its end: "98% of 64M", "-" (not bound), "unknown" (no end line, or one
/// that did not measure: NUMABIND_LOCALITY=0, a library before it).
std::string LocalCell(const ReportRank& r) {
  if (r.by == "-") return "-";
  if (!r.where.known) return "unknown";
  char cell[48];
  snprintf(cell, sizeof(cell), "%.0f%% of %lluM%s", r.where.LocalPercent(),
           static_cast<unsigned long long>((r.where.anon_kb + 512) / 1024), r.where.partial ? "+" : "");
  return cell;
}

void PrintText(const ReportJob& job, FILE* out) {
  for (const ReportHost& h : job.hosts) {
    fprintf(out, "host %s: %zu rank%s in %zu launch%s\n", Printable(h.host).c_str(), h.ranks.size(),
            h.ranks.size() == 1 ? "" : "s", h.launches.size(), h.launches.size() == 1 ? "" : "es");
    size_t next = 0;  // the next rank to print: ranks are by launch
    for (const ReportLaunch& l : h.launches) {
      fprintf(out, "  %s\n", LaunchHeading(l).c_str());
      std::vector<std::vector<std::string>> table = {{"  rank", "pid",
                                                      "planned (policy: cpus / nodes / memory / device)",
                                                      "applied", "by", "local", "flags"}};
      for (size_t end = next + l.ranks; next < end; ++next) {
        const ReportRank& r = h.ranks[next];
        std::string planned = r.by == "-" ? "-"
                                          : Dash(r.policy) + ": " + r.cpus + " / " + r.nodes + " / " +
                                                r.memory + " / " + Dash(r.device);
        std::string applied = r.cut                     ? "unknown"
                              : r.by == "-"             ? r.event
                              : r.memory == "unchanged" ? "cpus only"
                                                        : "yes";
        table.push_back({"  " + Dash(r.rank) + (r.nranks.empty() ? "" : "/" + r.nranks), Dash(r.pid), planned,
                         applied, r.by == "launcher" ? "launcher (" + r.entry + ")" : r.by, LocalCell(r),
                         r.flags.empty() ? "ok" : Joined(r.flags, "; ")});
        for (std::string& cell : table.back()) cell = Printable(cell);
      }
      PrintTable(out, table);
    }
    for (const std::string& f : h.flags) fprintf(out, "  flag: %s\n", Printable(f).c_str());
    for (const std::string& n : h.notes) fprintf(out, "  warning: %s\n", Printable(n).c_str());
  }
  for (const std::string& f : job.flags) fprintf(out, "flag: %s\n", Printable(f).c_str());
}

void PrintDraw(const ReportJob& job, FILE* out) {
  for (const ReportHost& h : job.hosts) {
    uint32_t top = 0;
    for (const ReportRank& r : h.ranks)
      if (r.by != "-") top = std::max(top, static_cast<uint32_t>(r.cpu_set.Last() + 1));
    // Ranks on each CPU of one group of launches that ran at the same time (ranks come by launch, launches by
    // group), counted as the group begins and taken back as it ends: linear, where comparing rows was
    // quadratic, and one count per CPU whatever the number of groups.
    std::vector<uint32_t> users(top, 0);
    auto group_of = [&](const ReportRank& r) { return h.launches[h.launch_index.at(r.launch)].group; };
    auto count = [&](size_t from, size_t to, bool add) {
      for (size_t i = from; i < to; ++i) {
        const ReportRank& r = h.ranks[i];
        for (int64_t c = r.by == "-" ? -1 : r.cpu_set.First(); c >= 0; c = r.cpu_set.Next(c))
          users[c] = add ? users[c] + 1 : users[c] - 1;
      }
    };
    size_t group_begin = 0, group_end = 0;  // the ranks of the group being drawn
    uint32_t per = (top + kDrawRowCells - 1) / kDrawRowCells;
    if (per == 0) per = 1;
    fprintf(out,
            "host %s: cpus 0-%u, %u per cell ('#' its cpus, '!' shared with another rank at the same time)\n",
            Printable(h.host).c_str(), top == 0 ? 0 : top - 1, per);
    std::string launch;
    for (size_t i = 0; i < h.ranks.size(); ++i) {
      const ReportRank& r = h.ranks[i];
      if (i == group_end) {
        count(group_begin, group_end, false);
        size_t g = group_of(r);
        for (group_begin = i; group_end < h.ranks.size() && group_of(h.ranks[group_end]) == g;) ++group_end;
        count(group_begin, group_end, true);
      }
      if (r.launch != launch) {
        launch = r.launch;
        fprintf(out, "  %s\n", LaunchHeading(h.launches[h.launch_index.at(launch)]).c_str());
      }
      std::string row;
      for (uint32_t c = 0; c < top; c += per) {
        char mark = '.';
        for (uint32_t k = c; k < c + per && k < top; ++k) {
          if (r.by == "-" || !r.cpu_set.Has(k)) continue;
          mark = users[k] > 1 || mark == '!' ? '!' : '#';
        }
        row += mark;
      }
      std::string flags = r.flags.empty() ? "" : "  <- " + Joined(r.flags, "; ");
      fprintf(out, "  rank %-4s %s%s\n", Printable(Dash(r.rank)).c_str(), row.c_str(),
              Printable(flags).c_str());
    }
    for (const std::string& f : h.flags) fprintf(out, "  flag: %s\n", Printable(f).c_str());
  }
  for (const std::string& f : job.flags) fprintf(out, "flag: %s\n", Printable(f).c_str());
}

void JsonList(base::JsonWriter* j, const std::vector<std::string>& items) {
  j->BeginArray();
  for (const std::string& item : items) j->String(item);
  j->EndArray();
}

/// A rank, rank count or pid as report kept it (digits checked against the library's limits), or null.
void NumberOrNull(base::JsonWriter* j, const std::string& digits) {
  if (digits.empty())
    j->Null();
  else
    j->Int(strtoll(digits.c_str(), nullptr, 10));
}

void PrintJsonRank(base::JsonWriter* j, const ReportRank& r) {
  bool bound = r.by != "-";
  j->Break(2).BeginObject().Key("rank");
  NumberOrNull(j, r.rank);
  j->Key("nranks");
  NumberOrNull(j, r.nranks);
  j->Key("rank_var");
  StringOrNull(j, r.rank_var);
  j->Key("pid");
  NumberOrNull(j, r.pid);
  j->Key("launch").String(r.launch).Key("cut").Bool(r.cut).Key("command");
  StringOrNull(j, r.command);
  j->Key("event").String(r.event).Key("bound").Bool(bound).Key("by");
  StringOrNull(j, bound ? r.by : "");
  using Field = std::pair<const char*, const std::string*>;
  for (const auto& [key, value] : std::initializer_list<Field>{{"entry", &r.entry},
                                                               {"policy", &r.policy},
                                                               {"cpus", &r.cpus},
                                                               {"nodes", &r.nodes},
                                                               {"memory", &r.memory},
                                                               {"device", &r.device},
                                                               {"device_nodes", &r.device_nodes},
                                                               {"message", &r.message}}) {
    j->Key(key);
    StringOrNull(j, *value);
  }
  j->Key("locality");
  if (!r.where.known) {
    j->Null();
  } else {
    const ReportLocality& w = r.where;
    j->BeginObject().Key("anon_kb").Uint(w.anon_kb).Key("local_kb").Uint(w.local_kb).Key("local_percent");
    j->Int(static_cast<int64_t>(w.LocalPercent()));
    j->Key("planned_nodes").String(w.planned_nodes).Key("by_node").String(w.by_node).Key("threads");
    j->Uint(w.threads).Key("outside").Uint(w.outside).Key("outside_threads");
    StringOrNull(j, w.outside_threads);
    j->Key("partial").Bool(w.partial).EndObject();
  }
  j->Key("flags");
  JsonList(j, r.flags);
  j->EndObject();
}

void PrintJson(const ReportJob& job, FILE* out) {
  JsonFile file(out);
  base::JsonWriter& j = file.json();
  j.BeginObject().Key("ok").Bool(job.Ok()).Key("flags");
  JsonList(&j, job.flags);
  j.Key("hosts").BeginArray();
  for (const ReportHost& h : job.hosts) {
    j.Break(1).BeginObject().Key("host").String(h.host).Key("flags");
    JsonList(&j, h.flags);
    j.Key("warnings");
    JsonList(&j, h.notes);
    j.Key("launches").BeginArray();
    for (const ReportLaunch& l : h.launches) {
      j.BeginObject().Key("launch").String(l.id).Key("ranks").Uint(l.ranks).Key("first");
      StringOrNull(&j, l.first);
      j.Key("last");
      StringOrNull(&j, l.last);
      j.Key("group").Uint(l.group).EndObject();
    }
    j.EndArray().Key("ranks").BeginArray();
    for (const ReportRank& r : h.ranks) PrintJsonRank(&j, r);
    j.EndArray().EndObject();
  }
  j.EndArray().EndObject().Finish();
}

}  // namespace

const HelpText kReportHelp = {
    kReportAbout,
    "0 when every rank was bound as planned and nothing is flagged, 1 otherwise, 2 for\n"
    "bad usage or a log that cannot be read."};

OptionList ReportOptions() { return {kReportOptions, sizeof(kReportOptions) / sizeof(kReportOptions[0])}; }

namespace {

/// --nodes, --launch and --last, checked: kExitUsage (said on err) when one is bad, else -1.
int ReadSelection(const ParsedArgs& parsed, FILE* err, size_t* expected, LaunchChoice* choice,
                  double* min_local) {
  if (const std::string* n = parsed.Value("--nodes")) {
    char* end = nullptr;
    unsigned long v = strtoul(n->c_str(), &end, 10);
    if (n->empty() || *end != '\0' || (*n)[0] < '0' || (*n)[0] > '9' || v == 0 || v > 1000000) {
      fprintf(err, "numabind report: --nodes %s: expected a number of hosts, 1 or more\n", n->c_str());
      return kExitUsage;
    }
    *expected = v;
  }
  if (const std::string* id = parsed.Value("--launch")) choice->id = *id;
  choice->last = parsed.Has("--last");  // not with --launch: they are alternatives (kReportOptions)
  if (const std::string* m = parsed.Value("--min-local")) {
    char* end = nullptr;
    double v = strtod(m->c_str(), &end);
    if (m->empty() || *end != '\0' || !(v >= 0 && v <= 100)) {
      fprintf(err,
              "numabind report: --min-local %s: expected a percentage from 0 to 100, such as 90; using 90\n",
              m->c_str());
    } else {
      *min_local = v;
    }
  }
  if (parsed.Value("--launch") != nullptr && choice->id.empty()) {
    fprintf(err, "numabind report: --launch: expected a launch (as report shows it)\n");
    return kExitUsage;
  }
  return -1;
}

/// The logs named (*named: the arguments, else NUMABIND_LOG_FILE as the library takes it: the
/// environment's, else the site file's) and read into *job: kExitUsage (said on err) when none is named or
/// one cannot be read, else -1.
int ReadLogs(const ParsedArgs& parsed, const char* const* env, FILE* err, std::vector<std::string>* named,
             ReportJob* job) {
  *named = parsed.positionals;
  if (named->empty()) {
    const char* file = config::EnvSets(env, config::kVarLogFile)
                           ? base::Lookup(env, "NUMABIND_LOG_FILE")
                           : config::SiteValue(SiteDefaults(env, err), config::kVarLogFile, nullptr);
    if (file == nullptr || *file == '\0') {
      fprintf(err,
              "numabind report: no log given and NUMABIND_LOG_FILE is not set in the environment or the site "
              "file (numabind report --help)\n");
      return kExitUsage;
    }
    named->push_back(file);
  }
  std::vector<std::string> files;
  std::string error;
  for (const std::string& a : *named) {
    if (!FindFiles(a, env, &files, &error, err)) {
      fprintf(err, "numabind report: %s\n", error.c_str());
      return kExitUsage;
    }
  }
  for (const std::string& path : files) {
    if (!ReadLog(path, job, err)) {
      fprintf(err, "numabind report: %s: cannot be read\n", Printable(path).c_str());
      return kExitUsage;
    }
  }
  return -1;
}

}  // namespace

int ReportMain(const Invocation& call) {
  const char* const* env = call.env;
  FILE* out = call.out;
  FILE* err = call.err;
  ParsedArgs parsed;
  int status = StartCommand(call, &parsed);
  size_t expected = 0;
  LaunchChoice choice;
  ReportJob job;
  if (status < 0) status = ReadSelection(parsed, err, &expected, &choice, &job.min_local);
  std::vector<std::string> named;
  if (status < 0) status = ReadLogs(parsed, env, err, &named, &job);
  if (status >= 0) return status;
  Judge(&job, expected, choice);
  if (job.lines == 0) {
    job.flags.push_back("no JSON log line in " + Joined(named, ", ") +
                        " (the ranks log their binding with NUMABIND_LOG=info NUMABIND_LOG_FORMAT=json and "
                        "NUMABIND_LOG_FILE set)");
  }
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
