// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Whether an environment entry is a built-in rank variable's (config/env_vars.def), by immediates: what the
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

/// Whether bit (c & 63) of `mask` is set. One `bt` on x86_64, where GCC makes a copy, a shift and a mask
/// of it instead: three more instructions for every environment entry at every process's start.
__attribute__((always_inline)) inline bool LetterIn(unsigned long long mask, char c) {
  unsigned long long bit = static_cast<unsigned char>(c);
#if defined(__x86_64__)
  bool in;
  __asm__("btq %2, %1" : "=@ccc"(in) : "r"(mask), "r"(bit));
  return in;
#else
  return ((mask >> (bit & 63)) & 1) != 0;
#endif
}

/// The rank variables' first letters, and their second letters, as bits of (letter & 63), from
/// config/env_vars.def.
constexpr unsigned long long RankLetterBit(char c) { return 1ull << (static_cast<unsigned char>(c) & 63); }
constexpr unsigned long long kRankVarLetters = 0
#define NUMABIND_RANK_ENV(rank, size) | RankLetterBit((rank)[0])
#define NUMABIND_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
    ;
constexpr unsigned long long kRankVarSeconds = 0
#define NUMABIND_RANK_ENV(rank, size) | RankLetterBit((rank)[1])
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
    ;

/// The visibility lists' first and second letters (NUMABIND_DEVICE_ENV), as kRankVarLetters.
constexpr unsigned long long kDeviceVarLetters = 0
#define NUMABIND_RANK_ENV(rank, size)
#define NUMABIND_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#define NUMABIND_DEVICE_ENV(field, name) | RankLetterBit((name)[0])
#include "config/env_vars.def"
#undef NUMABIND_DEVICE_ENV
    ;
constexpr unsigned long long kDeviceVarSeconds = 0
#define NUMABIND_DEVICE_ENV(field, name) | RankLetterBit((name)[1])
#include "config/env_vars.def"
#undef NUMABIND_DEVICE_ENV
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
    ;

/// Whether `e` ("NAME=value") is a visibility list (NUMABIND_DEVICE_ENV) that may name one device: a value
/// that is not empty and has no comma (which device, if any, FindOneDevice says once the site file is read).
/// By immediates, as IsRankName.
__attribute__((always_inline)) inline bool IsOneDeviceEntry(const char* e) {
  const char* v = nullptr;
#define NUMABIND_RANK_ENV(rank, size)
#define NUMABIND_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#define NUMABIND_DEVICE_ENV(field, name) \
  if (v == nullptr && IsEntryOf(e, name)) v = e + sizeof(name);
#include "config/env_vars.def"
#undef NUMABIND_DEVICE_ENV
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
  if (v == nullptr || *v == '\0') return false;
  while (*v != '\0' && *v != ',') ++v;
  return *v == '\0';
}

/// Whether `e` ("NAME=value") is one of the rank variables of config/env_vars.def (any value), by its names
/// alone. By immediates, no table (the caller compiles it without jump tables): the inert start-up runs it,
/// after its two letter tests, and touches no .rodata. Each name's compare begins with its first letter,
/// so an entry costs one compare per name, and more only for the names that begin as it does.
__attribute__((always_inline)) inline bool IsRankName(const char* e) {
#define NUMABIND_RANK_ENV(rank, size) \
  if (IsEntryOf(e, rank)) return true;
#define NUMABIND_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
  return false;
}

/// Whether the entry "NAME=value" is one of config/env_vars.def's rank variables (any value).
__attribute__((always_inline)) inline bool IsRankEntry(const char* e) {
  // Most names that begin alike differ by their second letter (LD_*, SHELL, SHLVL, PWD, LESS): e[1] is read
  // only after e[0] was not the NUL.
  return LetterIn(kRankVarLetters, e[0]) && LetterIn(kRankVarSeconds, e[1]) && IsRankName(e);
}

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_RANK_ENTRY_H_
