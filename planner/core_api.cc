// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// numabind_prepare: the C entry point of the planner, run by `numabind plan` and `numabind prepare-basis`.
// Errors are values; nothing below throws (no throw statements; an allocation failure of the standard library
// would end the process, as it would anywhere else in a launcher).

#include "planner/core_api.h"

#include <string.h>

#include <algorithm>
#include <string>

#include "planner/planner.h"

extern "C" const numabind::core::PlanBasis* numabind_prepare(const numabind_prepare_request* request,
                                                             char* err, size_t errlen) {
  std::string why;
  const numabind::core::PlanBasis* basis = nullptr;
  if (!request || !request->policy) {
    why = "NUMABIND_POLICY is not set";
  } else {
    basis = numabind::core::Prepare(*request, &why);
  }
  if (err && errlen > 0) {
    size_t n = basis ? 0 : std::min(why.size(), errlen - 1);
    memcpy(err, why.data(), n);
    err[n] = '\0';
  }
  return basis;
}
