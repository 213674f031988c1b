// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one reading of /proc/PID/stat, for every context (the child side included): raw system calls and a
// stack buffer. By-order ranks (shim/child/order_counter.cc) and NUMABIND_BOUND's proof
// (shim/child/bound_marker.cc) read a process's parent and start time from it.

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

}  // namespace numabind::base

#endif  // NUMABIND_BASE_PROC_STAT_H_
