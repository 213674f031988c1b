// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_BOUND's grammar, read by the library (a rank's start-up, a launcher inside a rank:
// shim/child/bound_marker.h) and by `numabind ps`, which lists the processes that carry it. The value is
// "VAR=value", the rank variable the rank was bound by, then, when numabind bound it, " cpus=LIST by=PID":
// the CPUs it was bound to and the process that bound them, the rank itself (before its exec, or at its
// start-up), or with " spawned" after it its launcher, which started it bound (posix_spawn, system,
// popen). Child-safe throughout: no allocation, no system calls.

#ifndef NUMABIND_CONFIG_BOUND_MARKER_H_
#define NUMABIND_CONFIG_BOUND_MARKER_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/limits.h"

namespace numabind::config {

/// The "variable" of the NUMABIND_BOUND that `numabind bind` gives the command it runs ("bind=R cpus=..."):
/// no rank variable, the rank bind was told.
constexpr char kBoundByBind[] = "bind";

/// What a NUMABIND_BOUND value's proof says: the CPUs numabind bound the rank to and the process that did.
struct BoundProof {
  uint64_t cpus[kMaxCpuWords] = {0};
  pid_t by = 0;
  /// " spawned": `by` is the launcher that started the rank bound, its parent, not the rank. Without it, `by`
  /// is the rank, and a process whose parent it is, is the rank's child (its exit is no rank's end).
  bool spawned = false;
};

/// Child-safe: reads the proof of a NUMABIND_BOUND value; false when it has none or it does not parse.
bool ParseBoundProof(const char* bound, BoundProof* out);

/// A NUMABIND_BOUND value, read: pointers into it.
struct BoundMarker {
  const char* var = nullptr;  ///< the rank variable ("LOCAL_RANK"), var_len bytes
  size_t var_len = 0;
  const char* value = nullptr;  ///< its value ("1"), value_len bytes
  size_t value_len = 0;
  bool has_proof = false;  ///< " cpus=LIST by=PID" follows and parses (ParseBoundProof): numabind bound it
  BoundProof proof;
};

/// Child-safe: splits a NUMABIND_BOUND value into its variable, value and proof. False when it does not
/// begin with "VAR=" (a name of letters, digits and underscores).
bool ParseBoundMarker(const char* bound, BoundMarker* out);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_BOUND_MARKER_H_
