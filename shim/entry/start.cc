// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shim's start-up (constructor). Start-up is on the path of every program a user starts, so it does as
// little as it can: only when NUMABIND_POLICY is set does it parse the configuration and note which rank
// variables the process started with.

#include <sys/auxv.h>
#include <unistd.h>

#include "base/hot.h"
#include "config/rank_count.h"
#include "config/rank_entry.h"
#include "shim/entry/configure.h"
#include "shim/entry/site_config.h"
#include "shim/rank/self_bind.h"
#include "shim/state/state.h"

extern char** environ;

namespace numabind::shim {
namespace {

/// The environment the program started with, from `environ` (set by glibc and musl before constructors);
/// nullptr in a program with no C library, where the weak `environ` (base/libc_imports.h) is unresolved.
const char* const* StartupEnvironment() {
  if (&environ == nullptr) return nullptr;
  return const_cast<const char* const*>(environ);
}

/// A configured process's start-up (NUMABIND_POLICY is set, or `rank` and the site file may set it): parses
/// the configuration, binds the process if it is a rank, or else makes the wrappers look at its spawns.
/// Kept out of Init, whose inert path is then a few instructions with no stack frame to speak of.
NUMABIND_HOT __attribute__((noinline)) void StartConfigured(const char* const* env, bool rank) {
  // Secure-execution programs (setuid, file capabilities) must not be steered by the environment.
  if (getauxval(AT_SECURE) != 0) return;
  // The one pass over the environment (shim/entry/configure.h): what everything after it reads.
  EnvScan scan;
  ScanEnvironment(env, &scan);
  for (int i = 0; i < config::kRankVarCount; ++i) {
    if (scan.facts.rank[i] != nullptr) g_startup.rank_vars |= 1u << i;
  }
  // The configuration, and the site file's defaults under it: a rank reads the file now, to bind itself with
  // them; any other configured process at its first start of a program (ApplyPendingSiteFile).
  if (!Configure(scan, rank) || (rank && g_startup.config.policy.text == nullptr)) return;
  // NUMABIND_RANK_VAR (the environment's or the site file's, known only now): its variable's value.
  g_startup.facts.named = RankVarValue(scan, env);
  if (StartAsRank()) return;  // a rank (bound now if no launcher did): shim/rank/self_bind.cc
  BecomeLauncher();
}

// Portable start-up (musl, glibc): only glibc passes (argc, argv, envp) to constructors, and reading them
// where the C library does not crashes every program (issue 11). The environment is `environ`, which
// both set before any constructor runs; the arguments are read from /proc, and only by configured
// processes.
__attribute__((constructor, optimize("no-jump-tables"))) void Init() {
  // Every program pays for what runs here. Without NUMABIND_POLICY that is one pass over the environment
  // and nothing else: no call into the C library (a first call through the PLT is a lazy binding, about
  // 1,400 instructions), no dlsym (the real functions are found by the first wrapper called; _Fork's
  // without dlsym, see ResolveSafe), no string read from .rodata (the name is compared as immediates: no
  // page of .rodata touched).
  // A built-in rank variable, or a visibility list that may name one device (config/rank_entry.h), may make a
  // rank (the site file's NUMABIND_BY_DEVICE=1 makes a daemon's worker its device's), which reads the site
  // file (docs/site.md):
  // each entry costs two bit tests of its first two letters (one compare with N before), and only those
  // that pass them (NUMABIND_*, PATH, LANG, LOGNAME...) are compared by name.
  const char* const* env = StartupEnvironment();
  if (env == nullptr) return;
  static constexpr char kPolicy[] = "NUMABIND_POLICY=";
  constexpr int kLen = sizeof(kPolicy) - 1;
  constexpr unsigned long long kFirst =
      config::kRankVarLetters | config::kDeviceVarLetters | 1ull << ('N' & 63);
  constexpr unsigned long long kSecond =
      config::kRankVarSeconds | config::kDeviceVarSeconds | 1ull << ('U' & 63);
  static_assert((config::kDeviceVarLetters & (config::kRankVarLetters | 1ull << ('N' & 63))) == 0,
                "a visibility list's first letter is no rank variable's");
  bool rank = false;
  for (const char* const* p = env; *p != nullptr; ++p) {
    const char* e = *p;
    // e[1] is read only when e[0] is a letter (bit 0, the NUL's, is clear): the entry goes on.
    if (!config::LetterIn(kFirst, e[0]) || !config::LetterIn(kSecond, e[1])) continue;
    if (e[0] != 'N') {
      if (config::LetterIn(config::kDeviceVarLetters, e[0]))
        rank = rank || config::IsOneDeviceEntry(e);
      else
        rank = rank || config::IsRankName(e);
      continue;
    }
    int i = 0;
#pragma GCC unroll 16
    for (; i < kLen; ++i) {
      if (e[i] != kPolicy[i]) break;  // at the latest at the entry's NUL, which matches no byte of the name
    }
    if (i == kLen && e[kLen] != '\0') return StartConfigured(env, false);  // set and not empty
  }
  if (rank) StartConfigured(env, true);
}

}  // namespace
}  // namespace numabind::shim
