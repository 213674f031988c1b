// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind ps`'s reading of /proc (cli/ps.h). Every read may find the process gone (ENOENT, or ESRCH from a
// process that exited between open and read): the process is then left out, whatever was read before.

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "base/command_name.h"
#include "cli/cli.h"
#include "cli/memory_policy.h"
#include "cli/proc_locality.h"
#include "cli/proc_text.h"
#include "cli/ps.h"
#include "config/bound_marker.h"
#include "config/config.h"
#include "config/rank_count.h"
#include "config/site_file.h"
#include "config/visible_devices.h"

namespace numabind::cli {
namespace {

bool Gone(int e) { return e == ENOENT || e == ESRCH; }

/// The ranks by order of every counter page this user may read (root: every user's), by pid: the pages'
/// slots (kOrderSlots words before the flags word), in NUMABIND_SHARED's directory (/dev/shm by default).
void ReadOrderRanks(std::map<long, uint32_t>* out) {
  constexpr uint32_t kSlots = 1023;  // shim/child/order_counter.h's kOrderSlots: the page is 1024 words
  const char* shared = getenv("NUMABIND_SHARED");
  if (shared != nullptr && strcmp(shared, "off") == 0) return;
  std::string root = shared != nullptr && shared[0] != '\0' ? shared : "/dev/shm";
  DIR* top = opendir(root.c_str());
  if (top == nullptr) return;
  while (struct dirent* d = readdir(top)) {
    if (strncmp(d->d_name, "numabind-", 9) != 0) continue;
    std::string dir = root + "/" + d->d_name;
    DIR* sub = opendir(dir.c_str());
    if (sub == nullptr) continue;
    while (struct dirent* f = readdir(sub)) {
      if (strncmp(f->d_name, "order-", 6) != 0) continue;
      uint32_t slots[kSlots] = {0};
      int fd = open((dir + "/" + f->d_name).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
      if (fd < 0) continue;
      ssize_t n = read(fd, slots, sizeof(slots));
      close(fd);
      for (uint32_t i = 0; n > 0 && i < static_cast<uint32_t>(n) / 4; ++i)
        if (slots[i] != 0) (*out)[slots[i]] = i;
    }
    closedir(sub);
  }
  closedir(top);
}

/// The nodes whose CPUs `cpus` has some of.
std::string NodesOfCpus(const PsMachine& machine, const std::string& cpus) {
  planner::CpuSet set;
  std::string ignored;
  if (!planner::CpuSet::ParseList(cpus.c_str(), &set, &ignored)) return "";
  planner::NodeSet nodes;
  for (const auto& [node, node_cpus] : machine.nodes) {
    if (node_cpus.Intersects(set)) nodes.Set(node);
  }
  return nodes.ToList();
}

/// Fills out's binding from its environment, as NUMABIND_BOUND says.
void ReadMarker(const std::vector<std::string>& env, PsProcess* out) {
  const std::string prefix = config::kBoundEntry;
  for (const std::string& e : env) {
    if (e.compare(0, prefix.size(), prefix) != 0) continue;
    out->bound = PsBound::kNumabind;
    config::BoundMarker m;
    std::string value = e.substr(prefix.size());
    if (!config::ParseBoundMarker(value.c_str(), &m)) {
      out->rank = "?";  // not written by numabind: it writes "VAR=value" first
      return;
    }
    out->rank_var.assign(m.var, m.var_len);
    out->rank.assign(m.value, m.value_len);
    out->how = out->rank_var == config::kBoundByBind ? "bind" : "variable";
    if (out->how == "bind") out->rank_var.clear();
    out->by = m.has_proof ? m.proof.by : 0;
    out->spawned = m.has_proof && m.proof.spawned;
    return;
  }
}

/// Whether the process at `dir` with environment `env` is a rank that bound itself at start-up: its
/// NUMABIND_BOUND is in the environment the library made for it (environ), which /proc/PID/environ does not
/// show (only the one it started with). Such a process has numabind enabled (its environment, or its site
/// file), a rank variable as the library's start-up picks it (shim/child/child.cc's FindRankVar) and the
/// library loaded (/proc/PID/maps). False when not, when it is gone (*gone), or when its environment leaves
/// it to a site file `sites` does not read for it (*unread).
bool StartupRank(const std::string& dir, const std::vector<std::string>& env, PsSites* sites, bool own,
                 PsProcess* out, bool* gone, bool* unread) {
  std::vector<const char*> envp;
  for (const std::string& e : env) envp.push_back(e.c_str());
  envp.push_back(nullptr);
  config::Config cfg;
  config::Error err;
  if (!config::Parse(envp.data(), &cfg, &err)) return false;  // the library ran it unbound, saying why
  if (!cfg.disabled && !cfg.enabled) {
    const config::SiteFile* site = sites->For(envp.data(), own);
    *unread = site == nullptr;
    if (*unread) return false;
    config::ApplySite(envp.data(), *site, &cfg);
  }
  if (!cfg.enabled) return false;
  const char* var = cfg.rank_var;
  const char* value = var != nullptr ? config::Lookup(envp.data(), var) : nullptr;
  if (var == nullptr) {
    config::EnvFacts facts;
    config::ScanEnvFacts(envp.data(), &facts);
    int i = config::FirstRankVar(facts);
    if (i >= 0) var = config::kRankVars[i].rank, value = facts.rank[i];
  }
  std::string device_rank;
  if (var == nullptr && cfg.by_device) {  // NUMABIND_BY_DEVICE: a process that sees one device
    config::OneDevice d = config::FindOneDevice(envp.data());
    bool nvidia = config::OneDevice::One(d.nvidia) && d.amd == config::OneDevice::kNone;
    bool amd = config::OneDevice::One(d.amd) && d.nvidia == config::OneDevice::kNone;
    if (nvidia || amd) {
      int32_t index = nvidia ? d.nvidia : d.amd;
      var = nvidia ? d.nvidia_var : d.amd_var;
      // Its device's index among the vendor's, the rank the library gives it on a machine of one vendor;
      // one named by UUID is matched by the planner, which ps does not run.
      device_rank = index >= 0 ? std::to_string(index) : "?";
      value = device_rank.c_str();
    }
  }
  if (var == nullptr || value == nullptr || value[0] == '\0') return false;
  std::string maps;
  int e = ReadProcFile(dir + "maps", 64 << 20, &maps);
  *gone = Gone(e);
  if (e != 0 || maps.find("/libnumabind.so") == std::string::npos) return false;
  out->bound = PsBound::kNumabind;
  out->rank_var = var;
  out->rank = value;
  out->how = device_rank.empty() ? "variable" : "device";
  out->by = out->pid;
  return true;
}

/// Whether a process on `cpus` was bound by someone: its CPUs are fewer than the machine's.
bool FewerCpus(const PsMachine& machine, const std::string& cpus) {
  planner::CpuSet set;
  std::string ignored;
  return planner::CpuSet::ParseList(cpus.c_str(), &set, &ignored) && !machine.all.Empty() &&
         set.IsSubsetOf(machine.all) && set != machine.all;
}

/// A bound process's share of its own memory on its nodes (out->nodes), from its whole numa_maps.
void LocalShare(const std::string& dir, PsProcess* out) {
  std::string text, ignored;
  planner::CpuSet nodes;
  if (ReadProcFile(dir + "numa_maps", 64 << 20, &text) != 0 ||
      !planner::CpuSet::ParseList(out->nodes.c_str(), &nodes, &ignored))
    return;
  base::NodeMemory m = CountNumaMaps(text);
  uint64_t local = 0;
  for (uint32_t n = 0; n < base::kNumaMapsNodes; ++n) {
    if (nodes.Has(n)) local += m.anon_kb[n];
  }
  out->anon_kb = m.AnonKb();
  out->local = out->anon_kb == 0 ? "-" : std::to_string(local * 100 / out->anon_kb) + "%";
}

}  // namespace

const config::SiteFile* PsSites::For(const char* const* env, bool own) {
  static const config::SiteFile kNone{};  // NUMABIND_CONFIG_FILE=none: no file
  const char* path = config::SiteFilePath(env);
  if (path == nullptr) return &kNone;
  if (!own && strcmp(path, config::kSiteFilePath) != 0) return nullptr;
  auto [it, fresh] = files_.try_emplace(path);
  if (fresh) {
    it->second = std::make_unique<config::SiteFile>();
    config::Error err;
    // A bad file reads as none, as the library reads it. The file points to its path (site->path): the key's.
    config::ReadSiteFile(it->first.c_str(), it->second.get(), &err);
  }
  return it->second.get();
}

std::string LauncherOf(long pid) {
  std::string text;
  if (pid <= 1 || ReadProcFile("/proc/" + std::to_string(pid) + "/cmdline", 1 << 20, &text) != 0) return "";
  std::vector<std::string> args = ProcStrings(text);
  if (args.empty()) return "";
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  char name[base::kCommandNameMax];
  return base::CommandName(nullptr, argv.data(), name, sizeof(name));
}

std::string MemoryWord(const std::string& policy, std::string* nodes) {
  size_t colon = policy.find(':');
  *nodes = colon != std::string::npos ? policy.substr(colon + 1) : "";
  return policy.substr(0, colon);
}

PsMachine ReadPsMachine() {
  PsMachine m;
  std::string text, ignored;
  if (DIR* d = opendir("/sys/devices/system/node")) {
    while (struct dirent* e = readdir(d)) {
      const char* name = e->d_name;
      if (strncmp(name, "node", 4) != 0 || name[4] < '0' || name[4] > '9') continue;
      planner::CpuSet cpus;
      if (ReadProcFile(std::string("/sys/devices/system/node/") + name + "/cpulist", 1 << 16, &text) == 0 &&
          planner::CpuSet::ParseList(text.c_str(), &cpus, &ignored))
        m.nodes.emplace_back(static_cast<unsigned>(strtoul(name + 4, nullptr, 10)), cpus);
    }
    closedir(d);
  }
  std::string all;
  if (ReadProcFile("/proc/1/status", 1 << 16, &text) != 0 || !StatusValue(text, "Cpus_allowed_list", &all))
    ReadProcFile("/sys/devices/system/cpu/online", 1 << 16, &all);
  planner::CpuSet::ParseList(all.c_str(), &m.all, &ignored);
  ReadOrderRanks(&m.order_ranks);
  return m;
}

std::vector<long> ListPids() {
  std::vector<long> pids;
  DIR* d = opendir("/proc");
  if (d == nullptr) return pids;
  while (struct dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = strtol(e->d_name, &end, 10);
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && *end == '\0') pids.push_back(pid);
  }
  closedir(d);
  std::sort(pids.begin(), pids.end());
  return pids;
}

bool ReadPsProcess(long pid, const PsMachine& machine, PsSites* sites, long uid, bool all, PsProcess* out) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/";
  std::string status, text, field;
  if (ReadProcFile(dir + "status", 1 << 20, &status) != 0) return false;
  if (!StatusValue(status, "Uid", &field) || !StatusValue(status, "Cpus_allowed_list", &out->cpus))
    return false;
  out->pid = pid;
  out->uid = strtol(field.c_str(), nullptr, 10);  // the real uid, the first of four
  // Kernel threads (kthreadd and its children) are bound to their CPUs by the kernel, not listed.
  if (pid == 2 || (StatusValue(status, "PPid", &field) && field == "2")) return false;
  if (uid >= 0 && out->uid != uid) return false;

  int e = ReadProcFile(dir + "cmdline", 1 << 20, &text);
  if (Gone(e)) return false;
  std::vector<std::string> args = e == 0 ? ProcStrings(text) : std::vector<std::string>();
  if (args.empty()) {
    StatusValue(status, "Name", &field);
    out->command = "[" + field + "]";  // kernel threads and zombies have no arguments
  } else {
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    char name[base::kCommandNameMax];
    out->command = base::CommandName(nullptr, argv.data(), name, sizeof(name));
    for (const std::string& a : args) out->cmdline += (out->cmdline.empty() ? "" : " ") + a;
  }

  e = ReadProcFile(dir + "environ", 64 << 20, &text);
  if (Gone(e)) return false;
  bool unread = false;
  if (e == 0) {
    std::vector<std::string> env = ProcStrings(text);
    ReadMarker(env, out);
    bool gone = false;
    bool own = out->uid == static_cast<long>(geteuid());
    if (out->bound == PsBound::kNo && !StartupRank(dir, env, sites, own, out, &gone, &unread) && gone)
      return false;
  }
  // A rank by order: its tree's counter names it (a fork child's environment is its parent's in /proc), when
  // the library is in it (the slot's holder may have ended and its pid been reused).
  auto order = machine.order_ranks.find(pid);
  if (out->bound != PsBound::kNumabind && order != machine.order_ranks.end()) {
    std::string maps;
    if (ReadProcFile(dir + "maps", 64 << 20, &maps) == 0 &&
        maps.find("/libnumabind.so") != std::string::npos) {
      out->bound = PsBound::kNumabind;
      out->rank = std::to_string(order->second);
      out->rank_var.clear();
      out->how = "order";
      e = 0, unread = false;
    }
  }
  if (out->bound == PsBound::kNumabind) {
    long started_by = out->spawned && out->by > 0           ? out->by
                      : StatusValue(status, "PPid", &field) ? strtol(field.c_str(), nullptr, 10)
                                                            : 0;
    out->launcher = LauncherOf(started_by);
  }
  // Another user's process, whose environment or site file ps does not read: whether something bound it, by
  // its CPUs.
  if ((e != 0 || unread) && FewerCpus(machine, out->cpus)) {
    out->bound = PsBound::kUnknown;
    out->why = e != 0 ? "environment unreadable" : "site file not read";
  }
  if (out->bound == PsBound::kNo && !all) return false;

  std::string policy_nodes;
  e = ReadProcFile(dir + "numa_maps", 4096, &text);  // the first lines: the policy is on each
  if (Gone(e)) return false;
  // cli/memory_policy.h's words, as show's; the nodes go to their own column.
  out->memory = e == 0 ? MemoryWord(NumaMapsPolicy(text), &policy_nodes) : "?";  // "?": another user's
  out->nodes = !policy_nodes.empty() ? policy_nodes : NodesOfCpus(machine, out->cpus);
  if (out->nodes.empty() && StatusValue(status, "Mems_allowed_list", &field)) out->nodes = field;
  if (out->bound == PsBound::kNumabind) LocalShare(dir, out);
  return true;
}

}  // namespace numabind::cli
