// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file (config/site_file.h, docs/site.md) in the library: read lazily, at most once per process,
// and only by one that starts as a rank (a rank variable at start-up), by a process that NUMABIND_POLICY in
// its environment configures at its first start of a program, or by an inert one at its first spawn of a
// rank. Every other
// process never looks at it: the inert start-up stays one pass over the environment.

#ifndef NUMABIND_SHIM_ENTRY_SITE_CONFIG_H_
#define NUMABIND_SHIM_ENTRY_SITE_CONFIG_H_

#include "config/rank_entry.h"

namespace numabind::shim {

/// The most NUMABIND_* entries of an environment the library reads (one more than config/vars.def has
/// rows, with room to spare): the start-up's and the site file's readings.
constexpr int kOursMax = 40;

/// The one parse of a process's configuration, at start-up and when a rank spawn activates it: `ours` (the
/// environment's NUMABIND_* entries) into g_startup.config, its error line kept for the first spawn to say,
/// a warning (an unknown name) said now. False when NUMABIND_DISABLE=1: there is nothing more to do.
bool TakeConfiguration(const char* const* ours);

/// A configured process that is no rank becomes a launcher, whose wrappers look at its spawns (g_role): the
/// one place for both ways there (its environment at start-up, the site file at its first rank spawn). The
/// caller has filled g_startup.config.
void BecomeLauncher();

/// A configured start-up (g_startup.config parsed from `ours`, the environment's NUMABIND_* entries, and not
/// disabled): reads the site file once and gives g_startup.config the values the environment leaves unset. A
/// bad file is logged once (warn) and ignored. The caller has checked AT_SECURE.
void ApplySiteFile(const char* const* ours);

/// A configured process that started as no rank, on the parent side of its first spawn, system, popen, fork
/// or vfork, or an exec of its own (not in a child between fork and exec): reads the site file if no one has,
/// under the environment's NUMABIND_* entries now. A thread that finds another one reading waits until it
/// has applied the file (at most 2 s; never for itself): no thread plans without the file. Returns whether
/// the process still acts (the file may say NUMABIND_DISABLE=1: then it is inert). Keeps errno.
bool ApplyPendingSiteFile();

/// Whether the site file is not applied yet: no one has read it, or a thread is reading it (one load):
/// ApplyPendingSiteFile's cheap test.
bool SiteFilePending();

/// An inert process (its environment has no NUMABIND_POLICY and it did not start as a rank) about to spawn
/// with `envp`: when envp carries a rank variable and this process has not looked yet, reads the site file
/// and, when it sets NUMABIND_POLICY, makes this process a configured launcher (g_role) before the
/// spawn. Thread-safe: a thread that finds another one reading waits for it, as ApplyPendingSiteFile's do.
/// Returns whether its wrappers act now.
bool ActivateForRankSpawn(char* const* envp);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_ENTRY_SITE_CONFIG_H_
