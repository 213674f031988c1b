// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The lines said about ranks found by order (NUMABIND_MATCH, NUMABIND_FORKS): a glob that matches the
// launcher itself, no shared counter, no rank count. Each is said once per tree (a flag in the counter's
// page) or by the tree's root alone.

#include <errno.h>

#include "base/syscalls.h"
#include "base/text.h"
#include "config/vars.h"
#include "shim/child/child.h"
#include "shim/child/pool_process.h"

namespace numabind::shim {

// Child-safe: the glob, a flag in the shared page and a line on the stack.
void WarnOrderRankSpawn(const char* path, char* const* argv, pid_t launcher) {
  if (g_startup.config.log < config::LogLevel::kWarn || !ArgvMatches(argv) ||
      !FirstInOrderTree(launcher, kOrderSaidGlob))
    return;
  Line l;
  l.Str("numabind: NUMABIND_MATCH='")
      .Str(g_startup.config.match)
      .Str("' matches the launcher's own command ");
  l.Str("line (pid ").Num(launcher).Str(", a rank found by order) as well as its program ").Str(path);
  l.Str(": the launcher took a rank and no worker is bound; write a glob that matches only the workers' ");
  l.Str("command line from its start, e.g. '/path/worker.sh*' rather than '*worker.sh*' (docs/launchers.md)");
  WriteLog(config::LogLevel::kWarn, &l);
}

void CheckOrderCounter() {
  if (__atomic_exchange_n(&g_prepared.order_counter_checked, true, __ATOMIC_ACQ_REL)) return;
  pid_t self = static_cast<pid_t>(base::Sys6(SYS_getpid));
  g_prepared.order_counter_pid = self;  // its exit removes the page named after it (start.cc)
  const config::Config& c = g_startup.config;
  bool forks = ForksTakeRanks();
  // The default glob (Python's spawn workers, which one launcher starts: counting its children suffices)
  // is in every configured process: only a glob the user wrote is worth a probe at each first fork.
  bool match = c.match != nullptr && *c.match != '\0' && c.match != config::kDefaultMatch;
  if ((!forks && !match) || c.log < config::LogLevel::kWarn) return;
  int page_error = 0;
  // Once per tree: its root says it, or for a pool the topmost Python (a shell may be the root; a
  // forkserver's parent is the pool's process, which said it).
  bool first = IsOrderTreeRoot(self) || (forks && !RunsPython(static_cast<pid_t>(base::Sys6(SYS_getppid))));
  if (!first || OrderCounterUsable(self, &page_error)) return;
  Line l;
  if (forks) {
    l.Str("numabind: the children that ").Str(program_invocation_name ? program_invocation_name : "it");
    l.Str(" forks take no rank (NUMABIND_FORKS=ranks) and run unbound: ranks by order need the shared ");
    l.Str("counter, and there is none (");
  } else {
    l.Str(
        "numabind: ranks found by order (NUMABIND_MATCH) have no shared counter, so each launcher numbers ");
    l.Str("only its own live children and workers that subshells, xargs or GNU parallel start may take one ");
    l.Str("rank twice (");
  }
  if (c.shared == nullptr || *c.shared == '\0') {
    l.Str("NUMABIND_SHARED=off");
  } else if (page_error != 0) {
    char symbol[base::kErrnoSymbolMax];
    bool full = page_error == ENOSPC || page_error == EDQUOT;
    l.Str(full ? "no room for its page in " : "its page cannot be made in ").Str(c.shared);
    l.Str("/numabind-").Num(base::Sys6(SYS_geteuid)).Str(": ").Str(base::ErrnoSymbol(page_error, symbol));
    l.Str(full ? "); free room there, or set" : "); set")
        .Str(" NUMABIND_SHARED to another directory of the user's");
    return WriteLog(config::LogLevel::kWarn, &l);
  } else {
    l.Str("no directory ").Str(c.shared).Str("/numabind-").Num(base::Sys6(SYS_geteuid));
    l.Str(" of this user's alone, mode 0700, or no /proc");
  }
  l.Str("); set NUMABIND_SHARED to a directory of the user's, such as /dev/shm (the default)");
  WriteLog(config::LogLevel::kWarn, &l);
}

// Child-safe: a flag in the shared page and a line on the stack.
void NoteUnknownCount(pid_t launcher) {
  if (g_startup.config.log < config::LogLevel::kInfo || !FirstInOrderTree(launcher, kOrderSaidCount)) return;
  Line l;
  l.Str(g_startup.config.fork_ranks
            ? "numabind: ranks found by order (NUMABIND_MATCH, NUMABIND_FORKS) have no "
            : "numabind: ranks found by order (NUMABIND_MATCH) have no ");
  // The places are plan::ComputeRankPlan's (UnknownCountPlaces).
  l.Str("count: each is planned as one of as many ranks as the policy has places (exclusive: one per core, ");
  l.Str("core-complex: one per last-level cache, else one per node or device), rank r as rank r mod that; ");
  l.Str("give the count with numabind run --ranks N or NUMABIND_NRANKS=N");
  WriteLog(config::LogLevel::kInfo, &l);
}

}  // namespace numabind::shim
