// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's process-wide state (shim/state/state.h).

#include "shim/state/state.h"

pid_t (*numabind_real_vfork)();

namespace numabind::shim {

RealFunctions g_real;
Startup g_startup;
Prepared g_prepared;
Role g_role;
__thread bool t_in_shim __attribute__((tls_model("initial-exec")));
__thread bool t_fork_child __attribute__((tls_model("initial-exec")));

}  // namespace numabind::shim
