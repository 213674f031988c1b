// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The planner's entry point with a C signature: topology and configuration text in, one malloc'd plan basis
// (plan/plan_basis.h) out. `numabind plan` and `numabind prepare-basis` (the helper the library runs, which
// sends the basis back over a pipe: shim/launcher/prepare.cc) call it; the library itself never links or
// loads the planner. Errors are values: nothing throws across this boundary.

#ifndef NUMABIND_PLANNER_CORE_API_H_
#define NUMABIND_PLANNER_CORE_API_H_

#include <stddef.h>

#include "plan/plan_basis.h"

extern "C" {

/// What to plan for; every pointer may be nullptr for the default.
struct numabind_prepare_request {
  const char* topology;    ///< nullptr or "" = live machine; an hwloc XML path; or "synthetic:DESC"
  const char* policy;      ///< NUMABIND_POLICY text (required)
  const char* memory;      ///< NUMABIND_MEMORY text, default "local"
  const char* devices;     ///< NUMABIND_DEVICES text, default "auto"
  const char* const* env;  ///< the launcher's environment, for CUDA_VISIBLE_DEVICES and friends
  int want_nics;           ///< 1: discover HCAs and give each rank its nearest (NUMABIND_EXPORT has nic)
};

/// Loads the topology and builds the basis, as one malloc'd block that lives until the process ends.
/// Returns nullptr with a one-line reason in err (errlen bytes, NUL-terminated) on failure.
const numabind::core::PlanBasis* numabind_prepare(const numabind_prepare_request* request, char* err,
                                                  size_t errlen);
}

#endif  // NUMABIND_PLANNER_CORE_API_H_
