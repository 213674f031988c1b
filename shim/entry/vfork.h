// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The C side of the vfork trampoline (vfork_x86_64.S; fork_wrappers.cc defines them).

#ifndef NUMABIND_SHIM_ENTRY_VFORK_H_
#define NUMABIND_SHIM_ENTRY_VFORK_H_

/// Parent side, before every vfork (called by the trampoline in vfork_x86_64.S): prepares, and keeps
/// `caller` (the vfork caller's return address, which the child overwrites on the stack they share).
extern "C" void numabind_before_vfork(void* caller);

/// After vfork returns (`pid`: 0 in the child), in both processes: in the parent, unmaps what the child's
/// exec wrapper mapped (t_exec_mapping, shim/child/rank_exports.h). Returns the caller's return address.
extern "C" void* numabind_after_vfork(int pid);

#endif  // NUMABIND_SHIM_ENTRY_VFORK_H_
