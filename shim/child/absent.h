// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank planned on NUMABIND_TOPOLOGY (an hwloc XML file, a synthetic description) onto CPUs or nodes this
// machine does not have: the kernel would clip the CPUs silently, or refuse with EINVAL and nothing more.
// The rank is bound to what is here and the line names what is missing and where the topology came from.

#ifndef NUMABIND_SHIM_CHILD_ABSENT_H_
#define NUMABIND_SHIM_CHILD_ABSENT_H_

#include "shim/child/child.h"

namespace numabind::shim {

/// Child-safe: takes the CPUs and nodes of a.prepared->absent (not nullptr) out of *plan, saying which at
/// warn ("CPUs 2-3 of its plan 0-3 are not on this machine (NUMABIND_TOPOLOGY=...): bound to the others").
/// With none of its CPUs here, rank m is not bound: Fail's line names them, *result is Fail's, and it
/// returns true. Nodes all missing leave the plan's, which the kernel then refuses (memory unchanged).
bool TakeOutAbsent(const ChildArgs& a, const char* path, const RankMatch& m, const plan::PlanBasis& basis,
                   plan::RankPlan* plan, int* err, BindResult* result);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_ABSENT_H_
