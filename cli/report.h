// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`: a job's verdict from the library's JSON log lines (NUMABIND_LOG_FORMAT=json, one file
// per host, shim/log/json_log.h gives the fields, config/log_keys.def their keys). report_log.cc reads the
// lines into hosts and ranks and raises the flags, report_launch.cc those between launches, report_said.cc
// folds lines that say the same; report_command.cc finds the files and prints the verdict.

#ifndef NUMABIND_CLI_REPORT_H_
#define NUMABIND_CLI_REPORT_H_

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/log_keys.h"
#include "planner/cpu_set.h"

namespace numabind::cli {

/// One JSON value of a log line: a string's text, or a number or literal as written.
struct LogValue {
  bool present = false;  ///< the line has the member
  bool is_string = false;
  std::string text;
};

/// One log line's members, by the key table the library writes them with (config/log_keys.def).
struct LogFields {
  LogValue values[config::kLogKeyCount];
  std::vector<std::string> unknown;  ///< keys the table does not have (a newer library's), as read
  const LogValue& operator[](config::LogKey key) const { return values[static_cast<size_t>(key)]; }
};

/// Parses one log line: a JSON object whose values are strings, numbers, true, false or null (the library
/// writes no other kind), into `out` (empty). False when it is not one.
bool ParseLogLine(const std::string& line, LogFields* out);

/// Where a rank's memory and threads were at its end, as its end line says (NUMABIND_LOCALITY: issue 37).
struct ReportLocality {
  bool known = false;  ///< the end line measured them
  uint64_t anon_kb = 0, local_kb = 0, threads = 0, outside = 0;
  std::string remote_node, by_node, planned_nodes, outside_threads;
  bool partial = false;  ///< numa_maps read in part
  /// The share of its private anonymous memory on its planned nodes, in percent (100 without any).
  double LocalPercent() const {
    return anon_kb == 0 ? 100.0 : 100.0 * static_cast<double>(local_kb) / anon_kb;
  }
};

/// What a rank's end line says: when, and where it was.
struct ReportEnd {
  std::string time;
  ReportLocality where;
};

/// A rank's end line's fields (ParseLogLine's).
ReportEnd EndOf(const LogFields& f);

/// Below this much private anonymous memory a rank is shown but not judged by its share.
constexpr uint64_t kJudgedKb = 16 * 1024;

/// One rank process: the last line its pid wrote on its host (a rebound line replaces the bound one).
struct ReportRank {
  std::string event;  ///< bound, rebound (bound as planned), unbound or refused (not bound)
  std::string rank, nranks, rank_var, command, pid, entry, inside, message;
  /// The plan as the line says it: what a bound rank was given (its CPUs are what it runs on).
  std::string policy, cpus, nodes, memory, device, device_nodes, share, launcher_cpus;
  planner::CpuSet cpu_set, node_set;  ///< cpus and nodes read (empty when unknown or not bound)
  bool replaced = false;
  /// The launch (shim/launcher/launch_id.h: "PID@START" or "STEP/PID@START"), "unknown" for a line without
  /// one (a library before launches had names).
  std::string launch;
  std::string time;  ///< the line's time (UTC, ISO 8601 with milliseconds), "" when it has none
  /// The time of its "end" line (written when it exits by itself: shim/entry/exit_wrappers.cc), "" when it
  /// wrote none: its end is unknown (a signal, SIGKILL: docs/limits.md).
  std::string ended;
  ReportLocality where;  ///< from its end line
  /// The line was cut short ("truncated":true): its lists may be partial, so the rank's CPUs are unknown.
  bool cut = false;
  /// launcher (bound between fork and exec), self (at start-up), inherited (at start-up, inside the CPUs of
  /// a rank numabind bound: its "inside"), or "-" when not bound.
  std::string by;
  std::vector<std::string> flags;  ///< why this rank is not as planned; empty when it is
};

/// One launch on one host: the ranks whose lines name the same launch.
struct ReportLaunch {
  std::string id;
  std::string first, last;  ///< the earliest and the latest time of its rank lines on the host
  /// Set by Judge: the latest end line of its bound ranks, "" when none wrote one.
  std::string ended;
  size_t ranks = 0;  ///< set by Judge
  /// Set by Judge: launches whose rank lines interleave in time (directly or through another launch of the
  /// host) share a group: they ran at the same time, and their ranks' CPUs are judged together.
  size_t group = 0;
};

/// Lines that say the same thing, kept once each in the order first seen, with how many said it: a
/// launcher and each of its ranks say the same warning (a site file ignored: one line per process).
struct SaidOnce {
  std::vector<std::pair<std::string, size_t>> items;  ///< text, lines
  std::unordered_map<std::string, size_t> index;      ///< a text's place in items
  void Add(const std::string& text);
  /// Each text once, with " (said N times)" after it when N lines said it.
  std::vector<std::string> Folded() const;
};

struct ReportHost {
  std::string host;                    ///< as the lines name it (uname's nodename)
  std::vector<ReportRank> ranks;       ///< by launch (in `launches`' order), rank, then pid
  std::vector<ReportLaunch> launches;  ///< by first time, then id (after Judge)
  std::vector<std::string> flags;
  std::vector<std::string> notes;  ///< other warnings the library wrote on this host (not flags), folded
  SaidOnce warned;                 ///< those warnings as read, for notes (Judge)
  /// The site file, or a line of it, that the library said it ignored ("event":"site_file"), for flags
  /// (Judge): what applied is not what the site configured.
  SaidOnce site_ignored;
  std::unordered_map<std::string, size_t> pid_index;  ///< a pid's line in ranks (before Judge sorts them)
  /// End lines read before their rank's line (launch, then pid): a rank a posix_spawn launcher started may
  /// exit before its launcher writes the line that it bound it.
  std::unordered_map<std::string, ReportEnd> early_ends;
  std::unordered_map<std::string, size_t> launch_index;  ///< a launch's place in launches (before Judge)
};

struct ReportJob {
  std::vector<ReportHost> hosts;             ///< by name
  std::vector<std::string> flags;            ///< the job's: hosts expected but without a log
  size_t lines = 0;                          ///< JSON lines read
  std::map<std::string, size_t> host_index;  ///< a host's place in hosts (before Judge sorts them)
  /// --min-local: a rank with less of its memory on its planned nodes (percent) is flagged.
  double min_local = 90;
  /// Every rank bound as planned and nothing flagged.
  bool Ok() const;
};

/// Adds one parsed line to the job (lines without a host, or neither a rank's nor a warning, are skipped).
/// A rank, rank count, pid or CPU or node list outside the library's limits (config/limits.h) is dropped
/// and flags the rank. Constant time per line but for the parsing of its lists.
void AddLogLine(const LogFields& fields, ReportJob* job);

/// Which launches Judge keeps: every one, the one `id` names (its whole token, its step or its PID@START
/// part: "slurm:77.1" selects that step on every host), or (`last`) the latest on each host.
struct LaunchChoice {
  std::string id;
  bool last = false;
};

/// Sorts hosts and ranks and raises the flags, each launch judged on its own: ranks not bound (and why), a
/// line cut short (its rank unknown), a memory policy not applied, CPUs overlapping another rank's of the
/// same launch or of a launch that ran at the same time on the host (sharing the same CPUs is planned under
/// node, socket and nodes: policies), a rank whose nodes miss its device's, ranks of a known count with no
/// line in their launch, hosts with no rank line, a site file (or a line of it) ignored, and fewer hosts
/// than `expected_hosts` (0: not checked). Two launches ran at the same time when one's first line is no
/// later than the other's last line or its ranks' last end line (directly or through a third). A rank on
/// CPUs that a rank of an earlier launch had, whose end is unknown (no end line), cannot be told from an
/// overlap, and is flagged so. `choice` keeps some launches only (hosts left without one are dropped; a job
/// flag when no host has the one named).
void Judge(ReportJob* job, size_t expected_hosts, const LaunchChoice& choice = LaunchChoice());

/// Report_locality.cc, for Judge: flags a rank whose memory is under min_local percent on its planned nodes
/// (with kJudgedKb or more of it), and one with threads outside its CPUs at its end.
void FlagLocality(double min_local, ReportRank* r);

/// Report_launch.cc, for Judge: keeps the launches `choice` names; false when it named one no host has.
bool SelectLaunches(const LaunchChoice& choice, ReportJob* job);
/// Orders a host's launches by first time (then id), with launch_index to match, and sets their groups.
void OrderLaunches(ReportHost* h);
/// Flags each bound rank on CPUs that a bound rank of an earlier group of launches had whose end is unknown
/// (ReportRank::ended): that rank may still have been running (but for ranks sharing a domain by plan).
void FlagUnknownEnds(ReportHost* h);
/// Whether the policy gives each rank a whole domain, which the ranks of one domain share by plan.
bool SharesByPlan(const std::string& policy);
/// Whether launch token `token` is the one `id` names (the whole token, its step or its PID@START part).
bool LaunchNamed(const std::string& token, const std::string& id);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_REPORT_H_
