// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Where a bound rank's memory and threads are when it ends (issue 37): what its JSON end event carries for
// `numabind report` to judge. Its planned CPUs are the ones it was bound to (kept by KeepPlannedCpus when
// it became a rank); its planned nodes are those of its CPUs and of its memory policy.

#ifndef NUMABIND_SHIM_RANK_LOCALITY_H_
#define NUMABIND_SHIM_RANK_LOCALITY_H_

#include <stdint.h>

#include "shim/log/end_event.h"

namespace numabind::shim {

/// Called as a process becomes a rank that writes its end (with a JSON log file and NUMABIND_LOCALITY=1):
/// keeps the calling thread's CPUs, the rank's, for MeasureLocality.
void KeepPlannedCpus();

/// Async-signal-safe (raw system calls, its own mapping): measures where the rank is now, into *out.
void MeasureLocality(Locality* out);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_LOCALITY_H_
