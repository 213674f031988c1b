// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FORMAT=json (shim/log/json_log.h). Every function here may run between fork/vfork and exec:
// raw system calls, buffers on the caller's stack.

#include "shim/log/json_log.h"

#include <sys/utsname.h>
#include <time.h>

#include "base/syscalls.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

constexpr size_t kMaxCommand = 512;  // of JSON output: the members after it still fit
constexpr char kTruncated[] = ",\"truncated\":true";
/// What Close must still be able to write: "truncated" and the closing brace.
constexpr size_t kTail = sizeof(kTruncated) - 1 + 1;
/// The most Head writes, and the comma before a bound line's body: a host name of 64 bytes each escaped
/// as \u00XX, a pid of 20 characters.
constexpr size_t kHeadMax = sizeof("{\"time\":\"2026-12-02T17:30:00.123Z\"") - 1 + sizeof(",\"host\":") - 1 +
                            2 + size_t{6} * 64 + sizeof(",\"pid\":") - 1 + 20 +
                            sizeof(",\"level\":\"debug\"") - 1 + 1;

/// Child-safe: writes n as exactly `width` digits at d.
void Digits(char* d, long n, int width) {
  for (int i = width - 1; i >= 0; --i, n /= 10) d[i] = static_cast<char>('0' + n % 10);
}

/// Child-safe: starts the object: {"time":"2026-12-02T17:30:00.123Z","host":"...","pid":N,"level":"...".
/// The caller has reserved kTail.
void Head(Line* l, config::LogLevel level, long pid) {
  timespec ts = {0, 0};
  base::Sys6(SYS_clock_gettime, CLOCK_REALTIME, reinterpret_cast<long>(&ts));
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
  char time[] = "YYYY-MM-DDTHH:MM:SS.mmmZ";
  Digits(time, year, 4);
  Digits(time + 5, month, 2);
  Digits(time + 8, day, 2);
  Digits(time + 11, secs / 3600, 2);
  Digits(time + 14, secs / 60 % 60, 2);
  Digits(time + 17, secs % 60, 2);
  Digits(time + 20, ts.tv_nsec / 1000000, 3);
  utsname u;
  bool named = base::Sys6(SYS_uname, reinterpret_cast<long>(&u)) == 0;
  static const char kLevels[][6] = {"off", "warn", "info", "debug"};  // no relocations
  l->Str("{");
  JsonMembers j(l);
  j.Str("time", time).Str("host", named ? u.nodename : nullptr, sizeof(u.nodename));
  if (pid > 0)
    j.Num("pid", pid);
  else
    j.Literal("pid", "null");
  j.Str("level", kLevels[static_cast<int>(level)]);
}

/// Child-safe: ends the object (saying so when something was left out) and the line; returns its length.
size_t Close(Line* l) {
  l->Reserve(0);
  if (l->truncated()) l->Str(kTruncated);
  l->Str("}");
  return l->Finish();
}

/// Child-safe: the length of the valid UTF-8 sequence at s (at most n bytes; a NUL ends it), or 0 when it
/// is not one, with *used the bytes to replace: its maximal subpart (Unicode 15, section 3.9, U+FFFD
/// substitution), at least 1. Table 3-7's well-formed sequences: no overlongs, surrogates or past U+10FFFF.
size_t Utf8At(const unsigned char* s, size_t n, size_t* used) {
  unsigned char c = s[0], lo = 0x80, hi = 0xbf;
  size_t len;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    *used = 1;
    return 0;
  }
  size_t i = 1;
  for (; i < len && i < n && s[i] >= lo && s[i] <= hi; ++i) lo = 0x80, hi = 0xbf;
  *used = i;
  return i == len ? len : 0;
}

/// Child-safe: a text line (`len` bytes) as the "message" member, without "numabind: " and the newline.
void Message(Line* l, const char* text, size_t len) {
  const char kPrefix[] = "numabind: ";
  size_t skip = 0;
  while (skip < sizeof(kPrefix) - 1 && skip < len && text[skip] == kPrefix[skip]) ++skip;
  if (skip == sizeof(kPrefix) - 1) text += skip, len -= skip;
  while (len > 0 && text[len - 1] == '\n') --len;
  JsonMembers(l).Str("message", text, len);
}

}  // namespace

// Child-safe: writes into the line's own buffer.
Line& Line::JsonStr(const char* s, size_t n, size_t max) {
  if (s == nullptr) return room() < 4 ? Cut(len_) : Str("null");
  if (room() < 2) return Cut(len_);
  size_t limit = len_ + (max < room() ? (max < 2 ? 2 : max) : room()) - 1;  // the last byte: the quote
  static const char kHex[] = "0123456789abcdef";
  const unsigned char* u = reinterpret_cast<const unsigned char*>(s);
  buf_[len_++] = '"';
  for (size_t k = 0, used = 1; k < n && u[k] != '\0'; k += used) {
    unsigned char c = u[k];
    char out[6] = {'\\', static_cast<char>(c)};
    const char* from = out;
    size_t w = 2;
    used = 1;
    if (c >= 0x80) {
      w = Utf8At(u + k, n - k, &used);
      from = s + k;
      if (w == 0) from = "\xef\xbf\xbd", w = 3;  // U+FFFD
    } else if (c == '\n') {
      out[1] = 'n';
    } else if (c == '\t') {
      out[1] = 't';
    } else if (c < 0x20 || c == 0x7f) {
      out[1] = 'u', out[2] = '0', out[3] = '0', out[4] = kHex[c >> 4], out[5] = kHex[c & 15];
      w = 6;
    } else if (c != '"' && c != '\\') {
      out[0] = static_cast<char>(c);
      w = 1;
    }
    if (len_ + w > limit) {
      truncated_ = true;
      break;
    }
    for (size_t i = 0; i < w; ++i) buf_[len_++] = from[i];
  }
  buf_[len_++] = '"';
  return *this;
}

// Child-safe: appends to the caller's line.
size_t JsonMembers::Begin(const char* key) {
  size_t mark = line_->size();
  if (mark > 0 && line_->data()[mark - 1] != '{') line_->Str(",");
  line_->Str("\"").Str(key).Str("\":");
  return mark;
}

// Child-safe: rewinds the caller's line.
JsonMembers& JsonMembers::End(size_t mark, bool was_truncated, bool cut_ok) {
  if (line_->truncated() && !cut_ok) line_->Rewind(mark);
  line_->set_truncated(was_truncated || line_->truncated());
  return *this;
}

// Child-safe: appends to the caller's line.
JsonMembers& JsonMembers::Str(const char* key, const char* value, size_t n, size_t max) {
  bool was = line_->truncated();
  line_->set_truncated(false);
  size_t mark = Begin(key), at = line_->size();
  if (!line_->truncated()) line_->JsonStr(value, n, max);
  return End(mark, was, line_->size() > at);
}

// Child-safe: appends to the caller's line.
JsonMembers& JsonMembers::Num(const char* key, long long value) {
  bool was = line_->truncated();
  line_->set_truncated(false);
  size_t mark = Begin(key);
  line_->Num(value);
  return End(mark, was, false);
}

// Child-safe: appends to the caller's line.
JsonMembers& JsonMembers::Literal(const char* key, const char* json) {
  bool was = line_->truncated();
  line_->set_truncated(false);
  size_t mark = Begin(key);
  line_->Str(json);
  return End(mark, was, false);
}

// Child-safe: appends to the caller's line.
JsonMembers& JsonMembers::Bits(const char* key, const uint64_t* words, uint32_t nwords) {
  bool was = line_->truncated();
  line_->set_truncated(false);
  size_t mark = Begin(key);
  line_->Str("\"").Bits(words, nwords).Str("\"");
  return End(mark, was, false);
}

namespace {

// Child-safe: the members that say which rank a line is about, bound or not (null for what is unknown).
void RankMembers(JsonMembers* j, const char* event, bool rank_known, uint32_t rank, uint32_t nranks,
                 const char* rank_var, const char* command, const char* launch) {
  j->Str("event", event);
  if (rank_known)
    j->Num("rank", rank);
  else
    j->Literal("rank", "null");
  if (nranks != 0)
    j->Num("nranks", nranks);
  else
    j->Literal("nranks", "null");
  j->Str("rank_var", rank_var != nullptr ? rank_var : "NUMABIND_MATCH")
      .Str("command", command, ~size_t{0}, kMaxCommand);
  // The launch (shim/launcher/launch_id.h) the parent side named before the fork: never made here.
  if (launch != nullptr && launch[0] != '\0') j->Str("launch", launch);
}

}  // namespace

// Child-safe: appends to the caller's line.
void JsonBound(Line* line, const BoundEvent& b) {
  line->Reserve(kHeadMax + kTail);  // JsonBoundLine puts the body after Head
  JsonMembers j(line);
  RankMembers(&j, b.again ? "rebound" : "bound", true, b.rank, b.nranks, b.rank_var, b.command, b.launch);
  j.Bits("cpus", b.cpus, b.cpu_words).Bits("nodes", b.nodes, b.node_words);
  j.Str("memory", b.memory_denied != nullptr ? "unchanged" : b.memory);
  j.Str("device", b.device != nullptr && b.device[0] != '\0' ? b.device : nullptr);
  j.Str("entry", EntryName(b.entry)).Literal("replaced", b.replaced != nullptr ? "true" : "false");
  if (b.replaced != nullptr) j.Bits("launcher_cpus", b.replaced, b.replaced_words);
  if (b.device_nodes != nullptr) j.Bits("device_nodes", b.device_nodes, b.node_words);
  if (b.policy != nullptr) j.Str("policy", b.policy);
  if (b.share[0] != '\0') j.Str("auto", b.share);
}

// Child-safe: formats into the caller's line.
size_t JsonEndLine(Line* out, pid_t pid, const char* launch) {
  out->Reserve(kTail);
  Head(out, config::LogLevel::kInfo, pid);
  JsonMembers(out).Str("event", "end").Str("launch", launch);
  return Close(out);
}

// Child-safe: formats into the caller's line.
size_t JsonBoundLine(Line* l, const Line& body, pid_t pid, const char* stack) {
  l->Reserve(kTail);
  Head(l, config::LogLevel::kInfo, pid);
  // JsonBound left room for Head: the body fits, whole members.
  bool fits = body.size() + 1 <= l->room();
  if (body.size() > 0 && fits) l->Str(",").Str(body.data(), body.size());
  l->set_truncated(l->truncated() || body.truncated() || !fits);
  if (stack != nullptr) JsonMembers(l).Str("stack", stack);
  return Close(l);
}

// Child-safe: formats into the caller's line.
size_t JsonMessage(Line* l, config::LogLevel level, const char* text, size_t len, bool truncated,
                   const char* site_ignored) {
  l->Reserve(kTail);
  l->set_truncated(truncated);
  Head(l, level, base::Sys6(SYS_getpid));
  if (site_ignored != nullptr) JsonMembers(l).Str("event", "site_file").Str("ignored", site_ignored);
  Message(l, text, len);
  return Close(l);
}

// Child-safe: formats into the caller's line.
size_t JsonUnbound(Line* l, const UnboundEvent& e, const char* text, size_t len, bool truncated) {
  l->Reserve(kTail);
  l->set_truncated(truncated);
  Head(l, config::LogLevel::kWarn, base::Sys6(SYS_getpid));
  JsonMembers j(l);
  RankMembers(&j, e.refused ? "refused" : "unbound", e.rank_known, e.rank, e.nranks, e.rank_var, e.command,
              e.launch);
  Message(l, text, len);
  return Close(l);
}

// Child-safe: formats into the caller's line.
size_t JsonReleased(Line* l, uint32_t rank, uint32_t nranks, const char* command, const char* launch,
                    const char* text, size_t len, bool truncated) {
  l->Reserve(kTail);
  l->set_truncated(truncated);
  Head(l, config::LogLevel::kInfo, base::Sys6(SYS_getpid));
  JsonMembers j(l);
  RankMembers(&j, "released", true, rank, nranks, nullptr, command != nullptr ? command : "", launch);
  j.Str("entry", EntryName(Entry::kFork));
  Message(l, text, len);
  return Close(l);
}

// Child-safe: formats into the caller's line.
size_t JsonLogFileNote(Line* l, const char* file, const char* why) {
  l->Reserve(kTail);
  Head(l, config::LogLevel::kWarn, base::Sys6(SYS_getpid));
  JsonMembers(l)
      .Str("message", "NUMABIND_LOG_FILE cannot be written: logging to standard error")
      .Str("log_file", file)
      .Str("error", why);
  return Close(l);
}

}  // namespace numabind::shim
