// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A mistake every rank shares (a bad configuration, a plan that could not be prepared) is said by one rank,
// not by each: 64 ranks, one line. The ranks of one launcher claim one word in a page the launcher maps
// shared before it starts them (its fork and vfork children, and its posix_spawn calls, see the same word);
// ranks that bind themselves are told by a note in the user's shared directory (shim/rank/mistake_note.h)
// whether another rank of their node and job said it already. Nothing is mapped or opened unless there is
// such a mistake.

#ifndef NUMABIND_SHIM_LOG_SHARED_MISTAKE_H_
#define NUMABIND_SHIM_LOG_SHARED_MISTAKE_H_

#include <stdint.h>

namespace numabind::shim {

/// What the one line that says a shared mistake adds, so that no one looks for the other ranks' lines.
inline constexpr char kSaidOnce[] = " (said once for all ranks that share it; NUMABIND_LOG=debug shows each)";

/// Parent side, a launcher with a shared mistake (g_startup.config_error, or no basis): maps the word its
/// ranks claim (g_prepared.mistake_said), once; without it (mmap failed) every rank says it, as before.
/// Async-signal-safe: one raw mmap.
void ShareMistakeWord();

/// Child-safe: whether this rank writes the line of a shared mistake: true for the first to claim `word`
/// (g_prepared.mistake_said, handed to the child side; then *first is true), for every rank when there is
/// no word, and for every rank at NUMABIND_LOG=debug or
/// when the JSON log file records every rank (RecordsRanks: `numabind report` counts them).
bool SaysSharedMistake(uint32_t* word, bool* first);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LOG_SHARED_MISTAKE_H_
