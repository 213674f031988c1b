// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The C entry point of libnumabind_core.so, the half of numabind that needs libstdc++ and hwloc. The shim
// (which links libc alone) dlopens it once, in a launcher that is about to start a rank, and never in a child
// between fork and exec. Errors are values: nothing throws across this boundary.

#ifndef NUMABIND_CORE_CORE_API_H_
#define NUMABIND_CORE_CORE_API_H_

#include <stddef.h>

#include "core/plan_basis.h"

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

/// The type of numabind_prepare, for dlsym.
typedef const numabind::core::PlanBasis* (*numabind_prepare_fn)(const numabind_prepare_request*, char*,
                                                                size_t);
}

#endif  // NUMABIND_CORE_CORE_API_H_
