// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FILE's % sequences (base/log_path.cc): %h the short host name, %j the job id, %p the pid, %%
// a '%'. The one expansion: the library opens the file it names (shim/log/log.cc), `numabind report` finds
// a job's files with it (the host and the pid as wildcards). Child-safe: no allocation, raw system calls.

#ifndef NUMABIND_BASE_LOG_PATH_H_
#define NUMABIND_BASE_LOG_PATH_H_

#include <stddef.h>

namespace numabind::base {

/// Room ShortHostName's buffer needs: uname(2)'s nodename (64 bytes) and the NUL.
constexpr size_t kHostNameMax = 65;

/// Child-safe: the job id %j stands for: the first of SLURM_JOB_ID, PBS_JOBID, LSB_JOBID and FLUX_JOB_ID
/// set and not empty in `env`, else "nojob".
const char* LogJobId(const char* const* env);
/// The same, of those four variables' values (nullptr when unset), as an environment's one pass found them.
const char* LogJobId(const char* slurm, const char* pbs, const char* lsb, const char* flux);

/// Child-safe: the short host name (uname(2)'s nodename up to its first '.') into `out` (kHostNameMax
/// bytes); "nohost" when uname fails or the name is empty.
void ShortHostName(char* out);

/// What a NUMABIND_LOG_FILE value's % sequences stand for.
struct LogPathFields {
  const char* host;  ///< %h
  const char* job;   ///< %j
  const char* pid;   ///< %p
};

/// Child-safe: whether `value` has a % sequence to expand.
bool HasLogPathFields(const char* value);

/// Child-safe: `pattern` with %h, %j and %p replaced by `fields` ('/' in a value, and a value that is "." or
/// "..", written with '_': a host or job id never adds a directory) and %% by '%'; any other '%' stays as it
/// is. Into `out`, `cap` bytes with the NUL; returns the length, or 0 when it does not fit.
size_t ExpandLogPath(const char* pattern, const LogPathFields& fields, char* out, size_t cap);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_LOG_PATH_H_
