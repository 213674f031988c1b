// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Text the command did not write itself (a log's fields for `report`; another process's command line,
// environment and /proc fields for `ps` and `show`) on its way to a terminal. Any user can put control
// characters there (`exec -a`, a crafted log line); printed raw, they would drive the terminal of whoever
// reads the output, root included. Every such field goes through one of these, and nothing else: text
// through Printable, JSON through the command's JSON writer (JsonFile, JsonString), whose one escaping rule
// is base::JsonEscape::kTerminal.

#ifndef NUMABIND_CLI_PRINTABLE_H_
#define NUMABIND_CLI_PRINTABLE_H_

#include <stdio.h>

#include <string>

#include "base/json_writer.h"

namespace numabind::cli {

/// `s` for a text output: each control character (C0, DEL, and C1 as UTF-8, U+0080..U+009F, which start
/// escape sequences too) written as \xNN, or \u00NN for C1; every other byte as it is.
std::string Printable(const std::string& s);

/// `s` as a JSON string literal, quotes included: \" \\ \n \t \r, the other C0 characters, DEL and C1 as
/// \u00NN (valid JSON either way; escaped, the output cannot drive a terminal showing it). What JsonFile
/// writes for a string.
std::string JsonString(const std::string& s);

/// A --json output: the JSON writer (base/json_writer.h) with the command's escaping, flushed to `out`
/// whenever its buffer fills, so that an output has no size limit. End it with json().Finish().
class JsonFile {
 public:
  explicit JsonFile(FILE* out);
  JsonFile(const JsonFile&) = delete;
  JsonFile& operator=(const JsonFile&) = delete;
  base::JsonWriter& json() { return json_; }

 private:
  char buf_[4096];
  base::JsonWriter json_;
};

/// A string member or element of the command's JSON: `s`, or null when it is empty.
void StringOrNull(base::JsonWriter* j, const std::string& s);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_PRINTABLE_H_
