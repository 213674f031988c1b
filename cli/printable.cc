// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "cli/printable.h"

#include <stdio.h>

namespace numabind::cli {
namespace {

/// Whether s[i] starts a C1 control character in UTF-8 (0xc2 0x80..0x9f).
bool IsC1(const std::string& s, size_t i) {
  unsigned char next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
  return static_cast<unsigned char>(s[i]) == 0xc2 && next >= 0x80 && next < 0xa0;
}

void Append(std::string* out, const char* format, unsigned code) {
  char buf[8];
  snprintf(buf, sizeof(buf), format, code);
  *out += buf;
}

/// JsonString's sink: appends to a std::string.
bool AppendTo(void* context, const char* data, size_t n) {
  static_cast<std::string*>(context)->append(data, n);
  return true;
}

/// JsonFile's sink: writes to a FILE.
bool WriteTo(void* context, const char* data, size_t n) {
  return fwrite(data, 1, n, static_cast<FILE*>(context)) == n;
}

}  // namespace

std::string Printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      Append(&out, "\\x%02x", c);
    } else if (IsC1(s, i)) {
      Append(&out, "\\u%04x", static_cast<unsigned char>(s[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string JsonString(const std::string& s) {
  std::string out;
  char buf[256];
  base::JsonWriter j(buf, sizeof(buf), base::JsonEscape::kTerminal, AppendTo, &out);
  j.String(s.data(), s.size());
  j.Flush();
  return out;
}

JsonFile::JsonFile(FILE* out) : json_(buf_, sizeof(buf_), base::JsonEscape::kTerminal, WriteTo, out) {}

void StringOrNull(base::JsonWriter* j, const std::string& s) {
  if (s.empty())
    j->Null();
  else
    j->String(s.data(), s.size());
}

}  // namespace numabind::cli
