// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "config/planner_inputs.h"

#include "base/text.h"

#include "config/grammar.h"

namespace numabind::config {

const char kPlannerInputOptions[kPlannerInputCount][kPlannerOptionMax] = {
#define NUMABIND_INPUT_OPTION(e, option) option,
    NUMABIND_PLANNER_INPUTS(NUMABIND_INPUT_OPTION)
#undef NUMABIND_INPUT_OPTION
};

void PlannerInputTexts(const Config& c, const char* out[kPlannerInputCount]) {
  // A new input in NUMABIND_PLANNER_INPUTS needs its text here and its reading in planner::RequestFromArgs.
  static_assert(kPlannerInputCount == 7, "give every planner input its text");
  // Characters, not pointers: no relocation at a process's start (config/vars.h).
  static const char kSmtTexts[kMaxSmt + 1][2] = {"0", "1", "2", "3", "4", "5", "6", "7", "8"};
  out[kInputPolicy] = c.policy.text;
  out[kInputMemory] = MemoryName(c.memory);
  out[kInputDevices] = c.devices.text;
  out[kInputTopology] = c.topology;
  out[kInputNics] = (c.exports & kExportNic) != 0 ? "1" : nullptr;
  out[kInputSmt] = c.smt != 0 && c.smt <= kMaxSmt ? kSmtTexts[c.smt] : nullptr;
  out[kInputCoreKinds] = c.all_kinds ? "all" : nullptr;
}

int PlannerInputOf(const char* option) {
  for (int i = 0; i < kPlannerInputCount; ++i) {
    if (base::StrEq(option, kPlannerInputOptions[i])) return i;
  }
  return -1;
}

int PlannerInputArgs(const char* const texts[kPlannerInputCount], const char** argv) {
  int n = 0;
  for (int i = 0; i < kPlannerInputCount; ++i) {
    if (texts[i] == nullptr) continue;
    argv[n++] = kPlannerInputOptions[i];
    argv[n++] = texts[i];
  }
  return n;
}

}  // namespace numabind::config
