// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file (config/site_file.h, docs/site.md) in the library: read at most once per process, through one
// door (ReadSite, in site_config.cc), and only by one that starts as a rank (a rank variable at start-up), by
// a process that NUMABIND_POLICY in its environment configures at its first start of a program, or by an
// inert one at its first spawn of a rank. Every other process never looks at it: the inert start-up stays one
// pass over the environment. (A container runtime's start reads it apart, for the runtime's environment:
// shim/child/container.h.)

#ifndef NUMABIND_SHIM_ENTRY_SITE_CONFIG_H_
#define NUMABIND_SHIM_ENTRY_SITE_CONFIG_H_

#include "config/vars.h"

namespace numabind::shim {

/// The configure step's reading (shim/entry/configure.h): the site file now, under `ours` (the environment's
/// NUMABIND_* values), its values given to g_startup.config where the environment leaves them unset. A bad
/// file is logged once (warn) and ignored. At start-up the reading is done when this returns; in a late
/// activation, which holds the reading, it is the caller's to publish once the process is a launcher.
void ReadSiteNow(const config::Ours& ours);

/// A configured process that started as no rank, on the parent side of its first spawn, system, popen, fork
/// or vfork, or an exec of its own (not in a child between fork and exec): reads the site file if no one has,
/// under the environment's NUMABIND_* values now. A thread that finds another one reading waits until it
/// has applied the file (at most 2 s; never for itself): no thread plans without the file. Returns whether
/// the process still acts (the file may say NUMABIND_DISABLE=1: then it is inert). Keeps errno.
bool ApplyPendingSiteFile();

/// Whether the site file is not applied yet: no one has read it, or a thread is reading it (one load):
/// ApplyPendingSiteFile's cheap test.
bool SiteFilePending();

/// An inert process (its environment has no NUMABIND_POLICY and it did not start as a rank) about to spawn
/// with `envp`: when envp carries a rank variable and this process has not looked yet, configures it from
/// its environment now and the site file (shim/entry/configure.h), which may make it a launcher (g_role)
/// before the spawn. Thread-safe: a thread that finds another one reading waits for it, as
/// ApplyPendingSiteFile's do. Returns whether its wrappers act now.
bool ActivateForRankSpawn(char* const* envp);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_ENTRY_SITE_CONFIG_H_
