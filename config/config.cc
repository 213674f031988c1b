// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run before main): no allocation, no stdio, no library state.

#include "config/config.h"

#include <stddef.h>

#include "base/text.h"
#include "config/grammar.h"
#include "config/vars.h"

namespace numabind::config {
namespace {

constexpr char kPrefix[] = "NUMABIND_";
constexpr size_t kPrefixLen = sizeof(kPrefix) - 1;
constexpr size_t kMaxValueShown = 96;
constexpr size_t kMaxEntryShown = 40;

size_t Len(const char* s) { return shim::StrLen(s); }

bool Eq(const char* a, const char* b) { return shim::StrEq(a, b); }

bool StartsWith(const char* s, const char* prefix) { return shim::StartsWith(s, prefix); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

/// Appends to a fixed buffer, always NUL-terminated, silently truncating.
struct Msg {
  char* buf;
  size_t cap;
  size_t len;

  void PutN(const char* s, size_t n) {
    for (size_t i = 0; i < n && s[i] != '\0'; ++i) {
      if (len + 1 >= cap) break;
      buf[len++] = s[i];
    }
    buf[len] = '\0';
  }
  void Put(const char* s) { PutN(s, static_cast<size_t>(-1)); }
  /// Shows at most `limit` bytes of s[0..n), with "..." when cut.
  void PutShort(const char* s, size_t n, size_t limit) {
    if (n <= limit) {
      PutN(s, n);
    } else {
      PutN(s, limit);
      Put("...");
    }
  }
  void PutNum(uint32_t v) {
    char digits[shim::kDecimalMax];
    PutN(digits, shim::FormatDecimal(v, digits));
  }
};

/// Starts the error line "NAME=value: " in err and returns a writer positioned after it.
Msg Begin(Error* err, const char* name, size_t name_len, const char* value) {
  Msg m{err->text, sizeof(err->text), 0};
  err->text[0] = '\0';
  m.PutN(name, name_len);
  m.Put("=");
  m.PutShort(value, Len(value), kMaxValueShown);
  m.Put(": ");
  return m;
}

bool CheckPolicy(const char* value, Error* err) {
  PolicyText policy;
  char why[192];
  if (ParsePolicyText(value, &policy, why, sizeof(why))) return true;
  Msg m = Begin(err, "NUMABIND_POLICY", 15, value);
  m.Put(why);
  return false;
}

bool CheckDevices(const char* value, Error* err) {
  if (Eq(value, "auto") || Eq(value, "none")) return true;
  const char* p = value;
  for (;;) {
    const char* e = p;
    while (*e != '\0' && *e != ',') ++e;
    BusId id;
    if (!ParseBusId(p, static_cast<size_t>(e - p), &id)) {
      Msg m = Begin(err, "NUMABIND_DEVICES", 16, value);
      m.Put("expected auto, none or PCI bus ids such as 0000:34:00.0,0000:4e:00.0");
      if (e - p > 0 && (p != value || *e != '\0')) {
        m.Put(" (not a bus id: ");
        m.PutShort(p, static_cast<size_t>(e - p), kMaxEntryShown);
        m.Put(")");
      }
      return false;
    }
    if (*e == '\0') return true;
    p = e + 1;
  }
}

bool IsVarName(const char* s) {
  if (!IsNameStart(*s)) return false;
  for (++s; *s != '\0'; ++s) {
    if (!IsNameStart(*s) && !IsDigit(*s)) return false;
  }
  return true;
}

bool ParseBool(const char* value, bool* out) {
  if (Eq(value, "0")) {
    *out = false;
    return true;
  }
  if (Eq(value, "1")) {
    *out = true;
    return true;
  }
  return false;
}

/// Edit distance between two names, case-insensitive; large when either is too long to compare.
uint32_t Distance(const char* a, size_t na, const char* b) {
  constexpr size_t kMax = 64;
  size_t nb = Len(b);
  if (na > kMax || nb > kMax) return 1000;
  uint32_t prev[kMax + 1], cur[kMax + 1];
  for (size_t j = 0; j <= nb; ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= na; ++i) {
    cur[0] = static_cast<uint32_t>(i);
    for (size_t j = 1; j <= nb; ++j) {
      uint32_t sub = prev[j - 1] + (Upper(a[i - 1]) == Upper(b[j - 1]) ? 0 : 1);
      uint32_t del = prev[j] + 1;
      uint32_t ins = cur[j - 1] + 1;
      uint32_t best = sub < del ? sub : del;
      cur[j] = best < ins ? best : ins;
    }
    for (size_t j = 0; j <= nb; ++j) prev[j] = cur[j];
  }
  return prev[nb];
}

bool Fail(Error* err, const char* name, const char* value, const char* expected) {
  Msg m = Begin(err, name, Len(name), value);
  m.Put(expected);
  return false;
}

}  // namespace

RankValue ParseRankValue(const char* s, uint32_t* out) {
  if (s == nullptr || !IsDigit(*s)) return RankValue::kMalformed;
  uint32_t v = 0;
  bool large = false;
  for (; IsDigit(*s); ++s) {
    if (v >= kMaxRanks)
      large = true;  // keep scanning: "99999999999x" is malformed, not too large
    else
      v = v * 10 + static_cast<uint32_t>(*s - '0');
  }
  if (*s != '\0') return RankValue::kMalformed;
  if (large || v >= kMaxRanks) return RankValue::kTooLarge;
  *out = v;
  return RankValue::kOk;
}

bool Parse(const char* const* env, Config* out, Error* err) {
  Error scratch;
  if (err == nullptr) err = &scratch;
  err->text[0] = '\0';
  *out = Config();
  out->match = kDefaultMatch;
  if (env == nullptr) return true;

  // Every variable is read even after a bad one, so that `out` keeps every good value (the shim honours
  // NUMABIND_STRICT and NUMABIND_LOG_FILE whatever else is wrong); `err` names the first bad one.
  bool ok = true;
  Error ignored;
  Error* sink = err;
  auto bad = [&] {
    ok = false;
    sink = &ignored;
  };

  // NUMABIND_DISABLE=1 is the off switch: nothing else is read, so nothing else can complain. A bad value
  // is an error like any other (before, it also stopped the reading; found by fuzz/config_fuzz.cc).
  const char* v = Lookup(env, "NUMABIND_DISABLE");
  if (v != nullptr && *v != '\0') {
    if (!ParseBool(v, &out->disabled)) {
      Fail(sink, "NUMABIND_DISABLE", v, "expected 0 or 1");
      bad();
    } else if (out->disabled) {
      return true;
    }
  }

  v = Lookup(env, "NUMABIND_POLICY");
  if (v != nullptr && *v != '\0') {
    if (CheckPolicy(v, sink))
      out->policy = v;
    else
      bad();
  }

  v = Lookup(env, "NUMABIND_MEMORY");
  if (v != nullptr && *v != '\0') {
    if (Eq(v, "local") || Eq(v, "preferred") || Eq(v, "bind") || Eq(v, "interleave")) {
      out->memory = v;
    } else {
      Fail(sink, "NUMABIND_MEMORY", v, "expected local, preferred, bind or interleave");
      bad();
    }
  }

  v = Lookup(env, "NUMABIND_DEVICES");
  if (v != nullptr && *v != '\0') {
    if (CheckDevices(v, sink))
      out->devices = v;
    else
      bad();
  }

  v = Lookup(env, "NUMABIND_NRANKS");
  if (v != nullptr && *v != '\0') {
    uint32_t n = 0;
    if (ParseDecimal(v, Len(v), kMaxRanks, &n) && n != 0) {
      out->nranks = n;
    } else {
      Msg m = Begin(sink, "NUMABIND_NRANKS", 15, v);
      m.Put("expected a positive integer up to ");
      m.PutNum(kMaxRanks);
      bad();
    }
  }

  v = Lookup(env, "NUMABIND_RANK_VAR");
  if (v != nullptr && *v != '\0') {
    if (IsVarName(v)) {
      out->rank_var = v;
    } else {
      Fail(sink, "NUMABIND_RANK_VAR", v, "expected a variable name such as LOCAL_RANK");
      bad();
    }
  }

  v = Lookup(env, "NUMABIND_MATCH");
  if (v != nullptr) out->match = v;  // any glob; empty matches nothing

  v = Lookup(env, "NUMABIND_TOPOLOGY");
  if (v != nullptr && *v != '\0') {
    const char* d = StartsWith(v, "synthetic:") ? v + 10 : v;
    while (d != v && *d == ' ') ++d;
    if (*d != '\0') {
      out->topology = v;
    } else {
      Fail(sink, "NUMABIND_TOPOLOGY", v,
           "expected an hwloc XML file or synthetic:DESC such as synthetic:pack:2 core:4 pu:2");
      bad();
    }
  }

  v = Lookup(env, "NUMABIND_LOG");
  if (v != nullptr && *v != '\0') {
    if (Eq(v, "off"))
      out->log = LogLevel::kOff;
    else if (Eq(v, "warn"))
      out->log = LogLevel::kWarn;
    else if (Eq(v, "info"))
      out->log = LogLevel::kInfo;
    else if (Eq(v, "debug"))
      out->log = LogLevel::kDebug;
    else if (!Fail(sink, "NUMABIND_LOG", v, "expected off, warn, info or debug"))
      bad();
  }

  v = Lookup(env, "NUMABIND_LOG_FORMAT");
  if (v != nullptr && *v != '\0') {
    if (Eq(v, "text"))
      out->log_format = LogFormat::kText;
    else if (Eq(v, "json"))
      out->log_format = LogFormat::kJson;
    else if (!Fail(sink, "NUMABIND_LOG_FORMAT", v, "expected text or json"))
      bad();
  }

  v = Lookup(env, "NUMABIND_LOG_FILE");
  if (v != nullptr && *v != '\0') out->log_file = v;

  v = Lookup(env, "NUMABIND_STRICT");
  if (v != nullptr && *v != '\0') {
    if (!ParseBool(v, &out->strict) && !Fail(sink, "NUMABIND_STRICT", v, "expected 0 or 1")) bad();
  }

  v = Lookup(env, "NUMABIND_SHARED");
  if (v != nullptr && *v != '\0') {
    if (Eq(v, "off")) {
      out->shared = nullptr;
    } else if (*v == '/') {
      out->shared = v;
    } else {
      Fail(sink, "NUMABIND_SHARED", v, "expected off or an absolute directory such as /dev/shm");
      bad();
    }
  }

  v = Lookup(env, "NUMABIND_EXPORT");
  if (v != nullptr && *v != '\0') {
    char why[160];
    if (!ParseExportText(v, &out->exports, why, sizeof(why))) {
      Msg m = Begin(sink, "NUMABIND_EXPORT", 15, v);
      m.Put(why);
      bad();
    }
  }

  v = Lookup(env, "NUMABIND_BOUND");
  // Written by numabind itself: any value, read by shim/child/bound_marker.h.
  if (v != nullptr && *v != '\0') out->bound = v;

  v = Lookup(env, "NUMABIND_GUARD");
  if (v != nullptr && *v != '\0') {
    if (!ParseBool(v, &out->guard) && !Fail(sink, "NUMABIND_GUARD", v, "expected 0 or 1")) bad();
  }

  // A misspelt name must not silently leave a job unbound.
  for (const char* const* e = env; *e != nullptr; ++e) {
    const char* s = *e;
    if (!StartsWith(s, kPrefix)) continue;
    size_t n = kPrefixLen;
    while (s[n] != '\0' && s[n] != '=') ++n;
    if (s[n] != '=') continue;  // not NAME=value: not a variable
    if (FindVar(s, n) != nullptr) continue;
    const char* best = nullptr;
    // Suggest only close names: one edit for short names, up to three for long ones.
    uint32_t limit = static_cast<uint32_t>((n - kPrefixLen) / 3);
    if (limit < 1) limit = 1;
    if (limit > 3) limit = 3;
    uint32_t best_d = limit + 1;
    for (int i = 0; i < kVarCount; ++i) {
      uint32_t d = Distance(s, n, kVars[i].name);
      if (d < best_d) {
        best_d = d;
        best = kVars[i].name;
      }
    }
    Msg m = Begin(sink, s, n, s + n + 1);
    m.Put("unknown variable");
    if (best != nullptr) {
      m.Put(" (did you mean ");
      m.Put(best);
      m.Put("?)");
    } else {
      m.Put(" (numabind vars lists them)");
    }
    bad();
    break;
  }

  out->enabled = out->policy != nullptr;
  return ok;
}

}  // namespace numabind::config
