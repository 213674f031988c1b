// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A launch's identity, on every rank line (shim/log/log.h): which launch of a job a rank belongs to, so
// that `numabind report` judges two launches one after the other each on its own. The launcher is the
// process that prepared the plan (a rank binding itself: its parent, slurmstepd or torchrun). Its pid and
// start time (field 22 of /proc/PID/stat, clock ticks since boot) name it on its host for as long as the
// machine is up, pid reuse included; the scheduler's step, where there is one, names the launch across
// hosts. Computed on the parent side, once per launcher, never between fork and exec.

#ifndef NUMABIND_SHIM_LAUNCHER_LAUNCH_ID_H_
#define NUMABIND_SHIM_LAUNCHER_LAUNCH_ID_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/env_facts.h"

namespace numabind::shim {

/// The longest token FormatLaunch writes, with its NUL: a step of kLaunchStepMax bytes, '/', a pid and a
/// start time of 20 digits each, '@'.
constexpr size_t kLaunchStepMax = 48;
constexpr size_t kLaunchMax = kLaunchStepMax + 1 + 20 + 1 + 20 + 1;

/// Parent side: the launch token of `launcher` into `out` (kLaunchMax bytes): "PID@START", START its start
/// time in clock ticks after boot (base::ReadProcStat; "PID@?" when it cannot be read), after "STEP/" when
/// the environment's `facts` name a scheduler's step: "slurm:JOB.STEP" (SLURM_JOB_ID and SLURM_STEP_ID: a
/// step's tasks, not a batch script), else "flux:FLUX_JOB_ID", else "pbs:PBS_JOBID". A step value longer than
/// kLaunchStepMax, or with a byte that is not a letter, digit, '.',
/// '-', '_' or ':' (or UTF-8, as Flux's ids), is left out.
void FormatLaunch(pid_t launcher, const config::EnvFacts& facts, char* out);

/// Parent side: g_prepared.launch for the ranks this process starts, once (when it is still empty): its own
/// token. A rank binding itself sets its parent's first (shim/rank/self_bind.cc).
void NoteOwnLaunch();

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LAUNCHER_LAUNCH_ID_H_
