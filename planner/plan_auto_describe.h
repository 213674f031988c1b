// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What NUMABIND_POLICY=auto decided, in words, for `numabind plan` (plan_auto.h says how it decides).

#ifndef NUMABIND_PLANNER_PLAN_AUTO_DESCRIBE_H_
#define NUMABIND_PLANNER_PLAN_AUTO_DESCRIBE_H_

#include <string>
#include <vector>

#include "plan/plan_basis.h"

namespace numabind::planner {

/// One line from the shares of the placed ranks (RankPlan::share) of nranks: where ranks go, how many,
/// the level auto shared the CPUs out at and whether a last-level cache was split, e.g. "auto: 2 devices
/// on nodes 1-2, 4 ranks -> exclusive (2 ranks per device node): 1 of 2 L3 per rank, L3 kept whole".
std::string DescribeAuto(const plan::PlanBasis& basis, uint32_t nranks,
                         const std::vector<plan::AutoShare>& shares);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_PLAN_AUTO_DESCRIBE_H_
