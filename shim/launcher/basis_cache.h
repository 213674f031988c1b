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
// replaced. Files are written whole under a temporary name (.basis-HASH.PID.NS: its writer is known), then
// renamed; a writer first removes the temporaries of writers that died (shim/launcher/basis_herd.cc).
//
// One preparation per machine and configuration: when there is no file to trust, the first process takes
// the configuration's lock (lock-HASH, flock'd: the kernel releases it when its holder dies) and prepares,
// and the others wait for its file instead of each running the helper (a herd, at boot or after CPU
// hotplug), within the helper's own time bound.

#ifndef NUMABIND_SHIM_LAUNCHER_BASIS_CACHE_H_
#define NUMABIND_SHIM_LAUNCHER_BASIS_CACHE_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::shim {

struct HelperRun;

/// What names one preparation's shared basis, made once per preparation (SharedBasisKey): the helper that
/// would otherwise run (its file is part of the machine's identity) and the hash of what the basis depends
/// on in this process (the helper, the configuration, the environment the helper reads, the CPUs and nodes
/// it may use).
struct SharedKey {
  const char* helper;
  uint64_t name;
};

/// The key of this process's basis now; `planner_env` is the environment the helper gets (what the planner
/// reads of this process's, shim/launcher/prepare.cc), whose planner entries (PlannerReads) it hashes.
SharedKey SharedBasisKey(const char* helper, char* const* planner_env);

/// The helper's answer (a plan::BasisFrameHeader and its payload) shared for `key` and the machine's state,
/// into run->out (mmap'd: release with FreeHelperOutput) and run->size; false when there is none to trust.
/// Async-signal-safe (no malloc), like the helper launch it saves.
bool LoadSharedBasis(const SharedKey& key, HelperRun* run);

/// Shares a basis frame the helper just produced; failures only mean the next process prepares again.
void StoreSharedBasis(const SharedKey& key, const char* frame, size_t size);

/// Whether the planner helper reads the environment entry ("NAME=value"): hwloc's HWLOC_* and the device
/// lists planner/devices.cc reads (CUDA_VISIBLE_DEVICES...), these unless `all_devices` (a device's rank,
/// NUMABIND_BY_DEVICE, is planned over every device of the machine, not the one it sees). The helper is
/// given only these (with what starts it), and the shared basis is named by them. Async-signal-safe.
bool PlannerReads(const char* entry, bool all_devices);

/// The configuration's lock, held while this process prepares; released (closed) when it goes out of
/// scope, after StoreSharedBasis.
struct PreparationLock {
  int fd = -1;
  PreparationLock() = default;
  ~PreparationLock();
  PreparationLock(const PreparationLock&) = delete;
  PreparationLock& operator=(const PreparationLock&) = delete;
};

/// LoadSharedBasis, and when there is no basis to trust, one preparation per configuration: true with the
/// basis in `run` when it is (or, waiting, becomes) there; false when this process must prepare, holding
/// lock->fd when it got the configuration's lock. Waits for the process holding it at most timeout_ms
/// (inotify on the directory: woken by the file's rename or the lock's release, when the holder ends or
/// dies and one of the waiters takes over), then prepares without it. A signal handler that runs ends the
/// wait too (the host may have something to do). No signal is blocked or handled here, so a signal's
/// default action (SIGTERM) takes effect at once; every descriptor opened here is closed but lock->fd.
bool AwaitSharedBasis(const SharedKey& key, int timeout_ms, HelperRun* run, PreparationLock* lock);

// Shared by basis_cache.cc and basis_herd.cc.

/// DIR/numabind-UID opened (created when missing), or -1 when it is not the user's own private directory.
int OpenSharedDirectory();

/// Removes the temporaries (.basis-HASH.PID.NS) in `dir` whose writer is dead or that are older than any
/// write takes. Called by a writer before it writes its own, never on the path that only reads.
void RemoveStaleTemporaries(int dir);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LAUNCHER_BASIS_CACHE_H_
