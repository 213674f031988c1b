// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind ps`: the processes numabind bound on this machine, as
// hwloc-ps lists bound processes: pid, rank and launcher, CPUs, nodes, memory policy and command (cli/ps.h).
// Every field is printed through cli/printable.h: what /proc shows of a process is whatever its user chose.

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <map>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/draw.h"
#include "cli/ps.h"

namespace numabind::cli {
namespace {

const OptionSpec kPsOptions[] = {
    {"--json", kNoVar, true, "", "print a JSON array, one object per process"},
    {"--draw", kNoVar, true, "",
     "draw this machine with a mark per process on its CPUs, and a legend of their ranks", true},
    {"--user", kNoVar, false, "NAME|UID", "only this user's processes (default: every user's)"},
    {"--all", kNoVar, true, "", "list the processes numabind did not bind too (rank -)"},
};

const char* const kPsAbout[] = {
    "Lists the processes of this machine that numabind bound, as hwloc-ps does: pid, user, rank, the\n"
    "launcher that started it (its command, ? when gone), CPUs (Cpus_allowed_list), nodes (its memory\n"
    "policy's, else its CPUs'), memory policy in plan's words (local, preferred, bind, interleave),\n"
    "the share of its memory on those nodes and command (a Python rank by its script). A rank is\n"
    "known by the NUMABIND_BOUND its launcher or numabind bind gave it (/proc/PID/environ); bound at\n"
    "start-up, by the library in its maps and its rank variable; found by order (NUMABIND_MATCH,\n"
    "NUMABIND_FORKS, fork children included), by its tree's counter in the shared directory. Each\n"
    "process's site file is the one it read, but ps never opens a file another user's process names.\n"
    "A process whose environment cannot be read (another user's, for a user but root), or that left\n"
    "numabind to such a file, is listed when its CPUs are fewer than the machine's, its rank unknown\n"
    "(?). Processes that end while ps reads them are left out. With none, one line says so.",
    nullptr};

/// The uid of a user name or number, or -1.
long UidOf(const std::string& user) {
  if (struct passwd* pw = getpwnam(user.c_str())) return static_cast<long>(pw->pw_uid);
  char* end = nullptr;
  errno = 0;
  long uid = strtol(user.c_str(), &end, 10);
  bool number = !user.empty() && user[0] >= '0' && user[0] <= '9' && *end == '\0' && errno == 0;
  return number && uid <= 0xfffffffeL ? uid : -1;
}

/// A user's name, or the uid when it has none; looked up once per uid.
std::string UserName(long uid, std::map<long, std::string>* cache) {
  auto it = cache->find(uid);
  if (it != cache->end()) return it->second;
  struct passwd* pw = getpwuid(static_cast<uid_t>(uid));
  return (*cache)[uid] = pw != nullptr ? pw->pw_name : std::to_string(uid);
}

/// The rank column: the rank, "?" when unknown, "-" when none.
std::string RankText(const PsProcess& p) {
  if (p.bound == PsBound::kNumabind) return p.rank.empty() ? "?" : p.rank;
  return p.bound == PsBound::kUnknown ? "?" : "-";
}

std::string LauncherText(const PsProcess& p) {
  if (p.bound == PsBound::kNumabind) return p.launcher.empty() ? "?" : p.launcher;
  return p.bound == PsBound::kUnknown ? std::string("unknown (") + p.why + ")" : "-";
}

void PrintJson(FILE* out, const std::vector<PsProcess>& found) {
  JsonFile file(out);
  base::JsonWriter& j = file.json();
  j.BeginArray();
  for (const PsProcess& p : found) {
    const char* bound = p.bound == PsBound::kNumabind  ? "numabind"
                        : p.bound == PsBound::kUnknown ? "unknown"
                                                       : "no";
    j.Break(2).BeginObject().Key("pid").Int(p.pid).Key("user").String(p.user).Key("uid").Int(p.uid);
    j.Key("bound").String(bound).Key("rank");
    bool number =
        !p.rank.empty() && p.rank.find_first_not_of("0123456789") == std::string::npos && p.rank.size() < 10;
    if (number)
      j.Int(strtol(p.rank.c_str(), nullptr, 10));
    else
      StringOrNull(&j, p.rank);
    j.Key("rank_var");
    StringOrNull(&j, p.rank_var);
    j.Key("how");
    StringOrNull(&j, p.how);
    j.Key("launcher");
    StringOrNull(&j, p.launcher);
    j.Key("bound_by");
    if (p.by > 0)
      j.Int(p.by);
    else
      j.Null();
    j.Key("cpus").String(p.cpus).Key("nodes").String(p.nodes).Key("memory").String(p.memory);
    j.Key("local").String(p.local).Key("anon_kb").Uint(p.anon_kb);
    j.Key("command").String(p.command).Key("cmdline").String(p.cmdline).EndObject();
  }
  j.Break(0).EndArray().Finish();
}

/// What an empty list prints, so that "none" is not mistaken for a failure to look.
constexpr char kNone[] = "no process on this machine that numabind bound (--all lists every process)\n";

void PrintText(FILE* out, const std::vector<PsProcess>& found) {
  if (found.empty()) {
    fputs(kNone, out);
    return;
  }
  std::vector<std::vector<std::string>> table;
  table.push_back({"pid", "user", "rank", "launcher", "cpus", "nodes", "memory", "local", "command"});
  for (const PsProcess& p : found) {
    table.push_back({std::to_string(p.pid), p.user, RankText(p), LauncherText(p), p.cpus, p.nodes, p.memory,
                     p.local, p.command});
    for (std::string& cell : table.back()) cell = Printable(cell);  // another user's command and environment
  }
  PrintTable(out, table);
}

/// The processes as items of a picture: their CPUs, and their memory policy's nodes.
Drawing PsDrawing(const std::vector<PsProcess>& found) {
  Drawing d = ProcessesDrawing("ps", found.size(), "numabind bound on this machine");
  d.detail_fields = "rank, memory policy, command";
  std::string ignored;
  for (const PsProcess& p : found) {
    DrawItem item;
    item.id = std::to_string(p.pid);
    planner::CpuSet::ParseList(p.cpus.c_str(), &item.cpus, &ignored);
    planner::CpuSet::ParseList(p.nodes.c_str(), &item.nodes, &ignored);
    std::string rank = "rank " + RankText(p);
    if (p.bound == PsBound::kNumabind && !p.launcher.empty()) rank += " (" + p.launcher + ")";
    item.details = {Printable(rank), Printable(p.memory), Cut(Printable(p.command), 40)};
    d.items.push_back(std::move(item));
  }
  return d;
}

}  // namespace

const HelpText kPsHelp = {kPsAbout,
                          "0 when it listed (even nothing), 1 when /proc cannot be read, 2 for bad usage."};

OptionList PsOptions() { return {kPsOptions, sizeof(kPsOptions) / sizeof(kPsOptions[0])}; }

int PsMain(const Invocation& call) {
  FILE* out = call.out;
  FILE* err = call.err;
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  long uid = -1;
  if (const std::string* user = parsed.Value("--user")) {
    uid = UidOf(*user);
    if (uid < 0) {
      fprintf(err, "numabind ps: --user %s: no such user (a name or a number)\n", user->c_str());
      return kExitUsage;
    }
  }
  std::vector<long> pids = ListPids();
  if (pids.empty()) {
    fprintf(err, "numabind ps: /proc lists no process (is it mounted?)\n");
    return kExitFailure;
  }
  const PsMachine machine = ReadPsMachine();
  const long self = static_cast<long>(getpid());
  std::map<long, std::string> users;
  PsSites sites;
  std::vector<PsProcess> found;
  for (long pid : pids) {
    PsProcess p;
    if (pid == self || !ReadPsProcess(pid, machine, &sites, uid, parsed.Has("--all"), &p)) continue;
    p.user = UserName(p.uid, &users);
    found.push_back(std::move(p));
  }
  if (parsed.Has("--json")) {
    PrintJson(out, found);
  } else if (parsed.Has("--draw")) {
    if (found.empty()) {
      fputs(kNone, out);
      return 0;
    }
    std::string text;
    std::string error;
    if (!DrawOn(nullptr, PsDrawing(found), &text, &error)) {
      fprintf(err, "numabind ps: %s\n", error.c_str());
      return kExitFailure;
    }
    fputs(text.c_str(), out);
  } else {
    PrintText(out, found);
  }
  return 0;
}

}  // namespace numabind::cli
