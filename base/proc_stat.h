// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one reading of /proc/PID/stat and /proc/PID/environ, for every context (the child side included): raw
// system calls and stack buffers. By-order ranks (shim/child/order_counter.cc), NUMABIND_BOUND's proof
// (shim/child/bound_marker.cc) and launches (shim/launcher/launch_id.cc) read a process's parent and start
// time; the order counter and a rank's end (shim/entry/start.cc) another process's environment.

#ifndef NUMABIND_BASE_PROC_STAT_H_
#define NUMABIND_BASE_PROC_STAT_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::base {

struct ProcStat {
  char state = '?';    ///< the 3rd field: R, S, D, Z...
  long ppid = 0;       ///< the 4th
  uint64_t start = 0;  ///< the 22nd: clock ticks after boot; with the pid, a process's identity
};

/// Reads the fields of a /proc/PID/stat text (len bytes). The fields are counted after the command name
/// in parentheses, which may itself hold ") ". False when the text is not one. Child-safe.
bool ParseProcStat(const char* text, size_t len, ProcStat* out);

/// /proc/PID/stat of process `pid` read and parsed; false when it is gone. Child-safe.
bool ReadProcStat(long pid, ProcStat* out);

/// Whether process pid's environment as it started (/proc/PID/environ) has an entry that is `prefix`
/// followed by `rest` (nullptr: nothing): the whole entry when `whole`, else its start. False when it cannot
/// be read. Read in pieces on the stack, matched across their borders. Child-safe.
bool ProcEnvironHas(long pid, const char* prefix, const char* rest, bool whole);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_PROC_STAT_H_
