// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A launch's identity (shim/launcher/launch_id.h). Parent side only, but async-signal-safe like the
// preparation it is part of (_Fork prepares): raw system calls, buffers on the stack.

#include "shim/launcher/launch_id.h"

#include "base/proc_stat.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "shim/state/state.h"

namespace numabind::shim {

static_assert(sizeof(Prepared::launch) >= kLaunchMax, "g_prepared.launch holds a token");

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

/// The scheduler's step named by the facts into out ("" when none).
void FormatStep(const config::EnvFacts& f, char* out, size_t cap) {
  size_t at = 0;
  out[0] = '\0';
  const char* job = f.slurm_job_id;
  const char* step = f.slurm_step_id;
  bool ok = false;
  if (PlainId(job) && PlainId(step)) {
    ok = Append(out, &at, cap, "slurm:") && Append(out, &at, cap, job) && Append(out, &at, cap, ".") &&
         Append(out, &at, cap, step);
  } else if (const char* flux = f.flux_job_id; PlainId(flux)) {
    ok = Append(out, &at, cap, "flux:") && Append(out, &at, cap, flux);
  } else if (const char* pbs = f.pbs_jobid; PlainId(pbs)) {
    ok = Append(out, &at, cap, "pbs:") && Append(out, &at, cap, pbs);
  }
  if (!ok) out[0] = '\0';
}

}  // namespace

void FormatLaunch(pid_t launcher, const config::EnvFacts& facts, char* out) {
  size_t at = 0;
  char step[kLaunchStepMax + 1];
  FormatStep(facts, step, sizeof(step));
  out[0] = '\0';
  if (step[0] != '\0') Append(out, &at, kLaunchMax, step), Append(out, &at, kLaunchMax, "/");
  char digits[base::kDecimalMax + 1];
  digits[base::FormatDecimal(static_cast<uint64_t>(launcher > 0 ? launcher : 0), digits)] = '\0';
  Append(out, &at, kLaunchMax, digits);
  Append(out, &at, kLaunchMax, "@");
  base::ProcStat stat;
  if (!base::ReadProcStat(launcher, &stat) || stat.start == 0) {
    Append(out, &at, kLaunchMax, "?");
    return;
  }
  digits[base::FormatDecimal(stat.start, digits)] = '\0';
  Append(out, &at, kLaunchMax, digits);
}

void NoteOwnLaunch() {
  if (g_prepared.launch[0] != '\0') return;
  FormatLaunch(static_cast<pid_t>(base::Sys6(SYS_getpid)), g_startup.facts, g_prepared.launch);
}

}  // namespace numabind::shim
