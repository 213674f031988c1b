// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Where a live process's memory and threads are, for `numabind show` (issue 37, issue 35): its resident
// memory per node, as `numastat -p` gives it, from its numa_maps (base/numa_maps.h: its own private
// anonymous memory, and file pages apart), and each thread's CPUs.

#ifndef NUMABIND_CLI_PROC_LOCALITY_H_
#define NUMABIND_CLI_PROC_LOCALITY_H_

#include <string>
#include <vector>

#include "base/numa_maps.h"

namespace numabind::cli {

/// The text of a numa_maps file, counted per node.
base::NodeMemory CountNumaMaps(const std::string& numa_maps);

/// "0:64.0M 1:2.1M": memory per node (anonymous, or `file`), "-" when there is none.
std::string PerNode(const base::NodeMemory& m, bool file);

struct ThreadInfo {
  long tid = 0;
  std::string name, cpus;
  bool outside = false;  ///< a CPU not in the process's own Cpus_allowed_list
};

/// The threads of process `pid` (its /proc/PID/task), each against the process's CPUs `process_cpus` (a
/// Linux list). Threads that exit meanwhile are left out.
std::vector<ThreadInfo> ReadThreads(long pid, const std::string& process_cpus);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_PROC_LOCALITY_H_
