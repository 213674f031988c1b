// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The check of a configuration before anything runs: `numabind vars --check` (for a job prologue or
// configuration management) prints it, `numabind run` refuses to start on its errors. The environment's
// values go through config::ParseVar and its names through config::UnknownVar, the site file through
// config::ReadSiteFile: the library's own parsers, so the check refuses exactly what would leave a rank
// unbound.

#include <memory>
#include <set>

#include "cli/cli.h"
#include "config/vars.h"

namespace numabind::cli {
namespace {

/// The site file's problems, as ReadSiteFile finds them.
void Collect(void* ctx, bool error, const char* text) {
  auto* check = static_cast<ConfigCheck*>(ctx);
  check->problems.push_back({error, text});
  ++(error ? check->errors : check->warnings);
}

}  // namespace

ConfigCheck CheckConfig(const Environment& env, const ParsedArgs& parsed) {
  ConfigCheck check;
  const char* const* e = env.get();
  // Every value, NUMABIND_DISABLE=1 or not: the check is for the day it is switched back on.
  for (int id = 0; id < config::kVarCount; ++id) {
    const char* v = config::Lookup(e, config::kVarNames[id]);
    if (v == nullptr || (*v == '\0' && !config::ReadsEmpty(id))) continue;
    config::Config scratch;
    config::Error err;
    if (config::ParseVar(config::kVarNames[id], v, &scratch, &err)) continue;
    bool error = !config::WarnsOnly(id);  // as the library takes it: NUMABIND_MOVE's default is used
    check.problems.push_back({error, AsOption(err.text, parsed)});
    ++(error ? check.errors : check.warnings);
  }
  std::set<std::string> named;
  for (const char* const* p = e; *p != nullptr; ++p) {
    char warning[256];
    if (!config::UnknownVar(*p, warning, sizeof(warning)) || !named.insert(warning).second) continue;
    check.problems.push_back({false, warning});
    ++check.warnings;
  }
  const char* path = config::SiteFilePath(e);
  if (path == nullptr) {
    check.checked = "the environment; NUMABIND_CONFIG_FILE=none: no site file";
    return check;
  }
  auto site = std::make_unique<config::SiteFile>();  // 16 KiB: not on the stack
  config::Error err;
  config::SiteListener listener{Collect, &check};
  int errors = check.errors;
  bool ok = config::ReadSiteFile(path, site.get(), &err, &listener);
  if (!ok && check.errors == errors) {  // the file as a whole: unreadable, not a regular file, too large
    check.problems.push_back({true, err.text});
    ++check.errors;
  }
  check.checked = std::string(ok && site->path == nullptr ? "the environment; no site file at "
                                                          : "the environment and ") +
                  path;
  return check;
}

}  // namespace numabind::cli
