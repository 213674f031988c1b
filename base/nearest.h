// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The nearest known name to a misspelt one, for every "did you mean" of numabind: unknown NUMABIND_* names
// (config/config.cc, the site file), values of the variables whose values are a fixed list
// (config/readers.cc, config/grammar.cc), and the command's commands and options (cli/). One distance and one
// rule of what is near, here (base/nearest.cc). Libc only: no allocation, nothing but the caller's stack.

#ifndef NUMABIND_BASE_NEAREST_H_
#define NUMABIND_BASE_NEAREST_H_

#include <stddef.h>
#include <stdint.h>

#include "base/text_writer.h"

namespace numabind::base {

/// The longest word Distance compares; a longer one is never near anything.
constexpr size_t kNearestMax = 64;
/// Distance's answer for a word too long to compare.
constexpr uint32_t kFar = 1000;

/// The edit distance between a[0..na) and b[0..nb), ASCII case ignored: inserting, deleting or replacing a
/// character, or swapping two adjacent ones, costs one ("sockte" to "socket": 1). kFar when either is longer
/// than kNearestMax.
uint32_t Distance(const char* a, size_t na, const char* b, size_t nb);

/// Distance when it is at most `max`, else max + 1 (kFar when either is longer than kNearestMax), computing
/// only what can be within `max`: what Nearest uses.
uint32_t DistanceWithin(const char* a, size_t na, const char* b, size_t nb, uint32_t max);

/// How far a name may be from a word of `len` characters and still be suggested: one edit for short words,
/// up to three for long ones (len / 3, at least 1, at most 3).
uint32_t NearLimit(size_t len);

/// The nearest of the names offered to a word, within a limit; the first of equally near ones wins.
class Nearest {
 public:
  /// `limit`: the farthest name suggested (NearLimit of the word's length when not given).
  Nearest(const char* word, size_t len, uint32_t limit) : word_(word), len_(len), limit_(limit) {}
  Nearest(const char* word, size_t len) : Nearest(word, len, NearLimit(len)) {}

  /// Offers name[0..n); the word itself (byte for byte) is never suggested.
  void Offer(const char* name, size_t n);
  void Offer(const char* name) { Offer(name, StrLen(name)); }
  /// Offers each word of `list`, words separated by `sep` ("node|socket|auto").
  void OfferEach(const char* list, char sep = '|');

  /// The nearest name offered within the limit (best_len() characters, not NUL-terminated when it came
  /// from a list), or nullptr.
  const char* best() const { return best_; }
  size_t best_len() const { return best_len_; }

  /// Appends " (did you mean BEST?)" to `w` when there is a nearest name; whether it did.
  bool Hint(TextWriter* w) const;

 private:
  const char* word_;
  size_t len_;
  uint32_t limit_;
  const char* best_ = nullptr;
  size_t best_len_ = 0;
  uint32_t best_d_ = kFar;
};

/// Appends " (did you mean W?)" to the NUL-terminated text in buf[0..cap) when a word of `list` (separated
/// by '|') is near `word`: for the readers' refusals, whose text is written already.
void AppendHint(char* buf, size_t cap, const char* word, const char* list);

}  // namespace numabind::base

#endif  // NUMABIND_BASE_NEAREST_H_
