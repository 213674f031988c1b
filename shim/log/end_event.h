// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What a bound rank's JSON end event says of where it is (issue 37): measured by shim/rank/locality.h,
// written by shim/log/json_log.h, judged by `numabind report`.

#ifndef NUMABIND_SHIM_LOG_END_EVENT_H_
#define NUMABIND_SHIM_LOG_END_EVENT_H_

#include <stdint.h>

#include "base/numa_maps.h"

namespace numabind::shim {

/// At most this many threads outside the rank's CPUs are named in the end event; the rest are counted.
constexpr uint32_t kNamedOutside = 4;

struct OutsideThread {
  int tid = 0;
  char name[16] = {};  ///< /proc/self/task/TID/comm
  char cpus[64] = {};  ///< its CPUs, a Linux list, cut at 63 characters
};

struct Locality {
  bool measured = false;     ///< NUMABIND_LOCALITY=1 and the rank's CPUs were kept
  base::NodeMemory memory;   ///< from /proc/self/numa_maps
  uint64_t nodes[2] = {};    ///< its planned nodes (0..127)
  uint64_t local_kb = 0;     ///< private anonymous memory on them
  int64_t most_remote = -1;  ///< the node (not planned) that holds most of the rest; -1: none
  uint32_t threads = 0;      ///< threads seen
  uint32_t outside = 0;      ///< threads with a CPU outside the rank's
  OutsideThread named[kNamedOutside];
};

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LOG_END_EVENT_H_
