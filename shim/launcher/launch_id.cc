// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A launch's identity (shim/launcher/launch_id.h). Parent side only, but async-signal-safe like the
// preparation it is part of (_Fork prepares): raw system calls, buffers on the stack.

#include "shim/launcher/launch_id.h"

#include <fcntl.h>

#include "base/env.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "shim/state/state.h"

extern char** environ;

namespace numabind::shim {

static_assert(sizeof(State::launch) >= kLaunchMax, "g_state.launch holds a token");

namespace {

/// Appends s to out at *at (cap bytes with the NUL), whole or not at all.
bool Append(char* out, size_t* at, size_t cap, const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  if (*at + n + 1 > cap) return false;
  for (size_t i = 0; i < n; ++i) out[(*at)++] = s[i];
  out[*at] = '\0';
  return true;
}

/// Whether a scheduler's id may go into the token: short, and nothing that would need quoting in the text
/// line or split the token ('/', '@', spaces, controls).
bool PlainId(const char* v) {
  if (v == nullptr || *v == '\0') return false;
  size_t n = 0;
  for (; v[n] != '\0'; ++n) {
    unsigned char c = static_cast<unsigned char>(v[n]);
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '-' || c == '_' || c == ':' || c >= 0x80;
    if (!ok || n >= kLaunchStepMax - 8) return false;
  }
  return true;
}

/// The scheduler's step named by env into out ("" when none).
void FormatStep(const char* const* env, char* out, size_t cap) {
  size_t at = 0;
  out[0] = '\0';
  const char* job = base::Lookup(env, "SLURM_JOB_ID");
  const char* step = base::Lookup(env, "SLURM_STEP_ID");
  bool ok = false;
  if (PlainId(job) && PlainId(step)) {
    ok = Append(out, &at, cap, "slurm:") && Append(out, &at, cap, job) && Append(out, &at, cap, ".") &&
         Append(out, &at, cap, step);
  } else if (const char* flux = base::Lookup(env, "FLUX_JOB_ID"); PlainId(flux)) {
    ok = Append(out, &at, cap, "flux:") && Append(out, &at, cap, flux);
  } else if (const char* pbs = base::Lookup(env, "PBS_JOBID"); PlainId(pbs)) {
    ok = Append(out, &at, cap, "pbs:") && Append(out, &at, cap, pbs);
  }
  if (!ok) out[0] = '\0';
}

}  // namespace

uint64_t ProcessStartTicks(pid_t pid) {
  if (pid <= 0) return 0;
  char path[6 + base::kDecimalMax + 6] = "/proc/";
  size_t at = 6 + base::FormatDecimal(static_cast<uint64_t>(pid), path + 6);
  for (const char* s = "/stat"; *s != '\0'; ++s) path[at++] = *s;
  path[at] = '\0';
  long fd = base::OpenAt(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[1024];  // a command name of 16 bytes and 52 numbers: well under 1 KiB
  long got = base::Sys6(SYS_read, fd, reinterpret_cast<long>(buf), sizeof(buf) - 1);
  base::Sys6(SYS_close, fd);
  if (got <= 0) return 0;
  buf[got] = '\0';
  // The command name, in parentheses, may hold ") " itself: the fields start after the last ')'.
  const char* s = nullptr;
  for (const char* p = buf; *p != '\0'; ++p) {
    if (*p == ')') s = p + 1;
  }
  if (s == nullptr) return 0;
  for (int field = 2; field < 22; ++s) {  // field 2 ends at the ')'; each space starts the next
    if (*s == '\0') return 0;
    if (*s == ' ') ++field;
  }
  uint64_t v = 0;
  int digits = 0;
  for (; *s >= '0' && *s <= '9' && digits < 20; ++s, ++digits) v = v * 10 + static_cast<uint64_t>(*s - '0');
  return digits > 0 && (*s == ' ' || *s == '\n' || *s == '\0') ? v : 0;
}

void FormatLaunch(pid_t launcher, const char* const* env, char* out) {
  size_t at = 0;
  char step[kLaunchStepMax + 1];
  FormatStep(env, step, sizeof(step));
  out[0] = '\0';
  if (step[0] != '\0') Append(out, &at, kLaunchMax, step), Append(out, &at, kLaunchMax, "/");
  char digits[base::kDecimalMax + 1];
  digits[base::FormatDecimal(static_cast<uint64_t>(launcher > 0 ? launcher : 0), digits)] = '\0';
  Append(out, &at, kLaunchMax, digits);
  Append(out, &at, kLaunchMax, "@");
  uint64_t start = ProcessStartTicks(launcher);
  if (start == 0) {
    Append(out, &at, kLaunchMax, "?");
    return;
  }
  digits[base::FormatDecimal(start, digits)] = '\0';
  Append(out, &at, kLaunchMax, digits);
}

void NoteOwnLaunch() {
  if (g_state.launch[0] != '\0') return;
  FormatLaunch(static_cast<pid_t>(base::Sys6(SYS_getpid)), const_cast<const char* const*>(environ),
               g_state.launch);
}

}  // namespace numabind::shim
