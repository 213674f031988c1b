// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run before main): no allocation, no stdio, no library state.

#include "config/grammar.h"

#include "base/text.h"

namespace numabind::config {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool Eq(const char* a, const char* b) { return shim::StrEq(a, b); }

/// Hex digits s[0..n), 1 to max_digits of them.
bool ParseHex(const char* s, size_t n, size_t max_digits, uint32_t* out) {
  if (n == 0 || n > max_digits) return false;
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    int d = IsDigit(c)               ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (d < 0) return false;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  *out = v;
  return true;
}

/// Appends to a fixed buffer, always NUL-terminated, silently truncating.
struct Why {
  char* buf;
  size_t cap;
  size_t len = 0;
  Why& Put(const char* s, size_t n = ~size_t{0}) {
    for (size_t i = 0; i < n && s[i] != '\0' && len + 1 < cap; ++i) buf[len++] = s[i];
    if (cap > 0) buf[len] = '\0';
    return *this;
  }
  Why& Num(uint32_t v) {
    char d[shim::kDecimalMax];
    shim::FormatDecimal(v, d);
    return Put(d);
  }
};

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
  for (size_t i = 0; i <= list_end;) {
    size_t j = i;
    while (j < list_end && s[j] != ',') ++j;
    size_t dash = i;
    while (dash < j && s[dash] != '-') ++dash;
    uint32_t lo = 0, hi = 0;
    bool ok = ParseDecimal(s + i, dash - i, 0xffffffffu, &lo);
    if (ok && dash < j)
      ok = ParseDecimal(s + dash + 1, j - dash - 1, 0xffffffffu, &hi);
    else
      hi = lo;
    if (!ok) return expected();
    if (hi < lo) {
      w->Put("range ").Put(s + i, j - i).Put(" goes down");
      return false;
    }
    if (hi > max_id) {
      w->Put(what).Put(" numbers go up to ").Num(max_id);
      return false;
    }
    i = j + 1;
  }
  return true;
}

}  // namespace

bool ParseDecimal(const char* s, size_t n, uint32_t max, uint32_t* out) {
  if (n == 0) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!IsDigit(s[i])) return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > max) return false;
  }
  *out = static_cast<uint32_t>(v);
  return true;
}

bool ParsePolicyText(const char* value, PolicyText* out, char* why, size_t cap) {
  *out = PolicyText();
  Why w{why, cap};
  w.Put("");
  static constexpr struct {
    const char* name;
    PolicyForm form;
  } kKeywords[] = {{"node", PolicyForm::kNode},
                   {"socket", PolicyForm::kSocket},
                   {"exclusive", PolicyForm::kExclusive},
                   {"core-complex", PolicyForm::kCoreComplex},
                   {"auto", PolicyForm::kAuto}};
  for (const auto& k : kKeywords) {
    if (Eq(value, k.name)) {
      out->form = k.form;
      return true;
    }
  }
  const char* what = nullptr;
  uint32_t max_id = 0;
  if (value[0] == 'c' && value[1] == 'p' && value[2] == 'u' && value[3] == 's' && value[4] == ':') {
    out->form = PolicyForm::kCpuMap;
    out->map = value + 5;
    what = "CPU";
    max_id = kMaxCpuId;
  } else if (value[0] == 'n' && value[1] == 'o' && value[2] == 'd' && value[3] == 'e' && value[4] == 's' &&
             value[5] == ':') {
    out->form = PolicyForm::kNodeMap;
    out->map = value + 6;
    what = "node";
    max_id = kMaxNodeId;
  } else {
    w.Put("expected node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or nodes:LIST|LIST...");
    return false;
  }
  uint32_t entry = 1;
  uint64_t total = 0;
  for (const char* p = out->map;; ++entry) {
    const char* e = p;
    while (*e != '\0' && *e != '|') ++e;
    char reason[128];
    Why r{reason, sizeof(reason)};
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

bool Ranges::Next(uint32_t* lo, uint32_t* hi) {
  if (p_ == nullptr || p_ >= end_) return false;
  const char* j = p_;
  while (j < end_ && *j != ',') ++j;
  const char* dash = p_;
  while (dash < j && *dash != '-') ++dash;
  ParseDecimal(p_, static_cast<size_t>(dash - p_), 0xffffffffu, lo);
  *hi = *lo;
  if (dash < j) ParseDecimal(dash + 1, static_cast<size_t>(j - dash - 1), 0xffffffffu, hi);
  p_ = j + 1;
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
  constexpr const char* kExpected = ": expected none or a comma list of omp, omp-cpus, gpu, nic";
  if (value == nullptr || value[0] == '\0') return true;
  if (Eq(value, "none")) return true;
  struct Item {
    const char* name;
    uint8_t bits;
  };
  const Item items[] = {{"omp", kExportOmp},
                        {"omp-cpus", kExportOmp | kExportOmpCpus},
                        {"gpu", kExportGpu},
                        {"nic", kExportNic}};
  uint8_t seen = 0;
  for (const char* p = value;;) {
    const char* end = p;
    while (*end != '\0' && *end != ',') ++end;
    size_t n = static_cast<size_t>(end - p);
    int found = -1;
    for (int i = 0; i < 4; ++i) {
      size_t k = 0;
      while (k < n && items[i].name[k] == p[k]) ++k;
      if (k == n && items[i].name[k] == '\0') found = i;
    }
    if (n == 0) return say("an empty item", "", 0, kExpected);
    if (found < 0) return say("unknown item ", p, n > 40 ? 40 : n, kExpected);
    if ((seen & (1u << found)) != 0) return say("item ", p, n, " given twice");
    seen = static_cast<uint8_t>(seen | (1u << found));
    *out = static_cast<uint8_t>(*out | items[found].bits);
    if (*end == '\0') break;
    p = end + 1;
  }
  return true;
}

}  // namespace numabind::config
