// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A fixed-size line builder for log messages: no allocation, no stdio, no locale, so the child side of a
// spawn can say what it did. Text past the capacity is dropped; the line always ends in '\n'.

#ifndef NUMABIND_SHIM_LINE_H_
#define NUMABIND_SHIM_LINE_H_

#include <stddef.h>
#include <stdint.h>

#include "core/plan_basis.h"

namespace numabind::shim {

class Line {
 public:
  static constexpr size_t kCapacity = 2048;

  /// Child-safe: appends a C string (nullptr appends "(null)").
  Line& Str(const char* s) {
    if (s == nullptr) s = "(null)";
    while (*s != '\0' && len_ < kCapacity - 1) buf_[len_++] = *s++;
    return *this;
  }
  /// Child-safe: appends at most n bytes of s.
  Line& Str(const char* s, size_t n) {
    for (size_t i = 0; i < n && s[i] != '\0' && len_ < kCapacity - 1; ++i) buf_[len_++] = s[i];
    return *this;
  }
  /// Child-safe: appends a decimal number.
  Line& Num(long long v) {
    char digits[24];
    int n = 0;
    unsigned long long u =
        v < 0 ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (v < 0) Str("-");
    while (n > 0 && len_ < kCapacity - 1) buf_[len_++] = digits[--n];
    return *this;
  }
  /// Child-safe: appends a bit set in Linux list form ("0-3,8"), or "none".
  Line& Bits(const uint64_t* words, uint32_t nwords) {
    size_t room = kCapacity - 1 - len_;
    size_t need = core::FormatBitList(words, nwords, buf_ + len_, room + 1);
    len_ += need < room ? need : room;
    if (need == 0) Str("none");
    return *this;
  }
  /// Child-safe: appends s (nullptr: null; at most n bytes, up to a NUL) as a JSON string, quotes
  /// included, escaping quotes, backslashes and control characters; cut short after `max` bytes of output,
  /// the closing quote always written.
  Line& JsonStr(const char* s, size_t n = ~size_t{0}, size_t max = kCapacity) {
    if (s == nullptr) return Str("null");
    static const char kHex[] = "0123456789abcdef";
    size_t limit = len_ + (max < kCapacity ? max : kCapacity);
    if (limit > kCapacity - 3) limit = kCapacity - 3;  // room for the quote and Finish's newline
    if (len_ >= limit) return *this;
    buf_[len_++] = '"';
    for (size_t k = 0; k < n && s[k] != '\0'; ++k) {
      unsigned char c = static_cast<unsigned char>(s[k]);
      char esc[6] = {'\\', static_cast<char>(c)};
      size_t w = 2;
      if (c == '\n') {
        esc[1] = 'n';
      } else if (c == '\t') {
        esc[1] = 't';
      } else if (c < 0x20) {
        esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = kHex[c >> 4], esc[5] = kHex[c & 15];
        w = 6;
      } else if (c != '"' && c != '\\') {
        esc[0] = static_cast<char>(c);
        w = 1;
      }
      if (len_ + w > limit) break;
      for (size_t i = 0; i < w; ++i) buf_[len_++] = esc[i];
    }
    buf_[len_++] = '"';
    return *this;
  }
  /// Child-safe: terminates the line with '\n' and returns its length.
  size_t Finish() {
    if (len_ >= kCapacity - 1) len_ = kCapacity - 2;
    buf_[len_++] = '\n';
    buf_[len_] = '\0';
    return len_;
  }
  /// Child-safe: empties the line, to say something else with it.
  void Reset() { len_ = 0; }
  /// Child-safe: the text so far, NUL-terminated, without a newline.
  const char* CStr() {
    buf_[len_] = '\0';
    return buf_;
  }
  const char* data() const { return buf_; }
  size_t size() const { return len_; }

 private:
  char buf_[kCapacity];
  size_t len_ = 0;
};

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LINE_H_
