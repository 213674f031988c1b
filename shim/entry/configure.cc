// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one configure step (shim/entry/configure.h).

#include "shim/entry/configure.h"

#include "base/hot.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "shim/entry/site_config.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {

NUMABIND_HOT void ScanEnvironment(const char* const* env, EnvScan* out) {
  config::ScanEnvFacts(env, &out->facts, nullptr, 0, nullptr, &out->ours);
}

// Child-safe: reads envp and the configuration, then FindRank's.
NUMABIND_HOT __attribute__((noinline)) bool FindSpawnRank(char* const* argv, char* const* envp, pid_t parent,
                                                          RankMatch* out) {
  config::EnvFacts facts;
  config::ScanEnvFacts(const_cast<const char* const*>(envp), &facts, nullptr, 0, g_startup.config.rank_var);
  return FindRank(argv, facts, parent, out);
}

NUMABIND_HOT bool Configure(const EnvScan& scan, bool rank) {
  g_startup.facts = scan.facts;
  config::Error err;
  if (!config::ParseValues(scan.ours, &g_startup.config, &err)) {
    for (size_t i = 0; i < sizeof(g_startup.config_error); ++i) g_startup.config_error[i] = err.text[i];
    g_startup.config_error[sizeof(g_startup.config_error) - 1] = '\0';
  }
  if (g_startup.config.disabled) return false;
  WriteConfigWarning(err.warning);
  if (rank || g_startup.rank_vars != 0 || g_startup.config.rank_var != nullptr) ReadSiteNow(scan.ours);
  return !g_startup.config.disabled;
}

NUMABIND_HOT const char* RankVarValue(const EnvScan& scan, const char* const* env) {
  const char* name = g_startup.config.rank_var;
  if (name == nullptr) return nullptr;
  for (int i = 0; i < config::kRankVarCount; ++i) {
    if (base::StrEq(name, config::kRankVarNames[i])) return scan.facts.rank[i];
  }
  return config::Lookup(env, name);
}

NUMABIND_HOT void BecomeLauncher() {
  g_startup.pid = static_cast<pid_t>(base::Sys6(SYS_getpid));
  __atomic_store_n(&g_role.kind, Role::kLauncher, __ATOMIC_RELEASE);
}

}  // namespace numabind::shim
