// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The JSON writer (base/json_writer.h). Every function here is child-safe: it writes only into the
// caller's buffer (or calls the caller's sink).

#include "base/json_writer.h"

namespace numabind::base {
namespace {

/// The room the root object's `,"KEY":true` takes.
size_t TruncatedRoom(const char* key) { return key == nullptr ? 0 : sizeof(",\"\":true") - 1 + StrLen(key); }

/// Child-safe: how the character at u (n > 0 bytes left) is written under `escape`: returns how many bytes,
/// found at *from (`esc`, the text itself, or U+FFFD's), and sets *used to the bytes of u it stands for.
size_t EscapeAt(const unsigned char* u, size_t n, JsonEscape escape, char esc[6], const char** from,
                size_t* used) {
  static const char kHex[] = "0123456789abcdef";
  unsigned char c = u[0];
  *used = 1;
  *from = reinterpret_cast<const char*>(u);
  if (c >= 0x80) {
    size_t w = Utf8Sequence(u, n, used);
    if (escape == JsonEscape::kStrictUtf8 && w == 0) {
      *from = "\xef\xbf\xbd";  // U+FFFD
      return 3;
    }
    if (escape == JsonEscape::kStrictUtf8 || w != 2 || c != 0xc2 || u[1] >= 0xa0) return w != 0 ? w : *used;
    c = u[1];  // C1, U+0080..U+009F, for a terminal: \u00XX below
  }
  *from = esc;
  esc[0] = '\\';
  switch (c) {
    case '"': esc[1] = '"'; return 2;
    case '\\': esc[1] = '\\'; return 2;
    case '\n': esc[1] = 'n'; return 2;
    case '\t': esc[1] = 't'; return 2;
    case '\r': esc[1] = 'r'; return 2;
    default: break;
  }
  if (c >= 0x20 && c != 0x7f && c < 0x80) {
    *from = reinterpret_cast<const char*>(u);
    return 1;
  }
  esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = kHex[c >> 4], esc[5] = kHex[c & 15];
  return 6;
}

}  // namespace

size_t JsonWriter::Limit() const {
  bool root_object = depth_ > 0 && object_[0] && !closing_root_;
  size_t keep = 2 + depth_ + (root_object ? TruncatedRoom(truncated_key_) : 0);
  return text_.cap > keep ? text_.cap - keep : 0;
}

void JsonWriter::Put(char c) {
  if (!Fixed() && text_.len + 1 >= text_.cap) Flush();
  text_.Put(c);
}

void JsonWriter::Raw(const char* s) {
  while (*s != '\0') Put(*s++);
}

void JsonWriter::Flush() {
  if (Fixed() || text_.len == 0) return;
  if (!failed_ && !sink_(context_, text_.buf, text_.len)) failed_ = true;
  flushed_ += text_.len;
  text_.len = 0;
  text_.buf[0] = '\0';
}

void JsonWriter::ApplyBreak() {
  if (break_ == 0) return;
  uint32_t indent = break_ - 1;
  break_ = 0;
  Put('\n');
  for (uint32_t i = 0; i < indent; ++i) Put(' ');
}

void JsonWriter::Separate() {
  if (depth_ > 0) {
    if (any_[depth_ - 1]) Put(',');
    any_[depth_ - 1] = true;
  }
  ApplyBreak();
}

size_t JsonWriter::Open(bool* had) {
  if (keyed_) {
    keyed_ = false;
    *had = key_had_;
    return key_mark_;
  }
  *had = depth_ > 0 && any_[depth_ - 1];
  size_t mark = text_.len;
  Separate();
  return mark;
}

void JsonWriter::Rewind(size_t mark, bool had) {
  text_.len = mark;
  if (mark < text_.cap) text_.buf[mark] = '\0';
  if (depth_ > 0) any_[depth_ - 1] = had;
  truncated_ = true;
}

bool JsonWriter::Keep(size_t mark, bool had) {
  if (!Over()) return true;
  Rewind(mark, had);
  return false;
}

void JsonWriter::Quoted(const char* s, size_t n, size_t end) {
  const unsigned char* u = reinterpret_cast<const unsigned char*>(s);
  Put('"');
  for (size_t k = 0, used = 1; k < n; k += used) {
    char esc[6];
    const char* from;
    size_t w = EscapeAt(u + k, n - k, escape_, esc, &from, &used);
    if (Pos() + w + 1 > end) {
      truncated_ = true;
      break;
    }
    for (size_t i = 0; i < w; ++i) Put(from[i]);
  }
  Put('"');
}

JsonWriter& JsonWriter::Key(const char* name, size_t n) {
  if (skip_ > 0) return *this;
  if (keyed_) Null();  // a key without its value
  key_had_ = depth_ > 0 && any_[depth_ - 1];
  key_mark_ = text_.len;
  Separate();
  Quoted(name, n, kNoMax);  // whole: a key that does not fit goes with its value
  Put(':');
  keyed_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(const char* s, size_t n, size_t max) {
  if (skip_ > 0) return *this;
  bool had;
  size_t mark = Open(&had);
  size_t start = Pos();
  size_t end = max < 2 ? start + 2 : max > kNoMax - start ? kNoMax : start + max;
  if (Fixed()) {
    size_t limit = Limit();
    if (start + 2 > limit) {  // not even the quotes
      Rewind(mark, had);
      return *this;
    }
    if (limit < end) end = limit;
  }
  Quoted(s, n, end);
  Keep(mark, had);
  return *this;
}

JsonWriter& JsonWriter::Literal(const char* text) {
  if (skip_ > 0) return *this;
  bool had;
  size_t mark = Open(&had);
  Raw(text);
  Keep(mark, had);
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t v) {
  char digits[kDecimalMax];
  FormatDecimal(v, digits);
  return Literal(digits);
}

JsonWriter& JsonWriter::Int(int64_t v) {
  char digits[1 + kDecimalMax];
  digits[0] = '-';
  FormatDecimal(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v), digits + 1);
  return Literal(v < 0 ? digits : digits + 1);
}

JsonWriter& JsonWriter::Verbatim(Fill fill, const void* data) {
  if (skip_ > 0) return *this;
  bool had;
  size_t mark = Open(&had);
  Put('"');
  size_t room;  // what the text may take: the closing quote (fixed) or the NUL (flushing) is kept
  if (Fixed()) {
    size_t limit = Limit();
    if (text_.len + 1 > limit) {
      left_out_whole_ = true;
      Rewind(mark, had);
      return *this;
    }
    room = limit - text_.len - 1;
  } else {
    room = text_.cap - 1 - text_.len;
  }
  size_t need = fill(data, text_.buf + text_.len, room);
  if (need > room && !Fixed()) {
    Flush();
    room = text_.cap - 1;
    need = fill(data, text_.buf, room);
  }
  if (need <= room) {
    text_.len += need;
  } else {
    left_out_whole_ = true;
    if (Fixed()) {
      Rewind(mark, had);
      return *this;
    }
    truncated_ = true;  // flushing: its opening quote is out already, so it stays an empty string
  }
  Put('"');
  Keep(mark, had);
  return *this;
}

JsonWriter& JsonWriter::Begin(bool object) {
  if (skip_ > 0 || depth_ == kMaxDepth) {
    if (skip_ == 0) {
      Null();
      truncated_ = true;
    }
    ++skip_;
    return *this;
  }
  bool had;
  size_t mark = Open(&had);
  Put(object ? '{' : '[');
  object_[depth_] = object;
  any_[depth_] = false;
  ++depth_;
  if (!Over()) return *this;
  --depth_;
  Rewind(mark, had);
  ++skip_;
  return *this;
}

JsonWriter& JsonWriter::End() {
  if (skip_ > 0) {
    --skip_;
    return *this;
  }
  if (depth_ == 0) return *this;
  if (keyed_) Null();
  if (depth_ == 1 && object_[0] && truncated_ && truncated_key_ != nullptr) {
    uint32_t pending = break_;
    break_ = 0;
    closing_root_ = true;  // its room, kept since the root began
    Key(truncated_key_).Bool(true);
    closing_root_ = false;
    break_ = pending;
  }
  bool object = object_[--depth_];
  if (break_ != 0 && Fixed() && text_.len + break_ + 1 > Limit()) break_ = 0;  // the closer's room only
  ApplyBreak();
  Put(object ? '}' : ']');
  return *this;
}

size_t JsonWriter::Finish() {
  Put('\n');
  if (Fixed() && text_.len >= text_.cap) {  // a buffer too small for even that
    text_.len = text_.cap > 0 ? text_.cap - 1 : 0;
    truncated_ = true;
  }
  size_t total = Pos();
  Flush();
  return total;
}

}  // namespace numabind::base
