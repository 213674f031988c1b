// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The library's log: one line per event, to NUMABIND_LOG_FILE or standard error, as text or
// (NUMABIND_LOG_FORMAT=json) as a JSON object (shim/log/json_log.h formats those). Everything here may run
// between fork/vfork and exec: lines on the caller's stack, raw system calls. The calls go one way: the
// child and launcher sides describe an event, this file formats and writes it; the JSON formatter writes
// nothing itself.

#ifndef NUMABIND_SHIM_LOG_LOG_H_
#define NUMABIND_SHIM_LOG_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "shim/log/end_event.h"
#include "shim/log/line.h"
#include "shim/state/entry.h"

namespace numabind::shim {

/// Writes a text log line (at `level` or more verbose) to NUMABIND_LOG_FILE or stderr: as it is, or
/// (NUMABIND_LOG_FORMAT=json) as the message of a JSON object line. Child-safe.
void WriteLog(config::LogLevel level, const char* text, size_t len);
/// As above, for a line not yet finished; in JSON, "truncated":true when the line was cut short. Child-safe.
void WriteLog(config::LogLevel level, Line* line);
/// Writes one finished line as it is to NUMABIND_LOG_FILE or stderr. Child-safe.
/// `file_only`: nothing when NUMABIND_LOG_FILE is unset or cannot be written (no line on standard error).
void WriteLogRaw(const char* text, size_t len, bool file_only = false);
/// Writes config::Error's warning (an unknown NUMABIND_* name) as one warn line ending "; ignored", at most
/// once per process; nothing when `warning` is empty.
void WriteConfigWarning(const char* warning);

/// A site file that was ignored (`whole_file`) or a line of it that was (an unknown name), said by `line`
/// (not finished): at warn, or always when RecordsRanks(), for `numabind report` to flag; in JSON with
/// "event":"site_file" and "ignored":"file" or "line".
void WriteSiteFileWarning(Line* line, bool whole_file);

/// Whose binding a rank's replaced one was, for the words of the text line.
enum class StartedBinding : uint8_t {
  kLauncher,  ///< the launcher bound the child between fork and exec
  kSlurm,     ///< a Slurm step task that started bound (srun --cpu-bind)
  kOwn,       ///< a rank binding itself at start-up, bound otherwise before
};

/// A rank bound to its plan: what BindRank did, as facts; FormatBound words it.
struct BoundEvent {
  bool again = false;  ///< a forked worker bound again at its exec: "rebound"
  uint32_t rank = 0;
  uint32_t nranks = 0;             ///< 0 = unknown
  const char* rank_var = nullptr;  ///< nullptr: found by order (NUMABIND_MATCH)
  const char* command = nullptr;
  const uint64_t* cpus = nullptr;
  uint32_t cpu_words = 0;
  const uint64_t* nodes = nullptr;
  uint32_t node_words = 0;
  const char* memory = nullptr;         ///< the plan's memory policy ("bind", ...)
  const char* memory_denied = nullptr;  ///< why set_mempolicy was not made ("EPERM"...), or nullptr
  /// The policy NUMABIND_MEMORY asked for when the kernel gave `memory` instead (a kernel without it, or
  /// one that refused it: memory_why is then the errno's name, "EINVAL"); nullptr when it got what it asked.
  const char* memory_asked = nullptr;
  const char* memory_why = nullptr;
  const char* device = nullptr;  ///< "" or nullptr when none
  Entry entry = Entry::kStartup;
  const uint64_t* replaced = nullptr;  ///< the binding the rank started with when the plan replaced it
  uint32_t replaced_words = 0;
  StartedBinding started = StartedBinding::kLauncher;
  char share[96] = "";           ///< auto's share of the rank (plan::FormatAutoShare), "" when not auto
  const char* policy = nullptr;  ///< NUMABIND_POLICY as written (the basis's), for the JSON line
  /// The NUMA nodes of the rank's device (node_words words), nullptr without a device: in the JSON line, so
  /// that `numabind report` can tell a rank placed away from its device.
  const uint64_t* device_nodes = nullptr;
  /// A rank that planned inside another rank's CPUs (NUMABIND_BOUND's "VAR=value", inside_len bytes), the
  /// CPUs it started on (inside_cpus, inside_words); nullptr when it did not.
  const char* inside = nullptr;
  size_t inside_len = 0;
  const uint64_t* inside_cpus = nullptr;
  uint32_t inside_words = 0;
  /// The launch its line names (shim/launcher/launch_id.h), "" or nullptr when none; NUMABIND_LOG=debug:
  /// the spawning call stack, or nullptr.
  const char* launch = nullptr;
  const char* stack = nullptr;
};

/// Child-safe: a rank's heading in every line that names one, "rank R of N (VAR)": " of N" when nranks is
/// not 0, VAR its rank variable or, for a rank by order (var nullptr), `order`. Returns *l.
Line& RankHeading(Line* l, uint32_t rank, uint32_t nranks, const char* var,
                  const char* order = "NUMABIND_MATCH");

/// A rank that is not bound: what the warning line's JSON form carries besides its message.
struct UnboundEvent {
  bool refused = false;  ///< NUMABIND_STRICT=1: not started; else it runs unbound
  bool rank_known = false;
  uint32_t rank = 0;
  uint32_t nranks = 0;             ///< 0 = unknown
  const char* rank_var = nullptr;  ///< nullptr: found by order (NUMABIND_MATCH)
  const char* command = nullptr;
  const char* launch = nullptr;  ///< the launch its line names, "" or nullptr when none
};

/// Child-safe: the job id NUMABIND_LOG_FILE's %j stands for (base::LogJobId), from the configured
/// environment's facts (g_startup.facts).
const char* JobId();

/// Child-safe: whether rank events are recorded whatever NUMABIND_LOG says: NUMABIND_LOG_FORMAT=json with a
/// NUMABIND_LOG_FILE, what `numabind report` reads. Every bound and unbound rank then has its line.
bool RecordsRanks();

/// Child-safe: writes the warning `text` (a text line, not finished) about a rank that is not bound: as it
/// is, or (JSON) as the message of a line with event "unbound" or "refused", rank, nranks, rank_var and
/// command. At NUMABIND_LOG=warn and above, or always when RecordsRanks().
void WriteUnbound(const UnboundEvent& event, Line* text);

/// Child-safe: the line of a bound rank, in the log's format, with its pid (<= 0: unknown) and, at
/// NUMABIND_LOG=debug, the spawning stack, written at NUMABIND_LOG=info, or always when RecordsRanks().
/// The line is made here, in a frame of its own, so that a caller holds only the event while it spawns
/// (a thread's stack may be 16 KiB: the C library's own spawn in popen runs under the caller's frame).
void FinishBound(const BoundEvent& event, pid_t pid);

/// At the exit of a rank numabind bound (shim/entry/start.cc): with a JSON log file (RecordsRanks), one line
/// "event":"end" with its pid and launch, from which `numabind report` knows when the launch's ranks ended
/// (docs/log.md). Nothing otherwise.
void WriteRankEnd(pid_t pid, const char* launch, const Locality& where);

/// Child-safe: a fork child that took rank `rank` of `nranks` at fork (NUMABIND_FORKS=ranks), and logged it
/// bound, execs `path`: it is no forked worker, and gave the rank and its binding back. Says so in a line,
/// at NUMABIND_LOG=info or always when RecordsRanks(): as text, or (JSON) with event "released", which ends
/// that pid's rank for `numabind report`.
void WriteGaveBack(uint32_t rank, uint32_t nranks, const char* path, const char* launch);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LOG_LOG_H_
