// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The library's log (shim/log/log.h). Every function here may run between fork/vfork and exec: raw system
// calls, lines on the caller's stack. The JSON lines are formatted by shim/log/json_log.cc, written here.

#include "shim/log/log.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hot.h"
#include "base/log_path.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "shim/log/json_log.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

bool Json() { return g_startup.config.log_format == config::LogFormat::kJson; }

/// Child-safe: opens NUMABIND_LOG_FILE for one line, or returns -1 with *why set. Never blocks: a FIFO
/// without a reader would hang open() (O_NONBLOCK makes it ENXIO), and a FIFO, terminal or device at a
/// shared log path is refused (O_NOCTTY: never our controlling terminal).
long OpenLogFile(const char* file, const char** why) {
  long fd = base::OpenAt(
      AT_FDCWD, file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
  if (fd < 0) {
    *why = fd == -ENXIO ? "is not a regular file" : base::ErrnoName(static_cast<int>(-fd));
    return -1;
  }
  struct stat st;
  if (base::Fstat(static_cast<int>(fd), &st) != 0 || !S_ISREG(st.st_mode)) {
    base::Sys6(SYS_close, fd);
    *why = "is not a regular file";
    return -1;
  }
  return fd;
}

/// The longest NUMABIND_LOG_FILE once its % sequences are expanded: on the stack of the process that logs,
/// between fork and exec too, so well below PATH_MAX.
constexpr size_t kMaxExpandedLogFile = 1024;

void NoteLogFileFallback(const char* file, const char* why);

/// Child-safe: opens NUMABIND_LOG_FILE `pattern` with its % sequences expanded (base/log_path.h: this
/// process's host, job and pid), or returns -1 after saying why, naming the expanded path. No directory is
/// made: a job's directory is the job script's to create. Not inlined: its path is on the stack only when
/// the value has a % sequence.
__attribute__((noinline)) long OpenExpandedLogFile(const char* pattern, bool note = true) {
  char host[base::kHostNameMax], pid[base::kDecimalMax], path[kMaxExpandedLogFile];
  base::ShortHostName(host);
  base::FormatDecimal(static_cast<uint64_t>(base::Sys6(SYS_getpid)), pid);
  base::LogPathFields fields{host, JobId(), pid};
  const char* why = "is too long once its % sequences are expanded";
  bool expanded = base::ExpandLogPath(pattern, fields, path, sizeof(path)) != 0;
  long fd = expanded ? OpenLogFile(path, &why) : -1;
  if (fd < 0 && note) NoteLogFileFallback(expanded ? path : pattern, why);
  return fd;
}

/// Child-safe: says why the log goes to standard error: a JSON line of its own, or the text line's start.
/// Not inlined: its line is on the stack only on this path.
__attribute__((noinline)) void NoteLogFileFallback(const char* file, const char* why) {
  Line note;
  size_t len;
  if (Json()) {
    len = JsonLogFileNote(&note, file, why);
  } else {
    note.Str("numabind: NUMABIND_LOG_FILE=")
        .Str(file)
        .Str(" ")
        .Str(why)
        .Str(" (logging to standard error): ");
    len = note.size();
  }
  base::Sys6(SYS_write, 2, reinterpret_cast<long>(note.data()), static_cast<long>(len));
}

/// Child-safe: a text line as the message of a JSON line. Not inlined: its line buffer is on the stack only
/// in JSON mode.
__attribute__((noinline)) void WriteJsonMessage(config::LogLevel level, const char* text, size_t len,
                                                bool truncated, const char* site_ignored = nullptr) {
  Line l;
  size_t n = JsonMessage(&l, level, text, len, truncated, site_ignored);
  WriteLogRaw(l.data(), n);
}

/// Child-safe: the JSON line of a rank not bound. Not inlined, as above.
__attribute__((noinline)) void WriteJsonUnbound(const UnboundEvent& e, const char* text, size_t len,
                                                bool truncated) {
  Line l;
  size_t n = JsonUnbound(&l, e, text, len, truncated);
  WriteLogRaw(l.data(), n);
}

/// Child-safe: the JSON line of a bound rank (grown when its lists do not fit 2 KiB: unmapped when it goes).
/// Not inlined, as above.
__attribute__((noinline)) void WriteJsonBound(const BoundEvent& event, pid_t pid, const char* stack) {
  Line l;
  size_t n = JsonBoundLine(&l, event, pid, stack);
  WriteLogRaw(l.data(), n);
}

/// Child-safe: how many bytes of s to write to keep it within max, cut between two UTF-8 characters.
size_t Utf8Prefix(const char* s, size_t max) {
  size_t n = 0;
  while (n < max && s[n] != '\0') ++n;
  if (n == max && s[n] != '\0')
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  return n;
}

/// Child-safe: the text words of a bound rank, its command cut at `command_max` bytes.
void TextBound(const BoundEvent& e, Line* line, size_t command_max) {
  line->Str(e.again ? "numabind: rebound " : "numabind: bound ");
  RankHeading(line, e.rank, e.nranks, e.rank_var,
              e.entry == Entry::kFork ? "order, NUMABIND_FORKS" : "order, NUMABIND_MATCH")
      .Str(" ")
      .Str(e.command, Utf8Prefix(e.command, command_max));
  line->Str(": cpus ").Bits(e.cpus, e.cpu_words).Str(" nodes ").Bits(e.nodes, e.node_words).Str(" memory ");
  if (e.memory_denied != nullptr)
    line->Str("unchanged (set_mempolicy: ").Str(e.memory_denied).Str(")");
  else
    line->Str(e.memory);
  if (e.memory_asked != nullptr) {
    line->Str(" (").Str(e.memory_asked).Str(e.memory_why != nullptr ? " refused: " : ": not in this kernel");
    if (e.memory_why != nullptr) line->Str(e.memory_why);
    line->Str(")");
  }
  if (e.device != nullptr && e.device[0] != '\0') line->Str(" device ").Str(e.device);
  if (e.share[0] != '\0') line->Str(" (auto: ").Str(e.share).Str(")");
  if (e.entry == Entry::kStartup)
    line->Str(" at start-up");
  else
    line->Str(" via ").Str(EntryName(e.entry));
  if (e.replaced != nullptr) {
    line->Str(e.started == StartedBinding::kLauncher ? " (replaced the launcher's binding to cpus "
              : e.started == StartedBinding::kSlurm  ? " (replaced Slurm's binding to cpus "
                                                     : " (replaced the binding it started with, cpus ");
    line->Bits(e.replaced, e.replaced_words).Str(")");
  }
}

/// The longest command a grown text line keeps: its lists are whole, its command not (JSON: 512 bytes).
constexpr size_t kGrownCommandMax = 1024;

/// Child-safe: the event's words.
void FormatBoundIn(const BoundEvent& event, Line* line) {
  TextBound(event, line, line->grown() ? kGrownCommandMax : ~size_t{0});
  if (event.inside == nullptr) return;
  line->Str(" (inside the cpus ").Bits(event.inside_cpus, event.inside_words).Str(" of rank ");
  line->Str(event.inside, event.inside_len).Str(", which numabind bound)");
}

/// Child-safe: describes `event` in `line` (empty) as text, grown (mmap) when a list did not fit; without the
/// pid.
void FormatBound(const BoundEvent& event, Line* line) {
  size_t start = line->size();
  FormatBoundIn(event, line);
  // A list is written whole or not at all: when one was left out (more than 2 KiB: a large machine's
  // scattered CPUs), the line is made again in a mapping where the largest machine's lists fit. Nothing
  // else grows a line: a long command is cut as before.
  if (!line->list_cut() || !line->Grow()) return;
  line->Rewind(start);
  line->set_truncated(false);
  line->set_list_cut(false);
  FormatBoundIn(event, line);
}

}  // namespace

// Child-safe: reads the facts.
const char* JobId() {
  const config::EnvFacts& f = g_startup.facts;
  return base::LogJobId(f.slurm_job_id, f.pbs_jobid, f.lsb_jobid, f.flux_job_id);
}

// Child-safe: reads the configuration.
NUMABIND_HOT bool RecordsRanks() {
  const config::Config& c = g_startup.config;
  return c.log_format == config::LogFormat::kJson && c.log_file != nullptr && c.log_file[0] != '\0';
}

// Child-safe: formats on the stack (a grown line in a mapping it unmaps) and writes with raw system calls.
__attribute__((noinline)) void FinishBound(const BoundEvent& event, pid_t pid) {
  // An info event, in either format; a JSON log file records it whatever the level (numabind report).
  if (g_startup.config.log < config::LogLevel::kInfo && !RecordsRanks()) return;
  const char* stack = event.stack;
  bool debug = g_startup.config.log == config::LogLevel::kDebug && stack != nullptr && stack[0] != '\0';
  if (Json()) return WriteJsonBound(event, pid, debug ? stack : nullptr);
  Line line;  // unmapped when it goes: a vfork child's mapping would be its parent's after the exec
  FormatBound(event, &line);
  if (pid > 0)
    line.Str(" pid ").Num(pid);
  else
    line.Str(" pid unknown");
  if (event.launch != nullptr && event.launch[0] != '\0') line.Str(" launch=").Str(event.launch);
  if (debug) line.Str("\n").Str(stack);
  size_t len = line.Finish();
  WriteLogRaw(line.data(), len);
}

// Child-safe: formats into the caller's line.
Line& RankHeading(Line* l, uint32_t rank, uint32_t nranks, const char* var, const char* order) {
  l->Str("rank ").Num(rank);
  if (nranks != 0) l->Str(" of ").Num(nranks);
  return l->Str(" (").Str(var != nullptr ? var : order).Str(")");
}

void WriteRankEnd(pid_t pid, const char* launch, const Locality& where) {
  if (!RecordsRanks()) return;
  Line line;
  size_t n = JsonEndLine(&line, pid, launch, where);
  WriteLogRaw(line.data(), n, true);  // for report: never on the program's standard error
}

// Child-safe: formats on the stack and writes with raw system calls.
void WriteGaveBack(uint32_t rank, uint32_t nranks, const char* path, const char* launch) {
  if (g_startup.config.log < config::LogLevel::kInfo && !RecordsRanks()) return;
  pid_t pid = static_cast<pid_t>(base::Sys6(SYS_getpid));
  Line text;
  RankHeading(&text.Str("numabind: gave back "), rank, nranks, nullptr, "order, NUMABIND_FORKS");
  text.Str(", taken at fork: the child execs ").Str(path != nullptr ? path : "?");
  text.Str(", so it is no forked worker; its binding is undone pid ").Num(pid);
  if (Json()) {
    Line l;
    size_t n = JsonReleased(&l, rank, nranks, path, launch, text.CStr(), text.size(), text.truncated());
    return WriteLogRaw(l.data(), n);
  }
  size_t len = text.Finish();
  WriteLogRaw(text.data(), len);
}

// Child-safe: as WriteLog at warn, with the event's members in JSON.
void WriteUnbound(const UnboundEvent& event, Line* text) {
  if (g_startup.config.log < config::LogLevel::kWarn && !RecordsRanks()) return;
  if (Json()) return WriteJsonUnbound(event, text->CStr(), text->size(), text->truncated());
  if (event.launch != nullptr && event.launch[0] != '\0') text->Str(" launch=").Str(event.launch);
  size_t len = text->Finish();
  WriteLogRaw(text->data(), len);
}

// Child-safe: as WriteLog at warn, with the site file's members in JSON.
void WriteSiteFileWarning(Line* line, bool whole_file) {
  if (g_startup.config.log < config::LogLevel::kWarn && !RecordsRanks()) return;
  if (Json())
    return WriteJsonMessage(config::LogLevel::kWarn, line->CStr(), line->size(), line->truncated(),
                            whole_file ? "file" : "line");
  size_t len = line->Finish();
  WriteLogRaw(line->data(), len);
}

// Child-safe: a JSON line of its own in JSON mode, else one raw write.
void WriteLog(config::LogLevel level, const char* text, size_t len) {
  if (g_startup.config.log < level) return;
  if (Json()) return WriteJsonMessage(level, text, len, false);
  WriteLogRaw(text, len);
}

NUMABIND_HOT void WriteConfigWarning(const char* warning) {
  if (warning[0] == '\0' || g_startup.warned) return;
  g_startup.warned = true;  // the start-up and the site file's late configuration both parse
  Line line;
  line.Str("numabind: ").Str(warning).Str("; ignored");
  WriteLog(config::LogLevel::kWarn, &line);
}

// Child-safe: as above, saying in JSON when the line was cut short.
void WriteLog(config::LogLevel level, Line* line) {
  if (g_startup.config.log < level) return;
  if (Json()) return WriteJsonMessage(level, line->CStr(), line->size(), line->truncated());
  size_t len = line->Finish();
  WriteLogRaw(line->data(), len);
}

// Child-safe: raw open, write and close; one write per line, so lines from many ranks stay whole.
void WriteLogRaw(const char* text, size_t len, bool file_only) {
  const char* file = g_startup.config.log_file;
  long fd = 2;
  if (file != nullptr && *file != '\0') {
    // On every line that falls back, the note: a vfork child must not remember it.
    if (base::HasLogPathFields(file)) {
      fd = OpenExpandedLogFile(file, !file_only);
    } else {
      const char* why = nullptr;
      fd = OpenLogFile(file, &why);
      if (fd < 0 && !file_only) NoteLogFileFallback(file, why);
    }
    if (fd < 0 && file_only) return;
    if (fd < 0) fd = 2;
  } else if (file_only) {
    return;
  }
  base::Sys6(SYS_write, fd, reinterpret_cast<long>(text), static_cast<long>(len));
  if (fd != 2) base::Sys6(SYS_close, fd);  // never 2 when it is the file: OpenAt gives 3 or above
}

}  // namespace numabind::shim
