// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The nearest known name to a misspelt one (base/nearest.{h,cc}): the distance (a swap of two adjacent
// characters is one edit, case is ignored), the limit of what is near, and the first of equally near
// names; what every "did you mean" of numabind rests on.

#include "base/nearest.h"

#include <criterion/criterion.h>
#include <string.h>

#include <string>

using numabind::base::AppendHint;
using numabind::base::Distance;
using numabind::base::kFar;
using numabind::base::kNearestMax;
using numabind::base::Nearest;
using numabind::base::NearLimit;
using numabind::base::TextWriter;

namespace {

uint32_t D(const char* a, const char* b) { return Distance(a, strlen(a), b, strlen(b)); }

/// The name Nearest picks for `word` among `list` ("a|b|c"), or "" for none.
std::string Pick(const char* word, const char* list) {
  Nearest near(word, strlen(word));
  near.OfferEach(list);
  return near.best() != nullptr ? std::string(near.best(), near.best_len()) : "";
}

}  // namespace

Test(nearest, distance_counts_edits_and_swaps) {
  cr_expect_eq(D("socket", "socket"), 0u);
  cr_expect_eq(D("sockte", "socket"), 1u, "a swap of adjacent characters is one edit");
  cr_expect_eq(D("sokcet", "socket"), 1u);
  cr_expect_eq(D("sockt", "socket"), 1u);
  cr_expect_eq(D("sockets", "socket"), 1u);
  cr_expect_eq(D("sacket", "socket"), 1u);
  cr_expect_eq(D("", "abc"), 3u);
  cr_expect_eq(D("abc", ""), 3u);
  cr_expect_eq(D("ca", "abc"), 3u, "no edit of a swapped pair again (optimal string alignment)");
  cr_expect_eq(D("NUMABIND_POLICY", "numabind_policy"), 0u, "case is ignored");
  cr_expect_eq(D("kitten", "sitting"), 3u);
}

// The banded, bounded distance agrees with the full one wherever that is within the bound, on every pair of
// short words over a small alphabet (where swaps, repeats and length differences all occur).
Test(nearest, distance_within_agrees_with_the_full_table) {
  using numabind::base::DistanceWithin;
  const char* words[] = {"",      "a",     "b",     "ab",     "ba",     "aab",   "aba",
                         "abb",   "bab",   "abab",  "baba",   "aabb",   "bbaa",  "abba",
                         "aaaaa", "ababa", "babab", "abbaab", "bbbbbb", "aabbaa"};
  for (const char* x : words) {
    for (const char* y : words) {
      uint32_t full = D(x, y);
      for (uint32_t max = 0; max <= 7; ++max) {
        uint32_t got = DistanceWithin(x, strlen(x), y, strlen(y), max);
        uint32_t want = full <= max ? full : max + 1;
        cr_assert_eq(got, want, "%s/%s within %u: %u, want %u", x, y, max, got, want);
      }
    }
  }
}

Test(nearest, words_too_long_are_far) {
  std::string longest(kNearestMax, 'a'), longer(kNearestMax + 1, 'a');
  cr_expect_eq(Distance(longest.data(), longest.size(), longest.data(), longest.size()), 0u);
  cr_expect_eq(Distance(longer.data(), longer.size(), longer.data(), longer.size()), kFar);
  cr_expect_eq(Distance("a", 1, longer.data(), longer.size()), kFar);
}

Test(nearest, limit_grows_with_the_word) {
  cr_expect_eq(NearLimit(0), 1u);
  cr_expect_eq(NearLimit(2), 1u);
  cr_expect_eq(NearLimit(6), 2u);
  cr_expect_eq(NearLimit(9), 3u);
  cr_expect_eq(NearLimit(40), 3u);
}

Test(nearest, picks_the_nearest_within_the_limit) {
  const char* policies = "node|socket|exclusive|core-complex|auto";
  cr_expect_eq(Pick("sockte", policies), "socket");
  cr_expect_eq(Pick("Socket", policies), "socket", "case differs: still suggested");
  cr_expect_eq(Pick("exlcusive", policies), "exclusive");
  cr_expect_eq(Pick("atuo", policies), "auto");
  cr_expect_eq(Pick("numa", policies), "", "two edits from node: too far for four letters");
  cr_expect_eq(Pick("frobnicate", policies), "");
  cr_expect_eq(Pick("reprot", "run|plan|show|report|vars|help"), "report");
  cr_expect_eq(Pick("sokcet", "run|plan|show|report|vars|help"), "");
}

Test(nearest, first_of_equals_wins_and_the_word_itself_is_no_hint) {
  cr_expect_eq(Pick("bat", "cat|hat"), "cat");
  cr_expect_eq(Pick("bat", "hat|cat"), "hat");
  cr_expect_eq(Pick("none", "none|omp"), "", "the word itself is never suggested");
  cr_expect_eq(Pick("x", "||y||"), "y", "empty words of a list are skipped");
  Nearest near("polcy", 5, 3);  // an explicit limit
  near.Offer("policy");
  near.Offer("POLICY");  // as near: the first stays
  cr_expect_str_eq(near.best(), "policy");
}

Test(nearest, hint_and_append_hint) {
  char buf[64];
  TextWriter w{buf, sizeof(buf), 0};
  w.Str("bad");
  Nearest near("sockte", 6);
  near.OfferEach("node|socket");
  cr_expect(near.Hint(&w));
  cr_expect_str_eq(buf, "bad (did you mean socket?)");
  Nearest none("zzzzzz", 6);
  none.OfferEach("node|socket");
  cr_expect_not(none.Hint(&w));
  cr_expect_str_eq(buf, "bad (did you mean socket?)", "nothing appended");

  char why[48] = "expected text or json";
  AppendHint(why, sizeof(why), "jsno", "text|json");
  cr_expect_str_eq(why, "expected text or json (did you mean json?)");
  char small[16] = "expected x";
  AppendHint(small, sizeof(small), "jsno", "text|json");
  cr_expect_eq(strlen(small), sizeof(small) - 1, "cut to the buffer, terminated");
  char kept[32] = "expected 0 or 1";
  AppendHint(kept, sizeof(kept), "yes", "0|1");
  cr_expect_str_eq(kept, "expected 0 or 1");
}
