// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What to say when hwloc refuses an XML file because a newer hwloc wrote it (hwloc_io.h).

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>

#include "planner/hwloc_io.h"

namespace numabind::planner {

std::string XmlVersionHint(const std::string& path) {
  // hwloc 2 refuses a version="3.0" file with EINVAL alone (its own line goes to stderr only with
  // HWLOC_XML_VERBOSE), which names neither the file's format nor the fix.
  FILE* f = fopen(path.c_str(), "re");
  if (f == nullptr) return "";
  char head[1024];
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  std::string text(head);
  size_t at = text.find("<topology version=\"");
  if (at == std::string::npos) return "";
  char* end = nullptr;
  unsigned long major = strtoul(text.c_str() + at + 19, &end, 10);
  if (end == text.c_str() + at + 19 || *end != '.') return "";
  unsigned long minor = strtoul(end + 1, &end, 10);
  unsigned long ours = hwloc_get_api_version() >> 16;  // the major version of the running hwloc
  if (major <= ours) return "";
  char hint[256];
  snprintf(
      hint, sizeof hint,
      " (the file is hwloc XML version %lu.%lu; the hwloc %lu numabind runs with reads version %lu files: "
      "write "
      "it again with hwloc %lu's `lstopo --of v2xml`)",
      major, minor, ours, ours, major);
  return hint;
}

}  // namespace numabind::planner
