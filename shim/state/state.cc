// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's process-wide state (shim/state/state.h).

#include "shim/state/state.h"

#include "base/hot.h"
#include "base/syscalls.h"

pid_t (*numabind_real_vfork)();

namespace numabind::shim {

RealFunctions g_real;
State g_state;
__thread bool t_in_shim __attribute__((tls_model("initial-exec")));
__thread bool t_fork_child __attribute__((tls_model("initial-exec")));

NUMABIND_HOT void BecomeConfigured() {
  g_state.pid = static_cast<pid_t>(base::Sys6(SYS_getpid));
  __atomic_store_n(&g_state.active, true, __ATOMIC_RELEASE);
}

}  // namespace numabind::shim
