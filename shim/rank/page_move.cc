// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A late rank's line about its pages moved (shim/rank/page_move.h).

#include "shim/rank/page_move.h"

#include "base/syscalls.h"
#include "base/text.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {

void LogPagesMoved(const char* program, const base::PagesMoved& m, const uint64_t* nodes,
                   uint32_t node_words) {
  if (m.before_kb == 0 && m.error == 0) return;
  config::LogLevel level = m.error != 0 ? config::LogLevel::kWarn : config::LogLevel::kInfo;
  if (g_startup.config.log < level) return;
  uint64_t moved = m.before_kb > m.left_kb ? m.before_kb - m.left_kb : 0;
  Line l;
  l.Str("numabind: ").Str(program).Str(" pid ").Num(base::Sys6(SYS_getpid)).Str(": moved ");
  l.Num(static_cast<long long>((moved + 512) / 1024)).Str(" MiB of its memory to node");
  l.Str(node_words > 0 && (nodes[0] & (nodes[0] - 1)) == 0 ? " " : "s ").Bits(nodes, node_words);
  l.Str(" in ").Num(m.ms).Str(" ms, ").Num(static_cast<long long>((m.left_kb + 512) / 1024)).Str(" MiB left");
  if (m.over_budget) l.Str(" (past NUMABIND_MOVE's budget)");
  if (m.error != 0)
    l.Str(" (mbind: ").Str(base::ErrnoName(static_cast<int>(-m.error))).Str(")");
  else if (m.left_kb > 0 && !m.over_budget)
    l.Str(" (shared with another process)");
  size_t len = l.Finish();
  WriteLog(level, l.data(), len);
}

}  // namespace numabind::shim
