// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_GUARD=1: a binding nothing can widen. In a rank numabind bound, sched_setaffinity and
// pthread_setaffinity_np calls for the rank's own threads are narrowed to the rank's CPUs (NCCL's temporary
// GPU-local mask, user code's os.sched_setaffinity with the whole machine); other processes' calls pass
// through. Raw system calls (syscall(SYS_sched_setaffinity): Intel OpenMP, libnuma, numactl) never reach a
// preloaded library and cannot be caught. Memory-policy calls are not guarded: docs/guard.md says why.
//
// Cost: each exported wrapper is one load of a function pointer and an indirect call. The pointer starts at
// a resolver that finds the next definition (libc's) with dlsym on the first call, then points at it; in a
// guarded rank it points at the guard from the constructor on, which resolved everything then, so the
// guard itself never calls dlsym, malloc or takes a lock (async-signal-safe), except the once-only log line.
// It reads the caller's mask itself: a mask pointer that is neither null nor readable faults in a guarded
// rank, where the kernel would answer EFAULT (checking it would cost a system call on every call).

#ifndef NUMABIND_SHIM_RANK_AFFINITY_GUARD_H_
#define NUMABIND_SHIM_RANK_AFFINITY_GUARD_H_

namespace numabind::shim {

/// Called once the process is a rank numabind bound (g_role, by BecomeRank: at start-up, or a forked
/// worker's setenv): with NUMABIND_GUARD=1, records the calling thread's CPUs as the rank's set and points
/// the affinity wrappers at the guard. Does nothing otherwise. Not child-side: dlsym, parent memory.
void ArmAffinityGuard();

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_AFFINITY_GUARD_H_
