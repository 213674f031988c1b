// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FORMAT=json (shim/json_log.h). Every function here may run between fork/vfork and exec:
// raw system calls, buffers on the caller's stack.

#include "shim/json_log.h"

#include <sys/utsname.h>
#include <time.h>

#include "shim/syscalls.h"

namespace numabind::shim {
namespace {

constexpr size_t kMaxCommand = 512;  // of JSON output: a bound line stays whole within Line::kCapacity
constexpr size_t kMaxStack = 900;
constexpr size_t kMaxMessage = 1500;

/// Child-safe: appends n as exactly `width` digits.
void Digits(Line* l, long n, int width) {
  char d[8];
  for (int i = width - 1; i >= 0; --i, n /= 10) d[i] = static_cast<char>('0' + n % 10);
  l->Str(d, static_cast<size_t>(width));
}

/// Child-safe: {"time":"2026-12-02T17:30:00.123Z","host":"...","pid":N,"level":"..." (no closing brace).
void Begin(Line* l, config::LogLevel level, long pid) {
  timespec ts = {0, 0};
  Sys6(SYS_clock_gettime, CLOCK_REALTIME, reinterpret_cast<long>(&ts));
  // Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil, inverted).
  long days = ts.tv_sec / 86400, secs = ts.tv_sec % 86400;
  long z = days + 719468;
  long era = (z >= 0 ? z : z - 146096) / 146097;
  long doe = z - era * 146097;
  long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long mp = (5 * doy + 2) / 153;
  long day = doy - (153 * mp + 2) / 5 + 1;
  long month = mp < 10 ? mp + 3 : mp - 9;
  long year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  l->Str("{\"time\":\"");
  Digits(l, year, 4);
  l->Str("-");
  Digits(l, month, 2);
  l->Str("-");
  Digits(l, day, 2);
  l->Str("T");
  Digits(l, secs / 3600, 2);
  l->Str(":");
  Digits(l, secs / 60 % 60, 2);
  l->Str(":");
  Digits(l, secs % 60, 2);
  l->Str(".");
  Digits(l, ts.tv_nsec / 1000000, 3);
  utsname u;
  bool named = Sys6(SYS_uname, reinterpret_cast<long>(&u)) == 0;
  l->Str("Z\",\"host\":").JsonStr(named ? u.nodename : nullptr, sizeof(u.nodename), 256).Str(",\"pid\":");
  if (pid > 0)
    l->Num(pid);
  else
    l->Str("null");
  static const char* const kLevels[] = {"off", "warn", "info", "debug"};
  l->Str(",\"level\":\"").Str(kLevels[static_cast<int>(level)]).Str("\"");
}

}  // namespace

// Child-safe: appends to the caller's line.
void JsonBound(Line* line, const BoundInfo& b) {
  const RankMatch& m = *b.match;
  line->Str("\"event\":\"").Str(b.again ? "rebound" : "bound").Str("\",\"rank\":").Num(m.rank);
  line->Str(",\"nranks\":");
  if (m.nranks != 0)
    line->Num(m.nranks);
  else
    line->Str("null");
  line->Str(",\"rank_var\":").JsonStr(m.var != nullptr ? m.var : "NUMABIND_MATCH");
  line->Str(",\"command\":").JsonStr(b.command, ~size_t{0}, kMaxCommand);
  line->Str(",\"cpus\":\"").Bits(b.cpus, b.cpu_words).Str("\",\"nodes\":\"").Bits(b.nodes, b.node_words);
  line->Str("\",\"memory\":\"").Str(b.memory).Str("\",\"device\":");
  line->JsonStr(b.device != nullptr && b.device[0] != '\0' ? b.device : nullptr);
  line->Str(",\"entry\":\"").Str(EntryName(b.entry)).Str("\",\"replaced\":");
  if (b.launcher_cpus != nullptr) {
    line->Str("true,\"launcher_cpus\":\"").Bits(b.launcher_cpus, b.launcher_words).Str("\"");
  } else {
    line->Str("false");
  }
}

// Child-safe: formats on the stack and writes with raw system calls.
__attribute__((noinline)) void JsonFinishBound(const Line& body, pid_t pid, const char* stack) {
  Line l;
  Begin(&l, config::LogLevel::kInfo, pid);
  l.Str(",").Str(body.data(), body.size());
  if (stack != nullptr) l.Str(",\"stack\":").JsonStr(stack, ~size_t{0}, kMaxStack);
  l.Str("}");
  size_t len = l.Finish();
  WriteLog(config::LogLevel::kInfo, l.data(), len);
}

// Child-safe: formats on the stack.
__attribute__((noinline)) void WriteJsonLog(config::LogLevel level, const char* text, size_t len) {
  const char kPrefix[] = "numabind: ";
  size_t skip = 0;
  while (skip < sizeof(kPrefix) - 1 && skip < len && text[skip] == kPrefix[skip]) ++skip;
  if (skip == sizeof(kPrefix) - 1) text += skip, len -= skip;
  while (len > 0 && text[len - 1] == '\n') --len;
  Line l;
  Begin(&l, level, Sys6(SYS_getpid));
  l.Str(",\"message\":").JsonStr(text, len, kMaxMessage).Str("}");
  size_t n = l.Finish();
  WriteLog(level, l.data(), n);
}

}  // namespace numabind::shim
