// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim (libc alone, may run before main): no allocation, no stdio, no library state. Every
// reader runs at the start of each configured process that sets its variable: NUMABIND_HOT, with the words'
// lookup they share (base/hot.h), so that no variable's value costs a configured start a page fault.

#include "config/readers.h"

#include "base/hot.h"
#include "base/nearest.h"
#include "base/text.h"
#include "base/text_writer.h"
#include "config/choices.h"

namespace numabind::config {
namespace {

bool Eq(const char* a, const char* b) { return base::StrEq(a, b); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

NUMABIND_HOT bool IsVarName(const char* s) {
  if (!IsNameStart(*s)) return false;
  for (++s; *s != '\0'; ++s) {
    if (!IsNameStart(*s) && !IsDigit(*s)) return false;
  }
  return true;
}

/// Writes `text` as the reason and fails.
bool Say(char* why, size_t cap, const char* text) {
  base::TextWriter w{why, cap, 0};
  if (cap > 0) why[0] = '\0';
  w.Str(text);
  return false;
}

/// The index of `value` among the words of `c`; -1 with "expected a, b or c" in why, and with `hint` the
/// word nearest `value` when one is near: " (did you mean b?)".
NUMABIND_HOT int Word(const Choices& c, const char* value, char* why, size_t cap, bool hint = true) {
  int i = ChoiceOf(c, value);
  if (i < 0 && cap > 0) {
    size_t n = 0;
    for (const char* p = "expected "; *p != '\0' && n + 1 < cap; ++p) why[n++] = *p;
    JoinChoices(c, ", ", " or ", why + n, cap - n);
    if (hint) HintChoice(c, -1, value, why, cap);
  }
  return i;
}

/// Writes `text` as the reason, then " (did you mean W?)" when a word of `words` ("a|b": the keywords of a
/// value that is otherwise a path) is near `value`, and fails.
bool Refuse(char* why, size_t cap, const char* text, const char* value, const char* words) {
  Say(why, cap, text);
  base::AppendHint(why, cap, value, words);
  return false;
}

/// "0" or "1" into *field.
NUMABIND_HOT bool ReadBool(const char* value, bool* field, char* why, size_t cap) {
  int i = Word(kBoolWords, value, why, cap, false);  // "2": did you mean 0? helps no one
  if (i >= 0) *field = i == 1;
  return i >= 0;
}

/// Parses into a temporary with `parse` (a grammar of config/grammar.h), so that a bad value leaves the
/// field as it was.
template <typename T>
NUMABIND_HOT bool ParseInto(bool (*parse)(const char*, T*, char*, size_t), const char* value, T* field,
                            char* why, size_t cap) {
  T parsed;
  if (!parse(value, &parsed, why, cap)) return false;
  *field = parsed;
  return true;
}

}  // namespace

NUMABIND_HOT bool ReadPolicy(const char* value, Config* out, char* why, size_t cap) {
  return ParseInto(ParsePolicyText, value, &out->policy, why, cap);
}

NUMABIND_HOT bool ReadMemory(const char* value, Config* out, char* why, size_t cap) {
  int i = Word(kMemoryWords, value, why, cap);
  if (i >= 0) out->memory = static_cast<MemoryKind>(i);  // kMemoryWords is in MemoryKind's order (grammar.cc)
  return i >= 0;
}

NUMABIND_HOT bool ReadDevices(const char* value, Config* out, char* why, size_t cap) {
  return ParseInto(ParseDevicesText, value, &out->devices, why, cap);
}

NUMABIND_HOT bool ReadNranks(const char* value, Config* out, char* why, size_t cap) {
  uint32_t n = 0;
  size_t len = 0;
  while (value[len] != '\0') ++len;
  if (ParseDecimal(value, len, kMaxRanks, &n) && n != 0) {
    out->nranks = n;
    return true;
  }
  base::TextWriter w{why, cap, 0};
  if (cap > 0) why[0] = '\0';
  w.Str("expected a positive integer up to ");
  w.Uint(kMaxRanks);
  return false;
}

NUMABIND_HOT bool ReadRankVar(const char* value, Config* out, char* why, size_t cap) {
  if (!IsVarName(value)) return Say(why, cap, "expected a variable name such as LOCAL_RANK");
  out->rank_var = value;
  return true;
}

NUMABIND_HOT bool ReadMatch(const char* value, Config* out, char*, size_t) {
  out->match = value;  // any glob; empty matches nothing
  return true;
}

NUMABIND_HOT bool ReadForks(const char* value, Config* out, char* why, size_t cap) {
  int i = Word(kForksWords, value, why, cap);
  if (i >= 0) out->fork_ranks = i == 1;
  return i >= 0;
}

bool ReadSmt(const char* value, Config* out, char* why, size_t cap) {
  uint32_t n = 0;
  size_t len = 0;
  while (value[len] != '\0') ++len;
  if (ParseDecimal(value, len, kMaxSmt, &n) && n != 0) {
    out->smt = static_cast<uint8_t>(n);
    return true;
  }
  base::TextWriter w{why, cap, 0};
  if (cap > 0) why[0] = '\0';
  w.Str("expected hardware threads per core, 1 to ");
  w.Uint(kMaxSmt);
  return false;
}

NUMABIND_HOT bool ReadTopology(const char* value, Config* out, char* why, size_t cap) {
  const char* d = value;
  const char* prefix = "synthetic:";
  while (*prefix != '\0' && *d == *prefix) ++d, ++prefix;
  if (*prefix != '\0') d = value;  // not synthetic: a file name
  while (d != value && *d == ' ') ++d;
  if (*d == '\0') {
    return Say(why, cap, "expected an hwloc XML file or synthetic:DESC such as synthetic:pack:2 core:4 pu:2");
  }
  out->topology = value;
  return true;
}

NUMABIND_HOT bool ReadLog(const char* value, Config* out, char* why, size_t cap) {
  int i = Word(kLogWords, value, why, cap);
  if (i >= 0) out->log = static_cast<LogLevel>(i);  // kLogWords is in LogLevel's order
  return i >= 0;
}

NUMABIND_HOT bool ReadLogFormat(const char* value, Config* out, char* why, size_t cap) {
  int i = Word(kLogFormatWords, value, why, cap);
  if (i >= 0) out->log_format = static_cast<LogFormat>(i);  // kLogFormatWords is in LogFormat's order
  return i >= 0;
}

NUMABIND_HOT bool ReadLogFile(const char* value, Config* out, char*, size_t) {
  out->log_file = value;
  return true;
}

NUMABIND_HOT bool ReadStrict(const char* value, Config* out, char* why, size_t cap) {
  return ReadBool(value, &out->strict, why, cap);
}

NUMABIND_HOT bool ReadDisable(const char* value, Config* out, char* why, size_t cap) {
  return ReadBool(value, &out->disabled, why, cap);
}

NUMABIND_HOT bool ReadShared(const char* value, Config* out, char* why, size_t cap) {
  if (Eq(value, "off")) {
    out->shared = nullptr;
  } else if (*value == '/') {
    out->shared = value;
  } else {
    return Refuse(why, cap, "expected off or an absolute directory such as /dev/shm", value, "off");
  }
  return true;
}

// Written by numabind itself: any value, read by shim/child/bound_marker.h.
NUMABIND_HOT bool ReadBound(const char* value, Config* out, char*, size_t) {
  out->bound = value;
  return true;
}

NUMABIND_HOT bool ReadExport(const char* value, Config* out, char* why, size_t cap) {
  uint8_t bits = 0;
  if (!ParseExportText(value, &bits, why, cap)) return false;
  out->exports = bits;
  return true;
}

NUMABIND_HOT bool ReadGuard(const char* value, Config* out, char* why, size_t cap) {
  return ReadBool(value, &out->guard, why, cap);
}

NUMABIND_HOT bool ReadLocality(const char* value, Config* out, char* why, size_t cap) {
  return ReadBool(value, &out->locality, why, cap);
}

NUMABIND_HOT bool ReadMove(const char* value, Config* out, char* why, size_t cap) {
  uint64_t bytes = 0;
  if (ParseMoveBudget(value, &bytes)) {
    out->move_bytes = bytes;
    return true;
  }
  base::TextWriter w{why, cap, 0};
  if (cap > 0) why[0] = '\0';
  w.Str("expected auto, off or a size such as 512M or 2G (bytes, or K, M, G); auto (4 GiB) is used");
  return false;
}

NUMABIND_HOT bool ReadByDevice(const char* value, Config* out, char* why, size_t cap) {
  return ReadBool(value, &out->by_device, why, cap);
}

bool ReadCoreKinds(const char* value, Config* out, char* why, size_t cap) {
  int i = Word(kCoreKindsWords, value, why, cap);
  if (i >= 0) out->all_kinds = i == 1;
  return i >= 0;
}

NUMABIND_HOT bool ReadContainer(const char* value, Config* out, char* why, size_t cap) {
  int i = Word(kContainerWords, value, why, cap);
  if (i >= 0) out->container_keep = i == 1;
  return i >= 0;
}

// Read by config::SiteFilePath from the environment itself; checked here so that a typo is an error. Hot:
// it is read with the site file it names.
NUMABIND_HOT bool ReadConfigFile(const char* value, Config*, char* why, size_t cap) {
  if (value[0] == '/' || Eq(value, "none")) return true;
  return Refuse(why, cap, "expected none or an absolute path such as /etc/numabind.conf", value, "none");
}

}  // namespace numabind::config
