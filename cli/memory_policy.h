// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A process's memory policy, as the kernel reports it (get_mempolicy, /proc/PID/numa_maps), written in the
// words NUMABIND_MEMORY uses (config::MemoryName), so that `show`, `plan`, the log and `report` say the
// same word for the same policy: MPOL_DEFAULT, which numa_maps calls "default", is "local".

#ifndef NUMABIND_CLI_MEMORY_POLICY_H_
#define NUMABIND_CLI_MEMORY_POLICY_H_

#include <string>

namespace numabind::cli {

/// The one mapping from a kernel memory policy (MPOL_* mode with its MPOL_F_* flags, and its node list
/// such as "0-1") to text: "local", "preferred:1", "bind:0-1", "interleave:0-3", "weighted:0-1",
/// "bind=static:0"; a mode numabind never applies keeps a name of its own ("mode-9:0").
std::string MemoryPolicyText(int mode_and_flags, const std::string& nodes);

/// This process's memory policy (get_mempolicy), in those words; "? (get_mempolicy: ...)" on failure.
std::string OwnMemoryPolicy();

/// The policy of numa_maps' first line ("7f..000 bind:0-1 anon=3 ...", "... prefer (many):0-1 ..."), read
/// back into a mode and written by MemoryPolicyText; "?" when the line has none.
std::string NumaMapsPolicy(const std::string& maps);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_MEMORY_POLICY_H_
