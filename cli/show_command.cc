// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind show PID...`: where live processes run. CPUs and NUMA nodes come from /proc/PID/status
// (Cpus_allowed_list, Mems_allowed_list); the memory policy from get_mempolicy for this process and from the
// first line of /proc/PID/numa_maps for others, in NUMABIND_MEMORY's words (cli/memory_policy.h: "local",
// "bind:0", "interleave:0-1", "preferred:1"), as `plan`, the log and `report` write it. Every field is
// printed through cli/printable.h: a command line is whatever its process chose, escape sequences included.

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/draw.h"
#include "cli/memory_policy.h"
#include "cli/proc_locality.h"
#include "cli/proc_text.h"

namespace numabind::cli {
namespace {

const OptionSpec kShowOptions[] = {
    {"--json", kNoVar, true, "", "print a JSON array, one object per process"},
    {"--draw", kNoVar, true, "",
     "draw this machine (packages, NUMA nodes with their CPUs, memory and devices) with a mark per "
     "process on its CPUs, and a legend",
     true},
    {"--threads", kNoVar, true, "",
     "also one line per thread: its id, name and CPUs, marked when it has a CPU outside the process's"},
};

const char* const kShowAbout[] = {
    "Prints each process's CPUs (Cpus_allowed_list), NUMA nodes (Mems_allowed_list), memory policy,\n"
    "its own resident memory per node (private anonymous: heap, stacks, anonymous mappings, from\n"
    "numa_maps, as numastat -p) and command; without PID, this process's own.",
    nullptr};

struct ProcInfo {
  long pid = 0;
  std::string command, cpus, nodes, memory;
  base::NodeMemory resident;  ///< from its numa_maps; all zero when unreadable
  bool resident_known = false;
  std::vector<ThreadInfo> threads;  ///< with --threads
};

/// A /proc/PID/status line's value, or "?" when it has none.
std::string StatusField(const std::string& status, const char* name) {
  std::string value;
  return StatusValue(status, name, &value) ? value : "?";
}

bool ReadProc(long pid, bool self, bool threads, ProcInfo* info, std::string* error) {
  std::string dir = "/proc/" + std::to_string(pid) + "/";
  std::string status, cmdline, maps;
  int e = ReadProcFile(dir + "status", 1 << 20, &status);
  if (e != 0 || status.empty()) {
    *error = e == ENOENT || e == 0 ? "no such process" : strerror(e);
    return false;
  }
  info->pid = pid;
  info->cpus = StatusField(status, "Cpus_allowed_list");
  info->nodes = StatusField(status, "Mems_allowed_list");
  if (ReadProcFile(dir + "cmdline", 1 << 20, &cmdline) == 0 && !cmdline.empty()) {
    while (!cmdline.empty() && cmdline.back() == '\0') cmdline.pop_back();
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    info->command = cmdline;
  } else {
    info->command = "[" + StatusField(status, "Name") + "]";  // kernel threads and zombies have no cmdline
  }
  bool maps_read = ReadProcFile(dir + "numa_maps", 64 << 20, &maps) == 0 && !maps.empty();
  if (self) {
    info->memory = OwnMemoryPolicy();
  } else if (maps_read) {
    info->memory = NumaMapsPolicy(maps);
  } else {
    info->memory = "?";  // no permission (another user's process), no mappings, or a kernel without NUMA
  }
  if (maps_read) info->resident = CountNumaMaps(maps), info->resident_known = true;
  if (threads) info->threads = ReadThreads(pid, info->cpus);
  return true;
}

/// The processes as items of a picture: their CPUs, and the nodes their memory policy names.
Drawing ShowDrawing(const std::vector<ProcInfo>& found) {
  Drawing d = ProcessesDrawing("show", found.size(), "on this machine");
  std::string ignored;
  for (const ProcInfo& p : found) {
    DrawItem item;
    item.id = std::to_string(p.pid);
    planner::CpuSet::ParseList(p.cpus.c_str(), &item.cpus, &ignored);  // "?" (unreadable) draws nothing
    size_t colon = p.memory.rfind(':');
    if (colon != std::string::npos)
      planner::CpuSet::ParseList(p.memory.c_str() + colon + 1, &item.nodes, &ignored);
    item.details = {Printable(p.memory), Cut(Printable(p.command), 40)};
    d.items.push_back(std::move(item));
  }
  return d;
}

void PrintJson(FILE* out, const std::vector<ProcInfo>& found, bool threads) {
  JsonFile file(out);
  base::JsonWriter& j = file.json();
  j.BeginArray();
  for (const ProcInfo& p : found) {
    j.Break(2).BeginObject().Key("pid").Int(p.pid).Key("command").String(p.command);
    j.Key("cpus").String(p.cpus).Key("nodes").String(p.nodes).Key("memory").String(p.memory);
    j.Key("anon_kb_by_node");
    if (!p.resident_known) {
      j.Null();
    } else {
      j.BeginObject();
      for (uint32_t n = 0; n < base::kNumaMapsNodes; ++n) {
        if (p.resident.anon_kb[n] != 0) j.Key(std::to_string(n)).Uint(p.resident.anon_kb[n]);
      }
      j.EndObject();
    }
    if (threads) {
      j.Key("threads").BeginArray();
      for (const ThreadInfo& t : p.threads) {
        j.BeginObject().Key("tid").Int(t.tid).Key("name").String(t.name).Key("cpus").String(t.cpus);
        j.Key("outside").Bool(t.outside).EndObject();
      }
      j.EndArray();
    }
    j.EndObject();
  }
  j.Break(0).EndArray().Finish();
}

void PrintText(FILE* out, const std::vector<ProcInfo>& found, bool threads) {
  std::vector<std::vector<std::string>> table;
  table.push_back({"pid", "cpus", "nodes", "memory", "resident per node", "command"});
  for (const ProcInfo& p : found) {
    table.push_back({std::to_string(p.pid), p.cpus, p.nodes, p.memory,
                     p.resident_known ? PerNode(p.resident, false) : "?", p.command});
    for (std::string& cell : table.back()) cell = Printable(cell);  // another user's command line
  }
  PrintTable(out, table);
  for (const ProcInfo& p : found) {
    if (!threads) break;
    fprintf(out, "\nthreads of %ld (! a CPU outside the process's %s)\n", p.pid, Printable(p.cpus).c_str());
    std::vector<std::vector<std::string>> rows = {{"  tid", "name", "cpus"}};
    for (const ThreadInfo& t : p.threads)
      rows.push_back(
          {std::string(t.outside ? "! " : "  ") + std::to_string(t.tid), Printable(t.name), t.cpus});
    PrintTable(out, rows);
  }
}

}  // namespace

const HelpText kShowHelp = {kShowAbout, "0, 1 when a process cannot be read, 2 for bad usage."};

OptionList ShowOptions() { return {kShowOptions, sizeof(kShowOptions) / sizeof(kShowOptions[0])}; }

int ShowMain(const Invocation& call) {
  FILE* out = call.out;
  FILE* err = call.err;
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  std::string error;
  std::vector<long> pids;
  for (const std::string& a : parsed.positionals) {
    char* end = nullptr;
    long pid = strtol(a.c_str(), &end, 10);
    if (a.empty() || *end != '\0' || pid <= 0 || a[0] < '0' || a[0] > '9') {
      fprintf(err, "numabind show: %s: not a process id\n", a.c_str());
      return kExitUsage;
    }
    pids.push_back(pid);
  }
  const long self = static_cast<long>(getpid());
  if (pids.empty()) pids.push_back(self);

  int status = 0;
  std::vector<ProcInfo> found;
  for (long pid : pids) {
    ProcInfo info;
    if (!ReadProc(pid, pid == self, parsed.Has("--threads"), &info, &error)) {
      fprintf(err, "numabind show: %ld: %s\n", pid, error.c_str());
      status = kExitFailure;
      continue;
    }
    found.push_back(info);
  }
  if (parsed.Has("--draw") && !found.empty()) {
    std::string text;
    if (!DrawOn(nullptr, ShowDrawing(found), &text, &error)) {
      fprintf(err, "numabind show: %s\n", error.c_str());
      return kExitFailure;
    }
    fputs(text.c_str(), out);
  } else if (parsed.Has("--json")) {
    PrintJson(out, found, parsed.Has("--threads"));
  } else if (!found.empty()) {
    PrintText(out, found, parsed.Has("--threads"));
  }
  return status;
}

}  // namespace numabind::cli
