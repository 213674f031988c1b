// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FORMAT=json (shim/log/json_log.h). Every function here may run between fork/vfork and exec:
// raw system calls, buffers on the caller's stack.

#include "shim/log/json_log.h"

#include <sys/utsname.h>
#include <time.h>

#include "base/json_writer.h"
#include "base/syscalls.h"
#include "config/log_keys.h"
#include "plan/plan_basis.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

using config::LogKey;
using Json = base::JsonWriter;

constexpr size_t kMaxCommand = 512;  // of JSON output: the members after it still fit

/// Child-safe: writes n as exactly `width` digits at d.
void Digits(char* d, long n, int width) {
  for (int i = width - 1; i >= 0; --i, n /= 10) d[i] = static_cast<char>('0' + n % 10);
}

/// Child-safe: a member's key, as config/log_keys.def spells it.
Json& Key(Json* j, LogKey key) { return j->Key(config::LogKeyName(key)); }

/// Child-safe: a member whose value is a C string (nullptr: null), cut after `max` bytes of output.
void Str(Json* j, LogKey key, const char* s, size_t max = Json::kNoMax) {
  Key(j, key);
  if (s == nullptr)
    j->Null();
  else
    j->String(s, base::StrLen(s), max);
}

struct BitList {
  const uint64_t* words;
  uint32_t nwords;
};

/// Child-safe: a bit set in Linux list form ("0-3,8"), or "none", at `at` when it fits `room` bytes.
size_t FillBits(const void* data, char* at, size_t room) {
  const BitList* b = static_cast<const BitList*>(data);
  size_t need = plan::FormatBitList(b->words, b->nwords, at, room + 1);
  if (need > 0) return need;
  const char kNone[] = "none";
  for (size_t i = 0; i < sizeof(kNone) && i <= room; ++i) at[i] = kNone[i];
  return sizeof(kNone) - 1;
}

/// Child-safe: a member whose value is a bit set as a string, whole or not at all (Json::Verbatim).
void Bits(Json* j, LogKey key, const uint64_t* words, uint32_t nwords) {
  BitList b{words, nwords};
  Key(j, key).Verbatim(FillBits, &b);
}

/// Child-safe: starts the object: {"time":"2026-12-02T17:30:00.123Z","host":"...","pid":N,"level":"...",
/// keeping room for "truncated" and the object's end.
void Head(Json* j, config::LogLevel level, long pid) {
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
  j->TruncatedKey(config::LogKeyName(LogKey::kTruncated));
  j->BeginObject();
  Str(j, LogKey::kTime, time);
  Str(j, LogKey::kHost, named ? u.nodename : nullptr);
  Key(j, LogKey::kPid);
  if (pid > 0)
    j->Int(pid);
  else
    j->Null();
  Str(j, LogKey::kLevel, kLevels[static_cast<int>(level)]);
}

/// Child-safe: ends the object (saying so when something was left out) and the line; returns its length.
size_t Close(Json* j) {
  j->EndObject();
  return j->Finish();
}

/// Child-safe: a text line (`len` bytes) as the "message" member, without "numabind: " and the newline.
void Message(Json* j, const char* text, size_t len) {
  const char kPrefix[] = "numabind: ";
  size_t skip = 0;
  while (skip < sizeof(kPrefix) - 1 && skip < len && text[skip] == kPrefix[skip]) ++skip;
  if (skip == sizeof(kPrefix) - 1) text += skip, len -= skip;
  while (len > 0 && text[len - 1] == '\n') --len;
  Key(j, LogKey::kMessage).String(text, len);
}

// Child-safe: the members that say which rank a line is about, bound or not (null for what is unknown).
void RankMembers(Json* j, const char* event, bool rank_known, uint32_t rank, uint32_t nranks,
                 const char* rank_var, const char* command, const char* launch) {
  Str(j, LogKey::kEvent, event);
  Key(j, LogKey::kRank);
  if (rank_known)
    j->Uint(rank);
  else
    j->Null();
  Key(j, LogKey::kNranks);
  if (nranks != 0)
    j->Uint(nranks);
  else
    j->Null();
  Str(j, LogKey::kRankVar, rank_var != nullptr ? rank_var : "NUMABIND_MATCH");
  Str(j, LogKey::kCommand, command, kMaxCommand);
  // The launch (shim/launcher/launch_id.h) the parent side named before the fork: never made here.
  if (launch != nullptr && launch[0] != '\0') Str(j, LogKey::kLaunch, launch);
}

/// Child-safe: the whole line of a bound rank; *left_out says whether a list was left out for want of room.
size_t BoundLine(Line* out, const BoundEvent& b, pid_t pid, const char* stack, bool* left_out) {
  Json j = out->Json();
  Head(&j, config::LogLevel::kInfo, pid);
  RankMembers(&j, b.again ? "rebound" : "bound", true, b.rank, b.nranks, b.rank_var, b.command, b.launch);
  Bits(&j, LogKey::kCpus, b.cpus, b.cpu_words);
  Bits(&j, LogKey::kNodes, b.nodes, b.node_words);
  Str(&j, LogKey::kMemory, b.memory_denied != nullptr ? "unchanged" : b.memory);
  Str(&j, LogKey::kDevice, b.device != nullptr && b.device[0] != '\0' ? b.device : nullptr);
  Str(&j, LogKey::kEntry, EntryName(b.entry));
  Key(&j, LogKey::kReplaced).Bool(b.replaced != nullptr);
  if (b.replaced != nullptr) Bits(&j, LogKey::kLauncherCpus, b.replaced, b.replaced_words);
  if (b.device_nodes != nullptr) Bits(&j, LogKey::kDeviceNodes, b.device_nodes, b.node_words);
  if (b.policy != nullptr) Str(&j, LogKey::kPolicy, b.policy);
  if (b.share[0] != '\0') Str(&j, LogKey::kAuto, b.share);
  if (b.inside != nullptr) Key(&j, LogKey::kInside).String(b.inside, b.inside_len);
  if (stack != nullptr) Str(&j, LogKey::kStack, stack);
  *left_out = j.left_out_whole();
  return Close(&j);
}

}  // namespace

// Child-safe: formats into the caller's line (grown: a mapping the line unmaps).
size_t JsonBoundLine(Line* out, const BoundEvent& event, pid_t pid, const char* stack) {
  bool left_out = false;
  size_t n = BoundLine(out, event, pid, stack, &left_out);
  // A list is written whole or not at all: when one was left out (more than 2 KiB: a large machine's
  // scattered CPUs), the line is made again in a mapping where the largest machine's lists fit.
  if (left_out && out->Grow()) n = BoundLine(out, event, pid, stack, &left_out);
  return n;
}

// Child-safe: formats into the caller's line.
size_t JsonEndLine(Line* out, pid_t pid, const char* launch, const Locality& where) {
  Json j = out->Json();
  Head(&j, config::LogLevel::kInfo, pid);
  Str(&j, LogKey::kEvent, "end");
  Str(&j, LogKey::kLaunch, launch);
  if (!where.measured) return Close(&j);
  const base::NodeMemory& m = where.memory;
  Key(&j, LogKey::kAnonKb).Uint(m.AnonKb());
  Key(&j, LogKey::kLocalKb).Uint(where.local_kb);
  Key(&j, LogKey::kRemoteNode);
  if (where.most_remote < 0)
    j.Null();
  else
    j.Int(where.most_remote);
  char by_node[base::kNumaMapsNodes * 24];
  size_t at = 0;
  for (uint32_t n = 0; n < base::kNumaMapsNodes; ++n) {
    if (m.anon_kb[n] == 0) continue;
    if (at > 0) by_node[at++] = ',';
    at += base::FormatDecimal(n, by_node + at);
    by_node[at++] = ':';
    at += base::FormatDecimal(m.anon_kb[n], by_node + at);
  }
  Key(&j, LogKey::kByNode).String(by_node, at);
  uint64_t file = 0;
  for (uint64_t kb : m.file_kb) file += kb;
  Key(&j, LogKey::kFileKb).Uint(file);
  Bits(&j, LogKey::kPlannedNodes, where.nodes, 2);
  Key(&j, LogKey::kThreads).Uint(where.threads);
  Key(&j, LogKey::kOutside).Uint(where.outside);
  if (where.outside > 0) {
    char named[kNamedOutside * 100];
    size_t k = 0;
    auto put = [&](const char* s) {
      while (*s != '\0' && k + 1 < sizeof(named)) named[k++] = *s++;
    };
    for (uint32_t i = 0; i < where.outside && i < kNamedOutside; ++i) {
      const OutsideThread& t = where.named[i];
      if (i > 0) put("; ");
      char tid[24];
      tid[base::FormatDecimal(static_cast<uint64_t>(t.tid), tid)] = '\0';
      put(tid), put(" "), put(t.name[0] != '\0' ? t.name : "?"), put(" "), put(t.cpus);
    }
    Key(&j, LogKey::kOutsideThreads).String(named, k);
  }
  if (m.cut) Key(&j, LogKey::kPartial).Bool(true);
  return Close(&j);
}

// Child-safe: formats into the caller's line.
size_t JsonMessage(Line* out, config::LogLevel level, const char* text, size_t len, bool truncated,
                   const char* site_ignored) {
  Json j = out->Json();
  if (truncated) j.SayTruncated();
  Head(&j, level, base::Sys6(SYS_getpid));
  if (site_ignored != nullptr) {
    Str(&j, LogKey::kEvent, "site_file");
    Str(&j, LogKey::kIgnored, site_ignored);
  }
  Message(&j, text, len);
  return Close(&j);
}

// Child-safe: formats into the caller's line.
size_t JsonUnbound(Line* out, const UnboundEvent& e, const char* text, size_t len, bool truncated) {
  Json j = out->Json();
  if (truncated) j.SayTruncated();
  Head(&j, config::LogLevel::kWarn, base::Sys6(SYS_getpid));
  RankMembers(&j, e.refused ? "refused" : "unbound", e.rank_known, e.rank, e.nranks, e.rank_var, e.command,
              e.launch);
  Message(&j, text, len);
  return Close(&j);
}

// Child-safe: formats into the caller's line.
size_t JsonReleased(Line* out, uint32_t rank, uint32_t nranks, const char* command, const char* launch,
                    const char* text, size_t len, bool truncated) {
  Json j = out->Json();
  if (truncated) j.SayTruncated();
  Head(&j, config::LogLevel::kInfo, base::Sys6(SYS_getpid));
  RankMembers(&j, "released", true, rank, nranks, nullptr, command != nullptr ? command : "", launch);
  Str(&j, LogKey::kEntry, EntryName(Entry::kFork));
  Message(&j, text, len);
  return Close(&j);
}

// Child-safe: formats into the caller's line.
size_t JsonLogFileNote(Line* out, const char* file, const char* why) {
  Json j = out->Json();
  Head(&j, config::LogLevel::kWarn, base::Sys6(SYS_getpid));
  Str(&j, LogKey::kMessage, "NUMABIND_LOG_FILE cannot be written: logging to standard error");
  Str(&j, LogKey::kLogFile, file);
  Str(&j, LogKey::kError, why);
  return Close(&j);
}

}  // namespace numabind::shim
