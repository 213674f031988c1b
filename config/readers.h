// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// One reader per NUMABIND_* variable: its value in, its typed field of Config out (config/readers.cc). The
// rows of config/vars.def name them; config::ReadVar calls them for config::Parse and config::ParseVar.
// Compiled into the shim: no allocation, no libc calls.

#ifndef NUMABIND_CONFIG_READERS_H_
#define NUMABIND_CONFIG_READERS_H_

#include <stddef.h>

#include "config/config.h"

namespace numabind::config {

// Each reads `value` (never nullptr; "" only for the rows that read empty values) into its field of `out`;
// on a bad value it leaves the field as it was and writes why into why[0..cap) (what follows
// "NAME=value: ").
bool ReadPolicy(const char* value, Config* out, char* why, size_t cap);
bool ReadMemory(const char* value, Config* out, char* why, size_t cap);
bool ReadDevices(const char* value, Config* out, char* why, size_t cap);
bool ReadNranks(const char* value, Config* out, char* why, size_t cap);
bool ReadRankVar(const char* value, Config* out, char* why, size_t cap);
bool ReadMatch(const char* value, Config* out, char* why, size_t cap);
bool ReadTopology(const char* value, Config* out, char* why, size_t cap);
bool ReadSmt(const char* value, Config* out, char* why, size_t cap);
bool ReadCoreKinds(const char* value, Config* out, char* why, size_t cap);
bool ReadLog(const char* value, Config* out, char* why, size_t cap);
bool ReadLogFormat(const char* value, Config* out, char* why, size_t cap);
bool ReadLogFile(const char* value, Config* out, char* why, size_t cap);
bool ReadStrict(const char* value, Config* out, char* why, size_t cap);
bool ReadDisable(const char* value, Config* out, char* why, size_t cap);
bool ReadShared(const char* value, Config* out, char* why, size_t cap);
bool ReadBound(const char* value, Config* out, char* why, size_t cap);
bool ReadExport(const char* value, Config* out, char* why, size_t cap);
bool ReadGuard(const char* value, Config* out, char* why, size_t cap);
bool ReadLocality(const char* value, Config* out, char* why, size_t cap);
bool ReadMove(const char* value, Config* out, char* why, size_t cap);
bool ReadForks(const char* value, Config* out, char* why, size_t cap);
bool ReadByDevice(const char* value, Config* out, char* why, size_t cap);
bool ReadContainer(const char* value, Config* out, char* why, size_t cap);
bool ReadConfigFile(const char* value, Config* out, char* why, size_t cap);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_READERS_H_
