// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone): no allocation, no libc calls.

#include "base/nearest.h"

namespace numabind::base {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }

}  // namespace

// Optimal string alignment: Levenshtein's three rows, plus a swap of adjacent characters as one edit, the
// commonest typo ("sokcet", "NUMABIND_PLOICY"), which Levenshtein counts as two.
uint32_t Distance(const char* a, size_t na, const char* b, size_t nb) {
  if (na > kNearestMax || nb > kNearestMax) return kFar;
  uint32_t rows[3][kNearestMax + 1];
  uint32_t* before = rows[0];  // row i - 2
  uint32_t* prev = rows[1];    // row i - 1
  uint32_t* cur = rows[2];     // row i
  for (size_t j = 0; j <= nb; ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= na; ++i) {
    cur[0] = static_cast<uint32_t>(i);
    for (size_t j = 1; j <= nb; ++j) {
      char x = Lower(a[i - 1]), y = Lower(b[j - 1]);
      uint32_t d = Min(Min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + (x == y ? 0 : 1));
      if (i > 1 && j > 1 && x == Lower(b[j - 2]) && Lower(a[i - 2]) == y) d = Min(d, before[j - 2] + 1);
      cur[j] = d;
    }
    uint32_t* t = before;
    before = prev;
    prev = cur;
    cur = t;
  }
  return prev[nb];
}

uint32_t NearLimit(size_t len) {
  size_t limit = len / 3;
  if (limit < 1) limit = 1;
  if (limit > 3) limit = 3;
  return static_cast<uint32_t>(limit);
}

void Nearest::Offer(const char* name, size_t n) {
  // The word itself is no suggestion ("none" where a list of items is expected).
  size_t same = 0;
  while (same < n && same < len_ && name[same] == word_[same]) ++same;
  if (same == n && n == len_) return;
  uint32_t d = Distance(word_, len_, name, n);
  if (d > limit_ || d >= best_d_) return;
  best_ = name;
  best_len_ = n;
  best_d_ = d;
}

void Nearest::OfferEach(const char* list, char sep) {
  for (const char* p = list;;) {
    const char* e = p;
    while (*e != '\0' && *e != sep) ++e;
    if (e != p) Offer(p, static_cast<size_t>(e - p));
    if (*e == '\0') return;
    p = e + 1;
  }
}

bool Nearest::Hint(TextWriter* w) const {
  if (best_ == nullptr) return false;
  w->Str(" (did you mean ");
  for (size_t i = 0; i < best_len_; ++i) w->Put(best_[i]);
  w->Str("?)");
  return true;
}

void AppendHint(char* buf, size_t cap, const char* word, const char* list) {
  if (cap == 0) return;
  Nearest near(word, StrLen(word));
  near.OfferEach(list);
  TextWriter w{buf, cap, StrLen(buf)};
  near.Hint(&w);
}

}  // namespace numabind::base
