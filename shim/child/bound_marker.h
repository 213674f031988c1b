// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_BOUND's value (its grammar: config/bound_marker.h): "VAR=value", the rank variable a rank was
// bound by, then (when numabind bound it) " cpus=LIST by=PID" (and " spawned" when PID is the launcher that
// started it bound), the proof that tells a binding numabind made from one it did not. A launcher running
// inside a rank (`srun --ntasks-per-node=2 torchrun`, `mpirun -np 2 script`) plans its ranks inside that
// rank's CPUs only when the proof holds: its CPUs are within the ones recorded, and the process recorded is
// itself or an ancestor. A NUMABIND_BOUND copied into another job, or a rank that widened its own binding
// since, fails it, and the binding is replaced as any foreign one (Slurm's, a taskset's).

#ifndef NUMABIND_SHIM_CHILD_BOUND_MARKER_H_
#define NUMABIND_SHIM_CHILD_BOUND_MARKER_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shim/state/state.h"

namespace numabind::shim {

/// Child-safe: whether a NUMABIND_BOUND value names rank variable entry `entry` ("VAR=value"): equal up to
/// the proof, after a space.
bool BoundBy(const char* bound, const char* entry);

/// Child-safe: appends " cpus=LIST by=PID" (the calling thread's CPUs, in the prepared basis's `cpu_words`,
/// and this process) to the marker of length len in a buffer of cap bytes, then " spawned" when this process
/// is not the rank but the launcher that starts it bound (a spawn: `spawned`); nothing when it does not fit.
void AppendBoundProof(char* marker, size_t len, size_t cap, uint32_t cpu_words, bool spawned);

/// Whether the calling thread runs inside a binding numabind made: the proof in NUMABIND_BOUND value
/// `bound` holds (above). Raw reads of /proc/PID/stat.
bool InsideNumabindBinding(const char* bound);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_BOUND_MARKER_H_
