// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank planned on NUMABIND_TOPOLOGY (an hwloc XML file, a synthetic description) onto CPUs or nodes this
// machine does not have. Some of them missing is no error: the kernel keeps the CPUs that are here (tests
// plan on topologies larger than the machine for that), and a memory policy the nodes that are. All of them
// missing, the kernel answers EINVAL and nothing more: the line names them and where the topology came from.

#ifndef NUMABIND_SHIM_CHILD_ABSENT_H_
#define NUMABIND_SHIM_CHILD_ABSENT_H_

#include "shim/child/child.h"

namespace numabind::shim {

/// Child-safe: with a.prepared->absent (not nullptr): when none of the plan's CPUs is on this machine, rank m
/// is not bound, Fail's line names them ("its CPUs 4-7 are not on this machine (NUMABIND_TOPOLOGY=...)"),
/// *result is Fail's and it returns true; when none of its nodes is (and a memory policy names them), one
/// warn line says so. False otherwise: the plan is bound as it is.
bool TakeOutAbsent(const ChildArgs& a, const char* path, const RankMatch& m, const plan::PlanBasis& basis,
                   plan::RankPlan* plan, int* err, BindResult* result);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_ABSENT_H_
