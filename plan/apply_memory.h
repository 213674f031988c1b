// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank's memory policy set on the calling thread, with the kernel's refusals turned into what it takes
// instead. One function for the library's child side (shim/child/child.cc, between fork and exec) and
// `numabind bind`, so that a command bound by hand gets what a launched rank gets. Raw system calls only.

#ifndef NUMABIND_PLAN_APPLY_MEMORY_H_
#define NUMABIND_PLAN_APPLY_MEMORY_H_

#include "config/config.h"
#include "plan/plan_basis.h"

namespace numabind::plan {

/// What a rank's memory policy became: the one asked for, or what the kernel took instead.
struct MemoryOutcome {
  config::MemoryKind applied = config::MemoryKind::kLocal;
  const char* why = nullptr;  ///< the kernel lacks the mode asked for (near, weighted): say it once
  long refused = 0;           ///< -errno of the refusal that made it fall back to bind or preferred
};

/// Child-safe: sets the calling thread's memory policy for `plan` (computed from `basis`): the policy asked
/// for, else what a kernel without near's or weighted's mode takes instead (out->why); when the kernel
/// refuses that too (EINVAL: nodes it will not take; EPERM: a seccomp filter on the mode), bind over the
/// rank's nodes, then preferred on its own node. Returns 0 or the last -errno; *out names what was applied.
long ApplyMemory(const RankPlan& plan, const PlanBasis& basis, MemoryOutcome* out);

}  // namespace numabind::plan

#endif  // NUMABIND_PLAN_APPLY_MEMORY_H_
