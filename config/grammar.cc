// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run before main): no allocation, no stdio, no library state.

#include "config/grammar.h"

#include "base/digits.h"
#include "base/hot.h"
#include "base/nearest.h"
#include "base/text.h"
#include "base/text_writer.h"
#include "config/choices.h"
#include "config/limits.h"

namespace numabind::config {
namespace {

bool Eq(const char* a, const char* b) { return base::StrEq(a, b); }

/// Hex digits s[0..n), 1 to max_digits of them.
bool ParseHex(const char* s, size_t n, size_t max_digits, uint32_t* out) {
  if (n == 0 || n > max_digits) return false;
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    int d = base::HexDigit(s[i]);
    if (d < 0) return false;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  *out = v;
  return true;
}

/// The reason of a refusal: base's writer (always NUL-terminated, silently truncating), chainable.
struct Why {
  base::TextWriter out;
  Why& Put(const char* s, size_t n = ~size_t{0}) {
    for (size_t i = 0; i < n && s[i] != '\0'; ++i) out.Put(s[i]);
    return *this;
  }
  Why& Num(uint32_t v) {
    out.Uint(v);
    return *this;
  }
};

/// A Why writing into buf[0..cap), which it empties.
Why StartWhy(char* buf, size_t cap) {
  if (cap > 0) buf[0] = '\0';
  return Why{base::TextWriter{buf, cap, 0}};
}

constexpr size_t kMaxEntryShown = 40;

/// Checks one map entry s[0..n) "LIST[*N]"; sets *repeat. On failure writes why (after "entry K (...): ").
bool CheckEntry(const char* s, size_t n, uint32_t max_id, const char* what, uint32_t* repeat, Why* w) {
  size_t list_end = n;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == '*') {
      list_end = i;
      break;
    }
  }
  *repeat = 1;
  if (list_end < n &&
      (!ParseDecimal(s + list_end + 1, n - list_end - 1, kMaxMapEntries, repeat) || *repeat == 0)) {
    w->Put("*N takes a count from 1 to ").Num(kMaxMapEntries);
    return false;
  }
  auto expected = [&] {
    w->Put("expected a list of ").Put(what).Put(" numbers such as 0-3,8, optionally followed by *N");
    return false;
  };
  if (list_end == 0) return expected();
  Ranges ranges(s, s + list_end, max_id);
  uint32_t lo, hi;
  while (ranges.Next(&lo, &hi)) {
  }
  switch (ranges.fault()) {
    case ListFault::kNone: return true;
    case ListFault::kGoesDown:
      w->Put("range ").Put(ranges.range_start(), static_cast<size_t>(ranges.at() - ranges.range_start()));
      w->Put(" goes down");
      return false;
    case ListFault::kTooLarge: w->Put(what).Put(" numbers go up to ").Num(max_id); return false;
    default: return expected();
  }
}

}  // namespace

NUMABIND_HOT bool ParsePolicyText(const char* value, Policy* out, char* why, size_t cap) {
  *out = Policy();
  out->text = value;
  Why w = StartWhy(why, cap);
  // kPolicyWords's keywords, in its order.
  static constexpr PolicyKind kKinds[kPolicyKeywords] = {PolicyKind::kNode, PolicyKind::kSocket,
                                                         PolicyKind::kExclusive, PolicyKind::kCoreComplex,
                                                         PolicyKind::kAuto};
  int keyword = ChoiceOf(kPolicyWords, value, kPolicyKeywords);
  if (keyword >= 0) {
    out->kind = kKinds[keyword];
    return true;
  }
  const char* what = nullptr;
  uint32_t max_id = 0;
  if (value[0] == 'c' && value[1] == 'p' && value[2] == 'u' && value[3] == 's' && value[4] == ':') {
    out->kind = PolicyKind::kCpuMap;
    out->map = value + 5;
    what = "CPU";
    max_id = kMaxCpuId;
  } else if (value[0] == 'n' && value[1] == 'o' && value[2] == 'd' && value[3] == 'e' && value[4] == 's' &&
             value[5] == ':') {
    out->kind = PolicyKind::kNodeMap;
    out->map = value + 6;
    what = "node";
    max_id = kMaxNodeId;
  } else {
    w.Put("expected ");
    char words[sizeof(kPolicyWords.words)];
    JoinChoices(kPolicyWords, ", ", " or ", words, sizeof(words));
    w.Put(words);
    HintChoice(kPolicyWords, kPolicyKeywords, value, why, cap);
    return false;
  }
  uint32_t entry = 1;
  uint64_t total = 0;
  for (const char* p = out->map;; ++entry) {
    const char* e = p;
    while (*e != '\0' && *e != '|') ++e;
    char reason[128];
    Why r = StartWhy(reason, sizeof(reason));
    uint32_t repeat = 1;
    if (!CheckEntry(p, static_cast<size_t>(e - p), max_id, what, &repeat, &r)) {
      size_t n = static_cast<size_t>(e - p);
      w.Put("entry ").Num(entry).Put(" (").Put(p, n < kMaxEntryShown ? n : kMaxEntryShown);
      w.Put(n > kMaxEntryShown ? "...): " : "): ").Put(reason);
      return false;
    }
    total += repeat;
    if (total > kMaxMapEntries) {
      w.Put("more than ").Num(kMaxMapEntries).Put(" entries (after *N repeats)");
      return false;
    }
    if (*e == '\0') break;
    p = e + 1;
  }
  out->entries = static_cast<uint32_t>(total);
  return true;
}

bool MapEntries::Next(const char** list, const char** list_end, uint32_t* repeat) {
  if (p_ == nullptr) return false;
  const char* e = p_;
  while (*e != '\0' && *e != '|') ++e;
  const char* star = p_;
  while (star < e && *star != '*') ++star;
  *list = p_;
  *list_end = star;
  *repeat = 1;
  if (star < e) ParseDecimal(star + 1, static_cast<size_t>(e - star - 1), kMaxMapEntries, repeat);
  p_ = *e == '\0' ? nullptr : e + 1;
  return true;
}

bool ParseBusId(const char* s, size_t n, BusId* out) {
  // Up to three ':'-separated fields; the last is "device.function".
  size_t colon[2];
  int colons = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] != ':') continue;
    if (colons == 2) return false;
    colon[colons++] = i;
  }
  if (colons == 0) return false;
  size_t bus_start = colons == 2 ? colon[0] + 1 : 0;
  size_t bus_end = colon[colons - 1];
  size_t dot = n;
  for (size_t i = bus_end + 1; i < n; ++i) {
    if (s[i] == '.') {
      dot = i;
      break;
    }
  }
  BusId id;
  if (colons == 2 && !ParseHex(s, colon[0], 8, &id.domain)) return false;
  if (dot == n || !ParseHex(s + bus_start, bus_end - bus_start, 2, &id.bus) ||
      !ParseHex(s + bus_end + 1, dot - bus_end - 1, 2, &id.dev) ||
      !ParseHex(s + dot + 1, n - dot - 1, 1, &id.func) || id.dev > 0x1f || id.func > 7) {
    return false;
  }
  *out = id;
  return true;
}

size_t FormatBusId(const BusId& id, char* out) {
  static const char kHex[] = "0123456789abcdef";
  size_t n = 0;
  auto hex = [&](uint32_t v, int min_digits) {
    int digits = min_digits;
    while (digits < 8 && (v >> (4 * digits)) != 0) ++digits;
    for (int i = digits - 1; i >= 0; --i) out[n++] = kHex[(v >> (4 * i)) & 15];
  };
  hex(id.domain, 4), out[n++] = ':', hex(id.bus & 0xff, 2), out[n++] = ':', hex(id.dev & 0xff, 2);
  out[n++] = '.', hex(id.func & 0xf, 1);
  out[n] = '\0';
  return n;
}

// kMemoryWords is in MemoryKind's order (ReadMemory, config/readers.cc, casts an index to a kind).
static_assert(static_cast<int>(MemoryKind::kWeighted) == 5 && kMemoryWords.count == 6, "one word per kind");

// Child-safe: a word of a constant table.
const char* MemoryName(MemoryKind kind) {
  int i = static_cast<int>(kind);
  return i < kMemoryWords.count ? kMemoryWords.words[i] : "unknown";
}

bool ParseDevicesText(const char* value, Devices* out, char* why, size_t cap) {
  *out = Devices();
  out->text = value;
  if (Eq(value, "auto")) return true;
  if (Eq(value, "none")) {
    out->mode = DeviceMode::kNone;
    return true;
  }
  out->mode = DeviceMode::kList;
  out->list = value;
  for (const char* p = value;;) {
    const char* e = p;
    while (*e != '\0' && *e != ',') ++e;
    size_t n = static_cast<size_t>(e - p);
    BusId id;
    if (!ParseBusId(p, n, &id)) {
      Why w = StartWhy(why, cap);
      w.Put("expected auto, none or PCI bus ids such as 0000:34:00.0,0000:4e:00.0");
      if (n > 0 && (p != value || *e != '\0')) {
        w.Put(" (not a bus id: ").Put(p, n < kMaxEntryShown ? n : kMaxEntryShown);
        w.Put(n > kMaxEntryShown ? "...)" : ")");
      }
      if (p == value && *e == '\0') HintChoice(kDevicesWords, 2, value, why, cap);  // auto, none
      return false;
    }
    ++out->count;
    if (*e == '\0') return true;
    p = e + 1;
  }
}

bool BusIds::Next(BusId* id) {
  if (p_ == nullptr) return false;
  const char* e = p_;
  while (*e != '\0' && *e != ',') ++e;
  ParseBusId(p_, static_cast<size_t>(e - p_), id);
  p_ = *e == '\0' ? nullptr : e + 1;
  return true;
}

bool ParseExportText(const char* value, uint8_t* out, char* why, size_t cap) {
  *out = 0;
  // why = a + b[0..bn) + c, cut to cap.
  auto say = [&](const char* a, const char* b, size_t bn, const char* c) {
    size_t at = 0;
    auto put = [&](char ch) {
      if (at + 1 < cap) why[at++] = ch;
    };
    for (; *a != '\0'; ++a) put(*a);
    for (size_t i = 0; i < bn; ++i) put(b[i]);
    for (; *c != '\0'; ++c) put(*c);
    if (cap > 0) why[at] = '\0';
    return false;
  };
  constexpr const char* kExpected = ": expected none or a comma list of " NUMABIND_EXPORT_PROSE;
  if (value == nullptr || value[0] == '\0') return true;
  if (Eq(value, "none")) return true;
  struct Item {
    const char* name;
    uint8_t bits;
  };
#define NUMABIND_EXPORT_ITEM(name, bits) {name, bits},
  const Item items[] = {NUMABIND_EXPORT_WORDS(NUMABIND_EXPORT_ITEM, )};
#undef NUMABIND_EXPORT_ITEM
  uint8_t seen = 0;
  for (const char* p = value;;) {
    const char* end = p;
    while (*end != '\0' && *end != ',') ++end;
    size_t n = static_cast<size_t>(end - p);
    int found = -1;
    for (int i = 0; i < static_cast<int>(sizeof(items) / sizeof(items[0])); ++i) {
      size_t k = 0;
      while (k < n && items[i].name[k] == p[k]) ++k;
      if (k == n && items[i].name[k] == '\0') found = i;
    }
    if (n == 0) return say("an empty item", "", 0, kExpected);
    if (found < 0) {
      say("unknown item ", p, n > 40 ? 40 : n, kExpected);
      base::Nearest near(p, n);  // the items' own names, and none
      near.Offer("none");
      for (const auto& item : items) near.Offer(item.name);
      base::TextWriter hint{why, cap, base::StrLen(why)};
      near.Hint(&hint);
      return false;
    }
    if ((seen & (1u << found)) != 0) return say("item ", p, n, " given twice");
    seen = static_cast<uint8_t>(seen | (1u << found));
    *out = static_cast<uint8_t>(*out | items[found].bits);
    if (*end == '\0') break;
    p = end + 1;
  }
  return true;
}

NUMABIND_HOT bool ParseMoveBudget(const char* value, uint64_t* bytes) {
  if (base::StrEq(value, "auto")) {
    *bytes = kMoveAuto;
    return true;
  }
  if (base::StrEq(value, "off")) {
    *bytes = 0;
    return true;
  }
  uint64_t n = 0;
  const char* p = value;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (n > (uint64_t{1} << 50)) return false;
    n = n * 10 + static_cast<uint64_t>(*p - '0');
  }
  if (p == value) return false;
  int shift = *p == 'K' || *p == 'k' ? 10 : *p == 'M' || *p == 'm' ? 20 : *p == 'G' || *p == 'g' ? 30 : 0;
  if (shift != 0) ++p;
  if (*p != '\0' || n == 0 || n > (uint64_t{1} << 50) >> shift) return false;
  *bytes = n << shift;
  return true;
}

}  // namespace numabind::config
