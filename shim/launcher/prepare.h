// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A launcher's preparation: the plan basis from the shared directory or the planner helper, once per
// process (shim/launcher/prepare.cc), and the debug log's call stack.

#ifndef NUMABIND_SHIM_LAUNCHER_PREPARE_H_
#define NUMABIND_SHIM_LAUNCHER_PREPARE_H_

#include <stddef.h>

#include "config/env_facts.h"
#include "plan/plan_basis.h"

namespace numabind::shim {

/// Parent side: runs the planner helper and prepares the basis, once per process (thread-safe and
/// async-signal-safe), into g_prepared. Returns g_prepared.basis (nullptr on failure, reason in
/// g_prepared.error). `facts`: the caller's one pass over this process's environment (a rank binding itself
/// at start-up: g_startup.facts), what the planner reads of it; nullptr: its environment now, read in one
/// pass (a launcher may have changed it since its start-up). `all_devices`: a device's rank
/// (NUMABIND_BY_DEVICE) is planned over every device of the machine, without the visibility variables
/// (PlannerReads, shim/launcher/basis_cache.h).
const plan::PlanBasis* EnsurePrepared(const config::EnvFacts* facts = nullptr, bool all_devices = false);

/// Parent side, at prepare time: when the basis was planned on NUMABIND_TOPOLOGY, the CPUs and nodes it
/// names that are not online here, into g_prepared.absent (shim/child/absent.h takes them out of a rank's
/// plan and says so); nothing for the machine itself.
void NoteAbsent(const plan::PlanBasis& basis);

/// Parent side, NUMABIND_LOG=debug: records the calling stack into g_prepared.stack, a page mapped at the
/// first call (libunwind via dlopen).
void CaptureStack();
/// The calling stack into out (cap bytes, NUL-terminated), one "  #i symbol (file)" line per frame;
/// `callers_only` leaves out the frames inside this library.
void CaptureStack(char* out, size_t cap, bool callers_only);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LAUNCHER_PREPARE_H_
