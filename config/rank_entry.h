// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Whether an environment entry is a built-in rank variable's (config::kRankVars), by immediates: what the
// library's inert start-up and its inert spawns test each entry with before they read the site file.

#ifndef NUMABIND_CONFIG_RANK_ENTRY_H_
#define NUMABIND_CONFIG_RANK_ENTRY_H_

namespace numabind::config {

/// Whether `e` ("NAME=value") names `name` (a literal): unrolled into compares with immediates.
template <unsigned long N>
__attribute__((always_inline)) inline bool IsEntryOf(const char* e, const char (&name)[N]) {
#pragma GCC unroll 32
  for (unsigned long i = 0; i + 1 < N; ++i) {
    if (e[i] != name[i]) return false;  // at the latest at the entry's NUL
  }
  return e[N - 1] == '=';
}

/// Whether the entry "NAME=value" is one of config::kRankVars' rank variables (any value). Inline, by
/// immediates and without a jump table: the inert start-up calls it for the entries whose first letter is a
/// rank variable's, and it touches no .rodata. tests/config/site_file_test.cc ties its names to config::kRankVars.
__attribute__((always_inline)) inline bool IsRankEntry(const char* e) {
  char c = e[0];
  if (c == 'L') return IsEntryOf(e, "LOCAL_RANK");
  if (c == 'O') return IsEntryOf(e, "OMPI_COMM_WORLD_LOCAL_RANK");
  if (c == 'M')
    return IsEntryOf(e, "MPI_LOCALRANKID") || IsEntryOf(e, "MV2_COMM_WORLD_LOCAL_RANK") || IsEntryOf(e, "MPT_LRANK");
  if (c == 'P') return IsEntryOf(e, "PMI_LOCAL_RANK") || IsEntryOf(e, "PALS_LOCAL_RANKID");
  if (c == 'J') return IsEntryOf(e, "JSM_NAMESPACE_LOCAL_RANK");
  if (c == 'F') return IsEntryOf(e, "FLUX_TASK_LOCAL_ID");
  return c == 'S' && IsEntryOf(e, "SLURM_LOCALID");
}

/// The first letters of the rank variables, as bits of (letter & 63), for a first test of every entry.
constexpr unsigned long long kRankVarLetters = (1ull << ('L' & 63)) | (1ull << ('O' & 63)) |
                                               (1ull << ('M' & 63)) | (1ull << ('P' & 63)) |
                                               (1ull << ('J' & 63)) | (1ull << ('F' & 63)) |
                                               (1ull << ('S' & 63));

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_RANK_ENTRY_H_
