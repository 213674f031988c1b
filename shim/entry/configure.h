// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one configure step, as glibc's elf/rtld.c process_envvars reads the loader's variables: one pass
// over an environment, then the settings from what it found, the site file's defaults laid under them. It
// serves start-up (shim/entry/start.cc) and a late activation (an inert launcher's first spawn of a rank,
// shim/entry/site_config.h); below shim/entry/, nothing looks a variable up in the environment again.

#ifndef NUMABIND_SHIM_ENTRY_CONFIGURE_H_
#define NUMABIND_SHIM_ENTRY_CONFIGURE_H_

#include "config/env_facts.h"
#include "config/vars.h"
#include "shim/child/child.h"

namespace numabind::shim {

/// An environment's one pass (config::ScanEnvFacts): what the library reads of it besides NUMABIND_*
/// (config/env_vars.def) and every NUMABIND_* value, however many entries there are.
struct EnvScan {
  config::EnvFacts facts;
  config::Ours ours;
};

/// The one pass over `env` (may be nullptr) into *out.
void ScanEnvironment(const char* const* env, EnvScan* out);

/// A spawn's one pass over the environment `envp` its program starts with (with NUMABIND_RANK_VAR's
/// variable), and whether that program is a rank (FindRank, shim/child/child.h, which keeps in *out what it
/// needs of the pass). Child-safe. Not inlined: the pass is on the stack only here, not under the exec or
/// spawn that follows (a thread's stack may be 16 KiB).
bool FindSpawnRank(char* const* argv, char* const* envp, pid_t parent, RankMatch* out);

/// The configure step: g_startup from `scan` (its facts kept; the configuration parsed from its NUMABIND_*
/// values, its error kept for the first rank spawn to say, its warning said now), and the site file's
/// defaults under it (the one door, shim/entry/site_config.h): now when the process may be a rank (`rank`:
/// a rank variable at start-up, or a launcher activated by its spawn of a rank), has a rank variable
/// (g_startup.rank_vars, the caller's) or NUMABIND_RANK_VAR; else at its first start of a program, so that
/// one which starts none never opens it. False when the process stays inert: NUMABIND_DISABLE=1, the
/// environment's or the file's. The caller has checked AT_SECURE.
bool Configure(const EnvScan& scan, bool rank);

/// The value in `scan`'s environment `env` of the variable NUMABIND_RANK_VAR names (g_startup.config), from
/// the pass when it is a built-in rank variable, else looked up: the one variable a pass cannot know before
/// the configuration it reads names it. nullptr when unset or absent.
const char* RankVarValue(const EnvScan& scan, const char* const* env);

/// A configured process that is no rank becomes a launcher, whose wrappers look at its spawns (g_role): the
/// one place for both ways there (its environment at start-up, the site file at its first rank spawn). The
/// caller has configured it.
void BecomeLauncher();

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_ENTRY_CONFIGURE_H_
