// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A fixed-size line builder for log messages: no allocation, no stdio, no locale, so the child side of a
// spawn can say what it did. Text past the capacity is dropped, never part of a UTF-8 character, nor part of
// a number or CPU list; the line always ends in '\n'. A rank's line whose CPU lists do not fit the stack's
// 2 KiB grows into a mapping of its own (Grow), where the lists of the largest machine fit whole.

#ifndef NUMABIND_SHIM_LOG_LINE_H_
#define NUMABIND_SHIM_LOG_LINE_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "base/json_writer.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "plan/plan_basis.h"

namespace numabind::shim {

class Line {
 public:
  static constexpr size_t kCapacity = 2048;
  /// What Grow gives: a bound rank's JSON line with two CPU lists of kMaxCpuWords' worst case (every other
  /// CPU of 8,192: 19,924 bytes each; of 4,096: 9,684), two node lists of kMaxNodeWords' (every other of
  /// 1,024 nodes: 2,004 bytes each), a command of 512 and the rest: under 45 KB.
  static constexpr size_t kGrownCapacity = size_t{64} << 10;

  Line() = default;
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;
  /// Child-safe: unmaps what Grow mapped.
  ~Line() { Release(); }

  /// Child-safe: appends a C string (nullptr appends "(null)").
  Line& Str(const char* s) { return Str(s == nullptr ? "(null)" : s, ~size_t{0}); }
  /// Child-safe: appends at most n bytes of s (up to a NUL); cut short, never inside a UTF-8 character.
  Line& Str(const char* s, size_t n) {
    size_t start = len_, i = 0;
    for (; i < n && s[i] != '\0' && len_ < end_; ++i) buf_[len_++] = s[i];
    if (i < n && s[i] != '\0') Cut(start);
    return *this;
  }
  /// Child-safe: appends a decimal number, whole or not at all.
  Line& Num(long long v) {
    char digits[1 + base::kDecimalMax];
    size_t n = v < 0 ? 1 : 0;
    digits[0] = '-';
    n += base::FormatDecimal(
        v < 0 ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v), digits + n);
    if (len_ + n > end_) return Cut(len_);
    for (size_t i = 0; i < n; ++i) buf_[len_++] = digits[i];
    return *this;
  }
  /// Child-safe: appends a bit set in Linux list form ("0-3,8"), or "none"; whole or not at all.
  Line& Bits(const uint64_t* words, uint32_t nwords) {
    size_t room = this->room();
    size_t need = plan::FormatBitList(words, nwords, buf_ + len_, room + 1);
    if (need > room) {
      list_cut_ = true;
      return Cut(len_);
    }
    len_ += need;
    if (need == 0) Str("none");
    return *this;
  }
  /// Child-safe: a JSON writer (base/json_writer.h, the log's strict UTF-8) over the whole line, grown or
  /// not, for shim/log/json_log.cc: the line's own text is not used beside it, and data() is the writer's.
  base::JsonWriter Json() { return base::JsonWriter(buf_, cap_, base::JsonEscape::kStrictUtf8); }
  /// Child-safe: terminates the line with '\n' and returns its length.
  size_t Finish() {
    buf_[len_++] = '\n';
    buf_[len_] = '\0';
    return len_;
  }
  /// Child-safe: the text so far, NUL-terminated, without a newline.
  const char* CStr() {
    buf_[len_] = '\0';
    return buf_;
  }
  const char* data() const { return buf_; }
  size_t size() const { return len_; }
  /// Bytes the appends may still use.
  size_t room() const { return end_ > len_ ? end_ - len_ : 0; }
  /// Something was left out (or cut short) since the line began or since set_truncated(false).
  bool truncated() const { return truncated_; }
  void set_truncated(bool t) { truncated_ = t; }
  /// A bit list was left out for want of room (what Grow is for), since the line began or set_list_cut.
  bool list_cut() const { return list_cut_; }
  void set_list_cut(bool cut) { list_cut_ = cut; }
  /// Child-safe: keeps `tail` bytes free for what must close the line (a JSON object's end); 0: none.
  void Reserve(size_t tail) { end_ = cap_ - 2 - (tail < cap_ - 2 ? tail : cap_ - 2); }
  /// Child-safe: moves the line (its text kept) into a mapping of kGrownCapacity bytes (mmap: no malloc),
  /// with the same tail reserved. False, and the line as it was, when it has grown already or mmap fails.
  bool Grow() {
    if (buf_ != own_) return false;
    long p = base::Sys6(SYS_mmap, 0, static_cast<long>(kGrownCapacity), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base::SysFailed(p)) return false;
    char* grown = reinterpret_cast<char*>(p);
    for (size_t i = 0; i < len_; ++i) grown[i] = own_[i];
    end_ += kGrownCapacity - kCapacity;
    buf_ = grown, cap_ = kGrownCapacity;
    return true;
  }
  /// Child-safe: unmaps a grown line's mapping and empties it (before an exec in a vfork child, whose
  /// mappings are its parent's).
  void Release() {
    if (buf_ == own_) return;
    base::Sys6(SYS_munmap, reinterpret_cast<long>(buf_), static_cast<long>(kGrownCapacity));
    buf_ = own_, cap_ = kCapacity, len_ = 0, end_ = kCapacity - 2;
  }
  bool grown() const { return buf_ != own_; }
  /// Child-safe: drops what was appended after the first `len` bytes.
  void Rewind(size_t len) {
    if (len < len_) len_ = len;
  }

 private:
  /// Child-safe: marks the line cut and drops a UTF-8 character left incomplete after `start`.
  Line& Cut(size_t start) {
    truncated_ = true;
    size_t lead = len_;
    while (lead > start && len_ - lead < 3 && (static_cast<unsigned char>(buf_[lead - 1]) & 0xc0) == 0x80)
      --lead;
    unsigned char c = lead > start ? static_cast<unsigned char>(buf_[lead - 1]) : 0;
    size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (c >= 0xc0 && len_ - lead + 1 < want) len_ = lead - 1;
    return *this;
  }

  char own_[kCapacity];
  char* buf_ = own_;  ///< own_, or Grow's mapping
  size_t cap_ = kCapacity;
  size_t len_ = 0;
  size_t end_ = kCapacity - 2;  // room for Finish's newline and the NUL
  bool truncated_ = false;
  bool list_cut_ = false;
};

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LOG_LINE_H_
