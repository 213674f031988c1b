// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The command's tables of config/env_vars.def's variables, as pointers (config/config.h). An object of its
// own: the library never refers to it, so its linker drops it and its relocations.

#include "config/config.h"

namespace numabind::config {

// `numabind ps` names each variable's launcher in this order (cli/ps_proc.cc's LauncherOf).
const RankVar kRankVars[kRankVarCount] = {
#define NUMABIND_RANK_ENV(rank, size) {rank, sizeof(size) > 1 ? (size) : nullptr},
#define NUMABIND_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
};

const char* const kPlannerVars[kPlannerVarCount] = {
    kEnvNames.cuda_visible_devices, kEnvNames.rocr_visible_devices, kEnvNames.hip_visible_devices};

}  // namespace numabind::config
