// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run between fork and exec): no allocation, no system calls.

#include "config/env_facts.h"

#include "base/env.h"
#include "base/hot.h"
#include "base/text.h"
#include "config/rank_entry.h"
#include "config/vars.h"

namespace numabind::config {

const char kRankVarNames[kRankVarCount][kEnvNameMax] = {
#define NUMABIND_RANK_ENV(rank, size) rank,
#define NUMABIND_ENV(field, name)
#define NUMABIND_ENV_PREFIX(field, prefix, max)
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
};

const char kRankSizeNames[kRankVarCount][kEnvNameMax] = {
#define NUMABIND_RANK_ENV(rank, size) size,
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
};

namespace {

constexpr unsigned long long Bit(char c) { return 1ull << (static_cast<unsigned char>(c) & 63); }

/// The first and the second letters of every name the scan looks for, as bits of (letter & 63): most entries
/// fail one of the two tests.
constexpr unsigned long long kFirsts = 0
#define NUMABIND_RANK_ENV(rank, size) | Bit((rank)[0]) | (sizeof(size) > 1 ? Bit((size)[0]) : 0)
#define NUMABIND_ENV(field, name) | Bit((name)[0])
#define NUMABIND_ENV_PREFIX(field, prefix, max) | Bit((prefix)[0])
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
    ;
constexpr unsigned long long kSeconds = 0
#define NUMABIND_RANK_ENV(rank, size) | Bit((rank)[1]) | (sizeof(size) > 1 ? Bit((size)[1]) : 0)
#define NUMABIND_ENV(field, name) | Bit((name)[1])
#define NUMABIND_ENV_PREFIX(field, prefix, max) | Bit((prefix)[1])
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_ENV_PREFIX
    ;

/// Child-safe: e's value into *slot when e names `name` and the slot is empty (the first entry of a name
/// counts, as getenv finds it).
inline void Take(const char* e, const char* name, const char** slot) {
  if (*slot != nullptr) return;
  if (const char* v = base::ValueOf(e, name)) *slot = v;
}

}  // namespace

// Child-safe: reads env.
NUMABIND_HOT void ScanEnvFacts(const char* const* env, EnvFacts* out, const char** ours, int cap,
                               const char* named, Ours* values) {
  *out = EnvFacts();
  if (values != nullptr) *values = Ours();
  int n = 0;
  for (const char* const* p = env; p != nullptr && *p != nullptr; ++p) {
    const char* e = *p;
    char c = e[0];
    if (out->count++ == 0) out->first = e;
    if (named != nullptr && out->named == nullptr && c == named[0]) out->named = base::ValueOf(e, named);
    if (c == 'N' && base::StartsWith(e, kVarPrefix)) {
      if (ours != nullptr) {
        if (n < cap - 1) ours[n] = e;
        ++n;  // counted past `cap` too: the caller then reads env itself
      }
      if (values != nullptr) values->Take(e);
      continue;
    }
    // e[1] is read only when e[0] is a letter (bit 0, the NUL's, is clear): the entry goes on.
    if (!LetterIn(kFirsts, c) || !LetterIn(kSeconds, e[1])) continue;
    int r = 0;
#define NUMABIND_RANK_ENV(rank_name, size_name)                                        \
  if (c == (rank_name)[0]) Take(e, rank_name, &out->rank[r]);                          \
  if (sizeof(size_name) > 1 && c == (size_name)[0]) Take(e, size_name, &out->size[r]); \
  ++r;
#define NUMABIND_ENV(field, name) \
  if (c == (name)[0]) Take(e, name, &out->field);
#define NUMABIND_KEPT_ENV(field, name) \
  if (c == (name)[0]) Take(e, name, &out->kept.field);
#define NUMABIND_ENV_PREFIX(field, prefix, max)          \
  if (c == (prefix)[0] && base::StartsWith(e, prefix)) { \
    if (out->field##_count < (max))                      \
      out->field[out->field##_count++] = e;              \
    else                                                 \
      out->field##_more = true;                          \
  }
#include "config/env_vars.def"
#undef NUMABIND_RANK_ENV
#undef NUMABIND_ENV
#undef NUMABIND_KEPT_ENV
#undef NUMABIND_ENV_PREFIX
  }
  if (ours != nullptr && cap > 0) ours[n < cap - 1 ? n : cap - 1] = nullptr;
  out->ours_count = n;
}

}  // namespace numabind::config
