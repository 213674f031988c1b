// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`: a job's verdict from the library's JSON log lines (NUMABIND_LOG_FORMAT=json, one file
// per host, shim/log/json_log.h gives the fields). report_log.cc reads the lines into hosts and ranks and
// raises the flags; report_command.cc finds the files and prints the verdict.

#ifndef NUMABIND_CLI_REPORT_H_
#define NUMABIND_CLI_REPORT_H_

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/cpu_set.h"

namespace numabind::cli {

/// One JSON value of a log line: a string's text, or a number or literal as written.
struct LogValue {
  bool is_string = false;
  std::string text;
};
using LogFields = std::map<std::string, LogValue>;

/// Parses one log line: a JSON object whose values are strings, numbers, true, false or null (the library
/// writes no other kind). False when it is not one.
bool ParseLogLine(const std::string& line, LogFields* out);

/// One rank process: the last line its pid wrote on its host (a rebound line replaces the bound one).
struct ReportRank {
  std::string event;  ///< bound, rebound (bound as planned), unbound or refused (not bound)
  std::string rank, nranks, rank_var, command, pid, entry, inside, message;
  /// The plan as the line says it: what a bound rank was given (its CPUs are what it runs on).
  std::string policy, cpus, nodes, memory, device, device_nodes, share, launcher_cpus;
  planner::CpuSet cpu_set, node_set;  ///< cpus and nodes read (empty when unknown or not bound)
  bool replaced = false;
  /// launcher (bound between fork and exec), self (at start-up), inherited (at start-up, inside the CPUs of
  /// a rank numabind bound: its "inside"), or "-" when not bound.
  std::string by;
  std::vector<std::string> flags;  ///< why this rank is not as planned; empty when it is
};

struct ReportHost {
  std::string host;               ///< as the lines name it (uname's nodename)
  std::vector<ReportRank> ranks;  ///< by rank, then pid
  std::vector<std::string> flags;
  std::vector<std::string> notes;  ///< other warnings the library wrote on this host (not flags)
  std::unordered_map<std::string, size_t> pid_index;  ///< a pid's line in ranks (before Judge sorts them)
};

struct ReportJob {
  std::vector<ReportHost> hosts;             ///< by name
  std::vector<std::string> flags;            ///< the job's: hosts expected but without a log
  size_t lines = 0;                          ///< JSON lines read
  std::map<std::string, size_t> host_index;  ///< a host's place in hosts (before Judge sorts them)
  /// Every rank bound as planned and nothing flagged.
  bool Ok() const;
};

/// Adds one parsed line to the job (lines without a host, or neither a rank's nor a warning, are skipped).
/// A rank, rank count, pid or CPU or node list outside the library's limits (config/limits.h) is dropped
/// and flags the rank. Constant time per line but for the parsing of its lists.
void AddLogLine(const LogFields& fields, ReportJob* job);

/// Sorts hosts and ranks and raises the flags: ranks not bound (and why), a memory policy not applied, CPUs
/// overlapping another rank's on the host (sharing the same CPUs is planned under node, socket and nodes:
/// policies), a rank whose nodes miss its device's, ranks of a known count with no line, hosts with no
/// rank line, and fewer hosts than `expected_hosts` (0: not checked).
void Judge(ReportJob* job, size_t expected_hosts);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_REPORT_H_
