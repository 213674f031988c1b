// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A launcher's preparation: the plan basis from the shared directory or the planner helper, once per
// process (shim/launcher/prepare.cc), and the debug log's call stack.

#ifndef NUMABIND_SHIM_LAUNCHER_PREPARE_H_
#define NUMABIND_SHIM_LAUNCHER_PREPARE_H_

#include <stddef.h>

#include "plan/plan_basis.h"

namespace numabind::shim {

/// Parent side: runs the planner helper and prepares the basis, once per process (thread-safe and
/// async-signal-safe). Returns g_state.basis (nullptr on failure, reason in g_state.prepare_error).
const plan::PlanBasis* EnsurePrepared();

/// Parent side, NUMABIND_LOG=debug: records the calling stack into g_state.stack (libunwind via dlopen).
void CaptureStack();
/// The calling stack into out (cap bytes, NUL-terminated), one "  #i symbol (file)" line per frame;
/// `callers_only` leaves out the frames inside this library.
void CaptureStack(char* out, size_t cap, bool callers_only);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LAUNCHER_PREPARE_H_
