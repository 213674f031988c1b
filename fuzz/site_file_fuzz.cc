// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file (config::ParseSiteText, what ReadSiteFile runs on the file's bytes). Beyond not crashing:
// a refused file keeps no variable and its error is one line starting "PATH:LINE: " with LINE within the
// file; an accepted file's variables are each a known NUMABIND_* name once, in increasing line order, with a
// value config::ParseVar accepts, and not NUMABIND_BOUND nor NUMABIND_CONFIG_FILE; applied to an empty
// environment, it enables numabind exactly when it sets a policy and does not disable it.

#include <string.h>

#include <string>

#include "config/site_file.h"
#include "fuzz/fuzz_util.h"

namespace {

using numabind::config::Config;
using numabind::config::Error;
using numabind::config::SiteFile;

SiteFile site;  // 16 KiB: not on the stack

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > numabind::config::kSiteFileMax) size = numabind::config::kSiteFileMax;
  memcpy(site.text, data, size);
  size_t lines = 1;
  for (size_t i = 0; i < size; ++i) lines += data[i] == '\n';
  Error err;
  bool ok = numabind::config::ParseSiteText("/f", size, &site, &err);
  size_t len = strnlen(err.text, sizeof(err.text));
  FUZZ_CHECK(len < sizeof(err.text), "error not terminated");
  if (!ok) {
    FUZZ_CHECK(site.count == 0 && site.path == nullptr, "a refused file kept %d variables", site.count);
    unsigned long line = 0;
    FUZZ_CHECK(sscanf(err.text, "/f:%lu: ", &line) == 1 && line >= 1 && line <= lines, "error \"%s\"",
               err.text);
    FUZZ_CHECK(strchr(err.text, '\n') == nullptr, "error of two lines \"%s\"", err.text);
    return 0;
  }
  FUZZ_CHECK(len == 0 && site.path != nullptr, "accepted with error \"%s\"", err.text);
  FUZZ_CHECK(site.count >= 0 && site.count <= numabind::config::kVarCount, "%d variables", site.count);
  bool seen[numabind::config::kVarCount] = {};
  for (int i = 0; i < site.count; ++i) {
    const char* e = site.entries[i];
    const char* eq = strchr(e, '=');
    FUZZ_CHECK(eq != nullptr, "entry \"%s\"", e);
    int id = numabind::config::FindVar(e, static_cast<size_t>(eq - e));
    FUZZ_CHECK(id >= 0 && !seen[id], "entry \"%s\": unknown or twice", e);
    FUZZ_CHECK(id != numabind::config::kVarBound && id != numabind::config::kVarConfigFile, "entry \"%s\"",
               e);
    seen[id] = true;
    FUZZ_CHECK(i == 0 || site.lines[i] > site.lines[i - 1], "lines out of order");
    FUZZ_CHECK(site.lines[i] >= 1 && site.lines[i] <= lines, "line %u of %zu", site.lines[i], lines);
    Config c;
    std::string name(e, static_cast<size_t>(eq - e));
    FUZZ_CHECK(numabind::config::ParseVar(name.c_str(), eq + 1, &c, nullptr), "entry \"%s\" refused", e);
  }
  const char* none[] = {nullptr};
  Config c;
  numabind::config::Parse(none, &c, nullptr);
  numabind::config::ApplySite(none, site, &c);
  uint32_t line = 0;
  const char* policy = numabind::config::SiteValue(site, numabind::config::kVarPolicy, &line);
  if (c.disabled) {
    FUZZ_CHECK(!c.enabled, "disabled yet enabled");
  } else {
    FUZZ_CHECK(c.enabled == (policy != nullptr && *policy != '\0'), "enabled %d, policy %s", c.enabled,
               policy ? policy : "(none)");
  }
  return 0;
}
