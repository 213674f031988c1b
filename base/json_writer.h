// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one JSON writer, for the library's log (shim/log/json_log.cc, between fork and exec too) and every
// --json of the command (cli/printable.h's JsonFile), after bpftool's json_writer: objects, arrays, keys,
// strings, numbers, literals, written in order into a buffer the caller supplies. No allocation, stdio,
// locks or libc calls, so it is child-safe. Two ways to use the buffer:
//  - fixed (no sink): the output is at most the buffer. A member (key and value) or array element that does
//    not fit is left out whole, a string value is cut between two characters instead, and containers still
//    close: room for each closer is kept, and for the root object's "truncated" member (TruncatedKey);
//  - flushing (a sink): the buffer goes to the sink whenever it fills, so the output has no size limit and
//    nothing is left out.
// Each output has one escaping rule (JsonEscape): strict UTF-8 for the log, the terminal's for the command.

#ifndef NUMABIND_BASE_JSON_WRITER_H_
#define NUMABIND_BASE_JSON_WRITER_H_

#include <stddef.h>
#include <stdint.h>

#include "base/text_writer.h"

namespace numabind::base {

/// How string bytes are written. Both escape '"' and '\\', write \n \t \r as such and the other C0
/// characters and DEL as \u00XX.
enum class JsonEscape : uint8_t {
  /// The log's (docs/log.md): strict UTF-8; each maximal invalid subpart becomes U+FFFD (as Unicode
  /// recommends); other characters as they are.
  kStrictUtf8,
  /// The command's, whose output a terminal may show (cli/printable.h): C1 characters (U+0080..U+009F,
  /// which start escape sequences too) as \u00XX as well; every other byte as it is.
  kTerminal,
};

/// Child-safe: a JSON text written into buf[0..cap), NUL-terminated.
class JsonWriter {
 public:
  /// Takes a flushing writer's full buffer; false when it could not (a write error: failed() says so).
  using Sink = bool (*)(void* context, const char* data, size_t n);
  /// Writes a Verbatim value's text at `at` when it is at most `room` bytes (at[room] is writable too, for
  /// a NUL), and returns its length either way.
  using Fill = size_t (*)(const void* data, char* at, size_t room);
  static constexpr size_t kMaxDepth = 16;  ///< deeper containers are written as null
  static constexpr size_t kNoMax = ~size_t{0};

  /// Fixed with `sink` nullptr, else flushing into `sink`. A buffer under 16 bytes holds little.
  JsonWriter(char* buf, size_t cap, JsonEscape escape, Sink sink = nullptr, void* context = nullptr)
      : text_{buf, cap, 0}, sink_(sink), context_(context), escape_(escape) {
    if (cap > 0) buf[0] = '\0';
  }

  JsonWriter& BeginObject() { return Begin(true); }
  JsonWriter& EndObject() { return End(); }
  JsonWriter& BeginArray() { return Begin(false); }
  JsonWriter& EndArray() { return End(); }
  /// The next member's key (escaped like a string); its value follows.
  JsonWriter& Key(const char* name) { return Key(name, StrLen(name)); }
  JsonWriter& Key(const char* name, size_t n);
  /// A NUL-terminated string; nullptr is null.
  JsonWriter& String(const char* s) { return s == nullptr ? Null() : String(s, StrLen(s)); }
  /// n bytes of s (a NUL among them escaped), cut between two characters after `max` bytes of output
  /// (quotes included, at least 2). A cut, in either way of writing, sets truncated().
  JsonWriter& String(const char* s, size_t n, size_t max = kNoMax);
  /// Any string with data() and size() (the command's std::string), NULs included.
  template <typename Text, typename = decltype(static_cast<const Text*>(nullptr)->size())>
  JsonWriter& String(const Text& s) {
    return String(s.data(), s.size());
  }
  template <typename Text, typename = decltype(static_cast<const Text*>(nullptr)->size())>
  JsonWriter& Key(const Text& name) {
    return Key(name.data(), name.size());
  }
  JsonWriter& Int(int64_t v);
  JsonWriter& Uint(uint64_t v);
  JsonWriter& Bool(bool v) { return Literal(v ? "true" : "false"); }
  JsonWriter& Null() { return Literal("null"); }
  /// A string whose text `fill` writes in place, text that needs no escaping (a CPU list): written whole
  /// or not at all, so that left_out_whole() tells when a larger buffer would have held it.
  JsonWriter& Verbatim(Fill fill, const void* data);
  /// Layout: the next value, or the container's end, begins on a new line indented by `indent` spaces
  /// (after the comma that separates it).
  JsonWriter& Break(uint32_t indent) {
    break_ = indent + 1;
    return *this;
  }
  /// The member a root object ends with when something was left out or cut, `"KEY":true` (the log's
  /// "truncated"); nullptr, the default: none. Call it before the root object begins (its room is kept).
  void TruncatedKey(const char* key) { truncated_key_ = key; }
  /// The caller left something out itself: the root object says so too.
  void SayTruncated() { truncated_ = true; }
  /// Ends the text with a newline (its room is kept) and flushes it; returns its length in all.
  size_t Finish();
  /// A flushing writer: hands the buffer to the sink.
  void Flush();

  const char* data() const { return text_.buf; }  ///< the buffer (a fixed writer's whole text)
  size_t size() const { return text_.len; }       ///< bytes in the buffer
  bool truncated() const { return truncated_; }
  bool left_out_whole() const { return left_out_whole_; }
  bool failed() const { return failed_; }

 private:
  bool Fixed() const { return sink_ == nullptr; }
  /// Where the output is, counting what was flushed.
  size_t Pos() const { return flushed_ + text_.len; }
  /// A fixed writer's last usable position: what is kept for Finish's newline, the closers of the open
  /// containers and the root object's truncated member is not.
  size_t Limit() const;
  bool Over() const { return Fixed() && text_.len > Limit(); }
  void Put(char c);
  void Raw(const char* s);
  /// Starts a value: its member's key (Key wrote it) or the comma and the break before it. Returns where
  /// the value's member began, and in *had whether its container had a member before.
  size_t Open(bool* had);
  void Separate();
  void ApplyBreak();
  /// Keeps the value begun at `mark` when it fit; else drops it (and its key) and says truncated.
  bool Keep(size_t mark, bool had);
  void Rewind(size_t mark, bool had);
  JsonWriter& Literal(const char* text);
  JsonWriter& Begin(bool object);
  JsonWriter& End();
  /// Writes n bytes of s quoted and escaped, stopping (truncated) where the output would pass `end`.
  void Quoted(const char* s, size_t n, size_t end);

  TextWriter text_;
  Sink sink_;
  void* context_;
  JsonEscape escape_;
  size_t flushed_ = 0;
  size_t depth_ = 0;
  size_t skip_ = 0;         ///< containers written as null, with what is inside them
  bool object_[kMaxDepth];  ///< by depth, set as each container begins (no memset in a child)
  bool any_[kMaxDepth];     ///< the container has a member already
  bool keyed_ = false;      ///< a key was written; its value comes next
  bool key_had_ = false;
  size_t key_mark_ = 0;
  uint32_t break_ = 0;  ///< indent + 1 of a pending Break, 0 when none
  const char* truncated_key_ = nullptr;
  bool closing_root_ = false;  ///< the root object's truncated member is being written: its room is free
  bool truncated_ = false;
  bool left_out_whole_ = false;
  bool failed_ = false;
};

}  // namespace numabind::base

#endif  // NUMABIND_BASE_JSON_WRITER_H_
