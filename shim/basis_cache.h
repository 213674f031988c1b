// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shared plan basis: what `numabind prepare-basis` answered, kept in a file so that the other
// processes of the same user on the same machine, with the same configuration and allowed CPUs and nodes,
// read it (well under a millisecond) instead of discovering the topology again (5 to 19 ms). Parent side
// only.
//
// The file lives in DIR/numabind-UID (NUMABIND_SHARED, default /dev/shm), a directory of mode 0700 that
// must belong to the user; a file is used only when it is a regular file of the user's, writable by no one
// else. Its name hashes the configuration (policy, memory, devices, topology, the device-visibility and
// HWLOC_* variables) and the allowed CPUs and nodes (a different cgroup cpuset is another file); inside, an
// identity of the machine's state (boot, online CPUs and nodes, the helper and topology files) is checked,
// and a file that no longer matches (CPU hotplug, reboot, a rebuilt numabind) is prepared again and
// replaced. Files are written whole under a temporary name, then renamed.

#ifndef NUMABIND_SHIM_BASIS_CACHE_H_
#define NUMABIND_SHIM_BASIS_CACHE_H_

#include <stddef.h>

namespace numabind::shim {

struct HelperRun;

/// The helper's answer (a core::BasisFrameHeader and its payload) shared for this process's configuration
/// and machine state, into run->out (mmap'd: release with FreeHelperOutput) and run->size; false when there
/// is none to trust. `helper` is the planner that would otherwise run (its file is part of the identity).
/// Async-signal-safe (no malloc), like the helper launch it saves.
bool LoadSharedBasis(const char* helper, HelperRun* run);

/// Shares a basis frame the helper just produced; failures only mean the next process prepares again.
void StoreSharedBasis(const char* helper, const char* frame, size_t size);

/// Whether the planner helper reads the environment entry ("NAME=value"): hwloc's HWLOC_* and the device
/// lists core/devices.cc reads (CUDA_VISIBLE_DEVICES...). The helper is given only these (with what starts
/// it), and the shared basis is named by them. Async-signal-safe.
bool PlannerReads(const char* entry);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_BASIS_CACHE_H_
