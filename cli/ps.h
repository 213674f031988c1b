// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind ps`: the processes of this machine that numabind bound, read from /proc (ps_proc.cc) and
// printed by ps_command.cc. A process bound by numabind carries NUMABIND_BOUND in the environment it started
// with (config/bound_marker.h), read from /proc/PID/environ. A rank that bound itself at start-up wrote it
// into the environment it made, which /proc does not show: it is known by the library in its maps, numabind
// enabled (its environment, else its site file) and a rank variable in its environment, as the library's
// start-up found it. Where the environment cannot be read (another user's process), or numabind was on or
// off by a site file `ps` does not read (one another user's process names), its affinity alone says whether
// something bound it, and its rank is unknown. Processes may end at any moment while they are read: one that
// does, at any step, is left out without a word.

#ifndef NUMABIND_CLI_PS_H_
#define NUMABIND_CLI_PS_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/site_file.h"
#include "planner/cpu_set.h"

namespace numabind::cli {

/// What `ps` knows of a process's binding.
enum class PsBound {
  kNo,        ///< its environment has no NUMABIND_BOUND
  kNumabind,  ///< numabind bound it (NUMABIND_BOUND, or at start-up), or it is the child of a rank it bound
  kUnknown,   ///< its CPUs are fewer than the machine's: bound by someone; what numabind did is unknown (why)
};

/// One process as `ps` lists it. Lists are in Linux list syntax ("0-3,8").
struct PsProcess {
  long pid = 0;
  long uid = -1;     ///< real uid (/proc/PID/status Uid:)
  std::string user;  ///< its name, or the uid
  PsBound bound = PsBound::kNo;
  std::string rank;      ///< the rank variable's value ("1"); "" unless kNumabind
  std::string rank_var;  ///< the rank variable ("LOCAL_RANK"); "" unless kNumabind
  /// How it got its rank: "variable" (its launcher's rank variable), "order" (NUMABIND_MATCH or
  /// NUMABIND_FORKS: the tree's order counter), "bind" (numabind bind); "" unless kNumabind.
  std::string how;
  /// The process that started it, by its command ("prted", "python3 torchrun", "slurmstepd"): the proof's
  /// spawner, else its parent; "" when gone or unknown (never guessed from the rank variable's name).
  std::string launcher;
  long by = 0;  ///< the process that bound it (NUMABIND_BOUND's proof; itself at start-up), 0 when unknown
  bool spawned = false;  ///< the proof says `by` is its launcher, which started it bound
  const char* why = "";  ///< kUnknown's reason: "environment unreadable", "site file not read"
  std::string cpus;      ///< Cpus_allowed_list
  std::string nodes;     ///< the memory policy's nodes, else the nodes of its CPUs, else Mems_allowed_list
  std::string
      memory;  ///< in plan's words: local, preferred, bind, interleave (plus the kernel's others); "?"
  /// Of a bound process: the share of its own memory (private anonymous, cli/proc_locality.h) on `nodes`,
  /// "98%"; "-" with none; "?" unreadable or not bound.
  std::string local = "?";
  uint64_t anon_kb = 0;
  std::string command;  ///< base::CommandName of its arguments ("python3 train.py"), "[name]" without any
  std::string cmdline;  ///< its arguments joined with spaces
};

/// The machine as `ps` reads it once: the CPUs of each NUMA node (sysfs) and the CPUs processes may use
/// (init's Cpus_allowed_list, else the online CPUs), against which a process counts as bound.
struct PsMachine {
  std::vector<std::pair<unsigned, planner::CpuSet>> nodes;
  planner::CpuSet all;
  /// The ranks by order (NUMABIND_MATCH, NUMABIND_FORKS) by pid: the slots of the order counter pages in the
  /// shared directory (shim/child/order_counter.h: slot i holds rank i's pid), which name fork children too,
  /// whose environment /proc does not show.
  std::map<long, uint32_t> order_ranks;
};
PsMachine ReadPsMachine();

/// The site files of the processes `ps` reads, each path read once: a process reads its
/// NUMABIND_CONFIG_FILE's, else the compiled-in one (config::SiteFilePath), and so may differ from the next.
/// A path another user's process names is never opened: root must not read a file a user chose for it (any
/// file of the machine, a FIFO, a device), nor take that user's word for what it says.
class PsSites {
 public:
  /// The site file a process with environment `env` (which config::Parse accepts) read, a bad one as none, as
  /// the library reads it; nullptr when it names one `ps` does not read (`own` false: another user's).
  const config::SiteFile* For(const char* const* env, bool own);

 private:
  std::map<std::string, std::unique_ptr<config::SiteFile>> files_;  ///< by path as opened
};

/// The pids under /proc, ascending.
std::vector<long> ListPids();

/// Reads process `pid`, its site file from `sites`; false when it is gone (ENOENT or ESRCH at any step, or a
/// status without the fields) or left out: `uid` >= 0 keeps only that user's processes (others before their
/// environment is read), and without `all` an unbound one is left out before its memory policy is read.
bool ReadPsProcess(long pid, const PsMachine& machine, PsSites* sites, long uid, bool all, PsProcess* out);

/// A policy in cli/memory_policy.h's words ("bind:0-1") split into its word ("bind") and its nodes.
std::string MemoryWord(const std::string& policy, std::string* nodes);

/// The command of process `pid` as ps names a launcher ("prted", "python3 torchrun"); "" when it is init,
/// gone or unreadable.
std::string LauncherOf(long pid);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_PS_H_
