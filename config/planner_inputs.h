// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The planner's inputs from the configuration, listed once. The library sends them to the planner helper
// as `numabind prepare-basis --NAME VALUE ...` (shim/launcher/prepare.cc), names its shared basis by them
// (shim/launcher/basis_cache.cc) and the helper reads them back into its request (planner::RequestFromArgs):
// all three walk this list, so an input added here reaches each, and one left out reaches none. The
// environment the planner reads (HWLOC_*, the device lists) travels beside it (PlannerReads).

#ifndef NUMABIND_CONFIG_PLANNER_INPUTS_H_
#define NUMABIND_CONFIG_PLANNER_INPUTS_H_

#include <stddef.h>

#include "config/config.h"

namespace numabind::config {

/// X(Enumerator, "--option"): each input, in the order the helper's argv gives them.
#define NUMABIND_PLANNER_INPUTS(X) \
  X(kInputPolicy, "--policy")      \
  X(kInputMemory, "--memory")      \
  X(kInputDevices, "--devices")    \
  X(kInputTopology, "--topology")  \
  X(kInputNics, "--nics")          \
  X(kInputSmt, "--smt")            \
  X(kInputCoreKinds, "--core-kinds")

enum PlannerInput : int {
#define NUMABIND_INPUT_ENUM(e, option) e,
  NUMABIND_PLANNER_INPUTS(NUMABIND_INPUT_ENUM)
#undef NUMABIND_INPUT_ENUM
      kPlannerInputCount
};

/// Each input's helper option ("--policy", ...), indexed by PlannerInput; characters, not pointers (no
/// relocation at a process's start: config/vars.h).
constexpr size_t kPlannerOptionMax = 16;
extern const char kPlannerInputOptions[kPlannerInputCount][kPlannerOptionMax];

/// Each input's text in `c`, indexed by PlannerInput; nullptr when it is not given (the planner's default:
/// no topology file, no NIC tables). Child-safe: pointers into `c` and string literals.
void PlannerInputTexts(const Config& c, const char* out[kPlannerInputCount]);

/// The input whose option is `option`, or -1.
int PlannerInputOf(const char* option);

/// "--option", "text" pairs for each given text into argv (room for 2 * kPlannerInputCount); the count
/// written. The helper's argv and the basis's name are both made from these pairs.
int PlannerInputArgs(const char* const texts[kPlannerInputCount], const char** argv);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_PLANNER_INPUTS_H_
