// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run before main): no allocation, no stdio, no library state.

#include "config/config.h"

#include <stddef.h>

#include "base/digits.h"
#include "base/hot.h"
#include "base/nearest.h"
#include "base/text.h"
#include "base/text_writer.h"
#include "config/vars.h"

namespace numabind::config {
namespace {

constexpr const char* kPrefix = kVarPrefix;
constexpr size_t kPrefixLen = kVarPrefixLen;
constexpr size_t kMaxValueShown = 96;

using Msg = base::TextWriter;

size_t Len(const char* s) { return base::StrLen(s); }
using base::StartsWith;

/// Starts the error line "NAME=value: " in err (the value cut to kMaxValueShown bytes, with "..." when cut)
/// and returns a writer positioned after it.
Msg Begin(Error* err, const char* name, size_t name_len, const char* value) {
  Msg m{err->text, sizeof(err->text), 0};
  err->text[0] = '\0';
  for (size_t i = 0; i < name_len; ++i) m.Put(name[i]);
  m.Put('=');
  size_t n = Len(value);
  for (size_t i = 0; i < n && i < kMaxValueShown; ++i) m.Put(value[i]);
  if (n > kMaxValueShown) m.Str("...");
  m.Str(": ");
  return m;
}

/// Writes "NAME=value: why" into err.
void Report(Error* err, const char* name, size_t name_len, const char* value, const char* why) {
  Msg m = Begin(err, name, name_len, value);
  m.Str(why);
}

/// Runs variable `id`'s reader on `value`; false with the error line in err when the value is bad.
NUMABIND_HOT bool Read(int id, const char* value, Config* out, Error* err) {
  char why[192];
  why[0] = '\0';
  if (ReadVar(id, value, out, why, sizeof(why))) return true;
  Report(err, kVarNames[id], Len(kVarNames[id]), value, why);
  return false;
}

}  // namespace

NUMABIND_HOT bool UnknownVar(const char* entry, char* out, size_t cap) {
  if (!StartsWith(entry, kPrefix)) return false;
  size_t n = kPrefixLen;
  while (entry[n] != '\0' && entry[n] != '=') ++n;
  if (entry[n] != '=') return false;  // not NAME=value: not a variable
  if (FindVar(entry, n) >= 0) return false;
  // Suggest only close names: one edit for short names, up to three for long ones (the prefix not counted).
  base::Nearest near(entry, n, base::NearLimit(n - kPrefixLen));
  for (int i = 0; i < kVarCount; ++i) near.Offer(kVarNames[i]);
  Msg m{out, cap, 0};
  if (cap > 0) out[0] = '\0';
  for (size_t i = 0; i < n && i < kMaxValueShown; ++i) m.Put(entry[i]);
  if (n > kMaxValueShown) m.Str("...");
  m.Str(" is not a numabind variable");
  if (!near.Hint(&m)) m.Str(" (numabind vars lists them)");
  return true;
}

NUMABIND_HOT RankValue ParseRankValue(const char* s, uint32_t* out) {
  if (s == nullptr) return RankValue::kMalformed;
  uint64_t v = 0;
  // ScanDecimal reads every digit: "99999999999x" is malformed, not too large.
  base::Digits d = base::ScanDecimal(&s, nullptr, kMaxRanks - 1, &v);
  if (d == base::Digits::kNone || *s != '\0') return RankValue::kMalformed;
  if (d == base::Digits::kTooLarge) return RankValue::kTooLarge;
  *out = static_cast<uint32_t>(v);
  return RankValue::kOk;
}

bool ParseVar(const char* name, const char* value, Config* out, Error* err) {
  Error scratch;
  if (err == nullptr) err = &scratch;
  int id = FindVar(name, Len(name));
  if (id < 0) {
    Report(err, name, Len(name), value, "unknown variable (numabind vars lists them)");
    return false;
  }
  if (*value == '\0' && !ReadsEmpty(id)) return true;
  return Read(id, value, out, err);
}

// Child-safe: reads the entry.
NUMABIND_HOT void Ours::Take(const char* s) {
  size_t n = kPrefixLen;
  while (s[n] != '\0' && s[n] != '=') ++n;
  if (s[n] != '=') return;  // not NAME=value: not a variable
  int id = FindVar(s, n);
  if (id < 0 && unknown == nullptr) unknown = s;
  if (id >= 0 && value[id] == nullptr) value[id] = s + n + 1;
}

NUMABIND_HOT bool Ours::Sets(int id) const {
  const char* v = value[id];
  return v != nullptr && (*v != '\0' || ReadsEmpty(id));
}

// Child-safe: reads env.
NUMABIND_HOT Ours OursOf(const char* const* env) {
  Ours ours;
  for (const char* const* e = env; e != nullptr && *e != nullptr; ++e) {
    if (StartsWith(*e, kPrefix)) ours.Take(*e);
  }
  return ours;
}

NUMABIND_HOT bool Parse(const char* const* env, Config* out, Error* err) {
  // One pass over env finds every variable's value (the first entry of a name, as Lookup), rather than one
  // pass per variable, and notes the first NUMABIND_* name that is no variable, for the warning.
  return ParseValues(OursOf(env), out, err);
}

NUMABIND_HOT bool ParseValues(const Ours& values, Config* out, Error* err) {
  Error scratch;
  if (err == nullptr) err = &scratch;
  err->text[0] = '\0';
  err->warning[0] = '\0';
  *out = Config();
  out->match = kDefaultMatch;
  // NUMABIND_DISABLE=1 is the off switch, read first: nothing else is read, so nothing else can complain.
  // A bad value is an error like any other (before, it also stopped the reading; found by
  // fuzz/config_fuzz.cc).
  const char* v = values.value[kVarDisable];
  bool ok = v == nullptr || *v == '\0' || Read(kVarDisable, v, out, err);
  if (out->disabled) return true;

  // Every variable is read even after a bad one, so that `out` keeps every good value (the shim honours
  // NUMABIND_STRICT and NUMABIND_LOG_FILE whatever else is wrong); `err` names the first bad one.
  Error ignored;
  for (int i = 0; i < kVarCount; ++i) {
    if (i == kVarDisable) continue;
    v = values.value[i];
    if (v == nullptr || (*v == '\0' && !ReadsEmpty(i))) continue;
    // A variable whose bad value only warns keeps its default (config/vars.h).
    if (WarnsOnly(i)) {
      Error move;
      if (!Read(i, v, out, &move) && err->warning[0] == '\0') {
        for (size_t k = 0; k + 1 < sizeof(err->warning) && (err->warning[k] = move.text[k]) != '\0'; ++k) {
        }
      }
      continue;
    }
    if (!Read(i, v, out, ok ? err : &ignored)) ok = false;
  }
  // A misspelt or newer name is named (the caller prints it once) but does not switch binding off.
  if (values.unknown != nullptr) UnknownVar(values.unknown, err->warning, sizeof(err->warning));
  out->enabled = out->policy.text != nullptr;
  return ok;
}

}  // namespace numabind::config
