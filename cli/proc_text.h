// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Reading another process's /proc files, for `numabind show` and `numabind ps`: a read may find the process
// gone (ENOENT, or ESRCH once it exited between open and read), which each command handles its own way.

#ifndef NUMABIND_CLI_PROC_TEXT_H_
#define NUMABIND_CLI_PROC_TEXT_H_

#include <stddef.h>

#include <string>
#include <vector>

namespace numabind::cli {

/// Reads at most `max` bytes of `path` into *out; 0 or the errno of the open or read that failed.
int ReadProcFile(const std::string& path, size_t max, std::string* out);

/// The value of a /proc/PID/status line `name:` into *out, or false when it has none.
bool StatusValue(const std::string& status, const char* name, std::string* out);

/// The NUL-separated strings of a /proc file (cmdline, environ).
std::vector<std::string> ProcStrings(const std::string& text);

}  // namespace numabind::cli

#endif  // NUMABIND_CLI_PROC_TEXT_H_
