// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FILE's % sequences (base/log_path.h): plain loops and one raw uname(2).

#include "base/log_path.h"

#include <sys/utsname.h>

#include "base/env.h"
#include "base/syscalls.h"

namespace numabind::base {

// Child-safe: reads `env`.
const char* LogJobId(const char* const* env) {
  // A chain, not an array of names: pointers in a table would be relocations for the loader.
  return LogJobId(Lookup(env, "SLURM_JOB_ID"), Lookup(env, "PBS_JOBID"), Lookup(env, "LSB_JOBID"),
                  Lookup(env, "FLUX_JOB_ID"));
}

// Child-safe: reads four strings.
const char* LogJobId(const char* slurm, const char* pbs, const char* lsb, const char* flux) {
  const char* ids[] = {slurm, pbs, lsb, flux};  // the order of precedence
  for (const char* v : ids) {
    if (v != nullptr && *v != '\0') return v;
  }
  return "nojob";
}

// Child-safe: one raw system call, the name copied on the stack.
void ShortHostName(char* out) {
  utsname u;
  size_t n = 0;
  if (Sys6(SYS_uname, reinterpret_cast<long>(&u)) == 0) {
    for (; n + 1 < kHostNameMax && n < sizeof(u.nodename); ++n) {
      // uname(2) wrote the name: the analyzer does not see through the raw system call.
      char c = u.nodename[n];  // NOLINT(clang-analyzer-core.uninitialized.Assign)
      if (c == '\0' || c == '.') break;
      out[n] = c;
    }
  }
  if (n == 0) {
    const char kNone[] = "nohost";
    for (; kNone[n] != '\0'; ++n) out[n] = kNone[n];
  }
  out[n] = '\0';
}

// Child-safe: reads a string.
bool HasLogPathFields(const char* value) {
  for (const char* s = value; *s != '\0'; ++s) {
    if (s[0] == '%' && (s[1] == 'h' || s[1] == 'j' || s[1] == 'p' || s[1] == '%')) return true;
  }
  return false;
}

// Child-safe: writes into the caller's buffer.
size_t ExpandLogPath(const char* pattern, const LogPathFields& fields, char* out, size_t cap) {
  size_t n = 0;
  for (const char* s = pattern; *s != '\0'; ++s) {
    const char* value = nullptr;
    if (s[0] == '%') {
      value = s[1] == 'h' ? fields.host : s[1] == 'j' ? fields.job : s[1] == 'p' ? fields.pid : nullptr;
      if (s[1] == '%') value = "%";
    }
    if (value == nullptr) {
      if (n + 1 >= cap) return 0;
      out[n++] = *s;
      continue;
    }
    ++s;
    // A value is never a path of its own: '/' becomes '_', and so do the dots of "." and "..".
    bool dots = value[0] == '.' && (value[1] == '\0' || (value[1] == '.' && value[2] == '\0'));
    for (const char* v = value; *v != '\0'; ++v) {
      if (n + 1 >= cap) return 0;
      out[n++] = *v == '/' || dots ? '_' : *v;
    }
  }
  if (n >= cap) return 0;
  out[n] = '\0';
  return n;
}

}  // namespace numabind::base
