// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FORMAT=json: every log line one JSON object, built like the text lines (shim/line.h: on the
// stack, no allocation, raw system calls for the time and host name), so the child side of a spawn can
// write it. Fields: time (UTC, ISO 8601 with milliseconds), host, pid, level; then, for a bound rank,
// event, rank, nranks, rank_var, command, cpus, nodes, memory, device, entry, replaced (launcher_cpus when
// true) and, at NUMABIND_LOG=debug, stack; for anything else, message (the text line without "numabind: ").

#ifndef NUMABIND_SHIM_JSON_LOG_H_
#define NUMABIND_SHIM_JSON_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shim/child.h"

namespace numabind::shim {

/// What BindRank did, for the JSON line.
struct BoundInfo {
  bool again;  ///< a forked worker bound again at its exec: "rebound"
  const RankMatch* match;
  const char* command;
  const uint64_t* cpus;
  uint32_t cpu_words;
  const uint64_t* nodes;
  uint32_t node_words;
  const char* memory;  ///< "bind", ..., or "unchanged" (set_mempolicy refused)
  const char* device;  ///< "" or nullptr when none
  Entry entry;
  const uint64_t* launcher_cpus;  ///< the launcher's binding of the child when replaced, else nullptr
  uint32_t launcher_words;
};

/// Child-safe: the bound rank's fields, comma separated, without braces (time, host and pid come later).
void JsonBound(Line* line, const BoundInfo& info);

/// Child-safe: writes the JSON line for the fields JsonBound put in `body`, with pid (<= 0: null) and, when
/// `stack` is not nullptr, the call stack.
void JsonFinishBound(const Line& body, pid_t pid, const char* stack);

/// Child-safe: writes `text` (one text log line at `level`) as a JSON object line through WriteLog. Not
/// inlined: its line buffer is on the stack only in JSON mode.
void WriteJsonLog(config::LogLevel level, const char* text, size_t len);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_JSON_LOG_H_
