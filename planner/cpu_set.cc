// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "planner/cpu_set.h"

#include <string.h>

#include "base/digits.h"
#include "config/grammar.h"
#include "plan/plan_basis.h"

namespace numabind::planner {

namespace {

using base::HexDigit;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

CpuSet CpuSet::Range(uint32_t first, uint32_t last) {
  CpuSet s;
  s.SetRange(first, last);
  return s;
}

CpuSet CpuSet::FromWords(const uint64_t* words, uint32_t nwords) {
  CpuSet s;
  s.words_.assign(words, words + nwords);
  return s;
}

void CpuSet::Grow(uint32_t nwords) {
  if (words_.size() < nwords) words_.resize(nwords, 0);
}

void CpuSet::Set(uint32_t i) {
  Grow(i / 64 + 1);
  words_[i / 64] |= uint64_t{1} << (i % 64);
}

void CpuSet::SetRange(uint32_t first, uint32_t last) {
  if (last < first) return;
  Grow(last / 64 + 1);
  for (uint32_t i = first; i <= last;) {
    if (i % 64 == 0 && last - i >= 63) {
      words_[i / 64] = ~uint64_t{0};
      i += 64;
    } else {
      words_[i / 64] |= uint64_t{1} << (i % 64);
      if (i == last) break;
      ++i;
    }
  }
}

void CpuSet::Clear(uint32_t i) {
  if (i / 64 < words_.size()) words_[i / 64] &= ~(uint64_t{1} << (i % 64));
}

bool CpuSet::Has(uint32_t i) const { return i / 64 < words_.size() && ((words_[i / 64] >> (i % 64)) & 1); }

uint32_t CpuSet::Count() const { return plan::CountBits(words_.data(), WordCount()); }

bool CpuSet::Empty() const {
  for (uint64_t w : words_)
    if (w) return false;
  return true;
}

int64_t CpuSet::First() const { return Next(-1); }

int64_t CpuSet::Last() const {
  for (size_t i = words_.size(); i-- > 0;)
    if (words_[i]) return static_cast<int64_t>(i * 64 + 63 - __builtin_clzll(words_[i]));
  return -1;
}

int64_t CpuSet::Next(int64_t after) const {
  uint64_t start = static_cast<uint64_t>(after + 1);
  size_t wi = start / 64;
  if (wi >= words_.size()) return -1;
  uint64_t w = words_[wi] & (~uint64_t{0} << (start % 64));
  while (true) {
    if (w) return static_cast<int64_t>(wi * 64 + __builtin_ctzll(w));
    if (++wi >= words_.size()) return -1;
    w = words_[wi];
  }
}

CpuSet CpuSet::Union(const CpuSet& other) const {
  CpuSet s = *this;
  return s.UnionWith(other);
}

CpuSet CpuSet::Intersect(const CpuSet& other) const {
  CpuSet s = *this;
  return s.IntersectWith(other);
}

CpuSet CpuSet::Minus(const CpuSet& other) const {
  CpuSet s = *this;
  return s.Subtract(other);
}

CpuSet& CpuSet::UnionWith(const CpuSet& other) {
  Grow(other.WordCount());
  for (size_t i = 0; i < other.words_.size(); ++i) words_[i] |= other.words_[i];
  return *this;
}

CpuSet& CpuSet::IntersectWith(const CpuSet& other) {
  for (size_t i = 0; i < words_.size(); ++i) words_[i] &= i < other.words_.size() ? other.words_[i] : 0;
  return *this;
}

CpuSet& CpuSet::Subtract(const CpuSet& other) {
  for (size_t i = 0; i < words_.size() && i < other.words_.size(); ++i) words_[i] &= ~other.words_[i];
  return *this;
}

bool CpuSet::Intersects(const CpuSet& other) const {
  for (size_t i = 0; i < words_.size() && i < other.words_.size(); ++i)
    if (words_[i] & other.words_[i]) return true;
  return false;
}

bool CpuSet::IsSubsetOf(const CpuSet& other) const {
  for (size_t i = 0; i < words_.size(); ++i) {
    uint64_t o = i < other.words_.size() ? other.words_[i] : 0;
    if (words_[i] & ~o) return false;
  }
  return true;
}

bool CpuSet::operator==(const CpuSet& other) const {
  size_t n = words_.size() > other.words_.size() ? words_.size() : other.words_.size();
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = i < words_.size() ? words_[i] : 0;
    uint64_t b = i < other.words_.size() ? other.words_[i] : 0;
    if (a != b) return false;
  }
  return true;
}

std::vector<uint32_t> CpuSet::Members() const {
  std::vector<uint32_t> out;
  out.reserve(Count());
  for (int64_t i = First(); i >= 0; i = Next(i)) out.push_back(static_cast<uint32_t>(i));
  return out;
}

uint32_t CpuSet::UsedWords() const {
  int64_t last = Last();
  return last < 0 ? 0 : static_cast<uint32_t>(last / 64 + 1);
}

void CpuSet::CopyTo(uint64_t* out, uint32_t nwords) const {
  for (uint32_t i = 0; i < nwords; ++i) out[i] = i < words_.size() ? words_[i] : 0;
}

std::string CpuSet::ToList() const {
  char small[256];
  size_t need = plan::FormatBitList(words_.data(), WordCount(), small, sizeof small);
  if (need < sizeof small) return std::string(small, need);
  std::string s(need + 1, '\0');
  plan::FormatBitList(words_.data(), WordCount(), &s[0], s.size());
  s.resize(need);
  return s;
}

std::string CpuSet::ToHex(uint32_t nbits) const {
  static const char kDigits[] = "0123456789abcdef";
  // Number of 32-bit groups: enough for nbits, or for the highest member.
  int64_t last = Last();
  uint32_t bits = nbits;
  if (bits == 0 || (last >= 0 && static_cast<uint64_t>(last) >= bits)) bits = static_cast<uint32_t>(last + 1);
  if (bits == 0) return "0";
  uint32_t groups = (bits + 31) / 32;
  std::string out;
  for (uint32_t g = groups; g-- > 0;) {
    uint32_t value = static_cast<uint32_t>(g / 2 < words_.size() ? words_[g / 2] >> (32 * (g % 2)) : 0);
    int width = 8;
    if (g == groups - 1) {
      if (nbits == 0) {
        width = 1;
        while (width < 8 && (value >> (4 * width)) != 0) ++width;
      } else if (bits % 32 != 0) {
        width = static_cast<int>((bits % 32 + 3) / 4);
      }
    } else {
      out += ',';
    }
    for (int d = width; d-- > 0;) out += kDigits[(value >> (4 * d)) & 0xf];
  }
  return out;
}

bool CpuSet::ParseList(const char* text, CpuSet* out, std::string* err) {
  const char* p = text ? text : "";
  // The kernel's lists: config::Ranges with blanks allowed, the one reading of a list of numbers.
  config::Ranges ranges(p, p + strlen(p), kMaxBits - 1, /*spaces=*/true);
  CpuSet s;
  uint32_t first, last;
  while (ranges.Next(&first, &last)) s.SetRange(first, last);
  const char* why = nullptr;
  switch (ranges.fault()) {
    case config::ListFault::kNone: break;
    case config::ListFault::kNoNumber: why = "expected a number"; break;
    case config::ListFault::kNoNumberAfterDash: why = "expected a number after '-'"; break;
    case config::ListFault::kTrailingComma: why = "trailing ','"; break;
    case config::ListFault::kBadChar: why = "unexpected character"; break;
    case config::ListFault::kGoesDown: why = "decreasing range"; break;
    case config::ListFault::kTooLarge: why = "number too large"; break;
  }
  if (why != nullptr) {
    if (err) *err = std::string(why) + " in CPU list \"" + (text ? text : "") + "\"";
    return false;
  }
  *out = std::move(s);
  return true;
}

bool CpuSet::ParseHex(const char* text, CpuSet* out, std::string* err) {
  const char* p = text ? text : "";
  auto fail = [&](const char* why) {
    if (err) *err = std::string(why) + " in hex mask \"" + (text ? text : "") + "\"";
    return false;
  };
  while (IsSpace(*p)) ++p;
  size_t len = strlen(p);
  while (len > 0 && IsSpace(p[len - 1])) --len;
  if (len == 0) return fail("empty mask");
  // Split into groups, most significant first.
  std::vector<std::pair<const char*, size_t>> groups;
  size_t start = 0;
  for (size_t i = 0; i <= len; ++i) {
    if (i == len || p[i] == ',') {
      groups.emplace_back(p + start, i - start);
      start = i + 1;
    }
  }
  bool single = groups.size() == 1;
  CpuSet s;
  uint64_t bit = 0;  // bit number of the group's lowest bit
  for (size_t gi = groups.size(); gi-- > 0;) {
    const char* g = groups[gi].first;
    size_t n = groups[gi].second;
    if (n >= 2 && g[0] == '0' && (g[1] == 'x' || g[1] == 'X')) {
      g += 2;
      n -= 2;
      if (n == 0) return fail("\"0x\" without digits");
    }
    if (n == 0 && single) return fail("no digits");
    if (!single && n > 8) return fail("group longer than 8 hex digits");
    for (size_t d = n; d-- > 0;) {
      int v = HexDigit(g[d]);
      if (v < 0) return fail("not a hex digit");
      uint64_t b = bit + 4 * (n - 1 - d);
      for (int k = 0; k < 4; ++k) {
        if ((v >> k) & 1) {
          if (b + k >= kMaxBits) return fail("mask too large");
          s.Set(static_cast<uint32_t>(b + k));
        }
      }
    }
    bit += single ? 4 * n : 32;
  }
  *out = std::move(s);
  return true;
}

}  // namespace numabind::planner
