// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone): no allocation, no libc calls.

#include "base/nearest.h"

namespace numabind::base {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }

}  // namespace

// Optimal string alignment: Levenshtein's rows, plus a swap of adjacent characters as one edit, the
// commonest typo ("sokcet", "NUMABIND_PLOICY"), which Levenshtein counts as two. Only the band of cells
// within `max` of the diagonal is computed, and a row whose every cell is past `max` (with the row before
// it) ends the work: an unknown name is compared with every variable's at the start of each process that
// meets it, and a full table cost 220,000 instructions there.
uint32_t DistanceWithin(const char* a, size_t na, const char* b, size_t nb, uint32_t max) {
  if (na > kNearestMax || nb > kNearestMax) return kFar;
  if (max > kNearestMax) max = kNearestMax;
  const uint32_t far = max + 1;
  if ((na > nb ? na - nb : nb - na) > max) return far;
  uint32_t rows[3][kNearestMax + 2];
  uint32_t* before = rows[0];                     // row i - 2
  uint32_t* prev = rows[1];                       // row i - 1
  uint32_t* cur = rows[2];                        // row i
  for (size_t j = 0; j < kNearestMax + 2; ++j) {  // whole rows: the analyzer cannot bound the band by nb
    prev[j] = j <= max ? static_cast<uint32_t>(j) : far;
    before[j] = cur[j] = far;
  }
  bool prev_past = false;
  for (size_t i = 1; i <= na; ++i) {
    size_t lo = i > max ? i - max : 1, hi = i + max < nb ? i + max : nb;
    cur[lo - 1] = lo == 1 ? Min(static_cast<uint32_t>(i), far) : far;
    uint32_t row_min = cur[lo - 1];
    for (size_t j = lo; j <= hi; ++j) {
      char x = Lower(a[i - 1]), y = Lower(b[j - 1]);
      uint32_t d = Min(Min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + (x == y ? 0 : 1));
      if (i > 1 && j > 1 && x == Lower(b[j - 2]) && Lower(a[i - 2]) == y) d = Min(d, before[j - 2] + 1);
      cur[j] = Min(d, far);
      row_min = Min(row_min, cur[j]);
    }
    cur[hi + 1] = far;  // the next row's band reaches one cell further
    bool past = row_min >= far;
    if (past && prev_past) return far;  // every later cell comes from these two rows, plus something
    prev_past = past;
    uint32_t* t = before;
    before = prev;
    prev = cur;
    cur = t;
  }
  return Min(prev[nb], far);
}

uint32_t Distance(const char* a, size_t na, const char* b, size_t nb) {
  if (na > kNearestMax || nb > kNearestMax) return kFar;
  return DistanceWithin(a, na, b, nb, kNearestMax);
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
  if (best_d_ == 0) return;
  uint32_t within = best_d_ <= limit_ ? best_d_ - 1 : limit_;  // only a nearer name counts
  uint32_t d = DistanceWithin(word_, len_, name, n, within);
  if (d > within) return;
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
