// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Text the command did not write itself (a log's fields for `report`; another process's command line,
// environment and /proc fields for `ps` and `show`) on its way to a terminal. Any user can put control
// characters there (`exec -a`, a crafted log line); printed raw, they would drive the terminal of whoever
// reads the output, root included. Every such field goes through one of these two, and nothing else.

#ifndef NUMABIND_CLI_PRINTABLE_H_
#define NUMABIND_CLI_PRINTABLE_H_

#include <string>

namespace numabind::cli {

/// `s` for a text output: each control character (C0, DEL, and C1 as UTF-8, U+0080..U+009F, which start
/// escape sequences too) written as \xNN, or \u00NN for C1; every other byte as it is.
std::string Printable(const std::string& s);

/// `s` as a JSON string literal, quotes included: \" \\ \n \t \r, the other C0 characters, DEL and C1 as
/// \u00NN (valid JSON either way; escaped, the output cannot drive a terminal showing it).
std::string JsonString(const std::string& s);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_PRINTABLE_H_
