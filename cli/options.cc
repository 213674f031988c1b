// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What the commands share: option parsing, the environment with the options' variables, validation through
// config::Parse, and aligned tables.

#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cstddef>

#include "base/nearest.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/site_file.h"

namespace numabind::cli {
namespace {

std::string UnknownOption(const char* command, const std::string& name, const OptionSpec* specs,
                          size_t nspecs) {
  std::string msg = std::string("numabind ") + command + ": unknown option " + name;
  base::Nearest near(name.data(), name.size());
  for (size_t i = 0; i < nspecs; ++i) near.Offer(specs[i].name);
  if (near.best() != nullptr) return msg + " (did you mean " + near.best() + "?)";
  return msg + " (numabind " + command + " --help lists the options)";
}

}  // namespace

bool ParsedArgs::Has(const char* name) const { return Value(name) != nullptr; }

const std::string* ParsedArgs::Value(const char* name) const {
  bool known = false;
  for (size_t i = 0; i < accepted.count; ++i) known = known || strcmp(accepted.specs[i].name, name) == 0;
  if (!known) {
    // A bug, not a usage error: the command reads an option its record lacks, which no one can give.
    fprintf(stderr, "numabind: internal error: %s is not one of the command's options\n", name);
    abort();
  }
  const std::string* found = nullptr;
  for (const auto& [spec, value] : options) {
    if (strcmp(spec->name, name) == 0) found = &value;
  }
  return found;
}

namespace {

bool ParseWords(const char* command, const Args& args, const OptionSpec* specs, size_t nspecs,
                bool stop_at_command, ParsedArgs* out, std::string* error) {
  *out = ParsedArgs();
  out->accepted = {specs, nspecs};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out->positionals.insert(out->positionals.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                              args.end());
      return true;
    }
    if (a == "-h" || a == "--help") {
      out->help = true;
      continue;
    }
    if (a.size() < 2 || a[0] != '-') {
      if (stop_at_command) {
        out->positionals.insert(out->positionals.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                                args.end());
        return true;
      }
      out->positionals.push_back(a);
      continue;
    }
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    const OptionSpec* spec = nullptr;
    for (size_t k = 0; k < nspecs; ++k) {
      if (name == specs[k].name) spec = &specs[k];
    }
    if (spec == nullptr || a[1] != '-') {
      *error = UnknownOption(command, name, specs, nspecs);
      return false;
    }
    if (spec->flag) {
      if (eq != std::string::npos) {
        *error = std::string("numabind ") + command + ": " + name + " takes no value";
        return false;
      }
      out->options.emplace_back(spec, spec->flag_value);
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      *error = std::string("numabind ") + command + ": " + name + " needs a value (" + name + " " +
               spec->arg + ")";
      return false;
    }
    out->options.emplace_back(spec, value);
  }
  return true;
}

/// The first two options of one group of alternatives that were both given, as "--json and --draw", in
/// the record's order; "" when there are none.
std::string Together(const ParsedArgs& parsed) {
  const OptionList& list = parsed.accepted;
  for (size_t start = 0; start < list.count;) {
    size_t end = start + 1;
    while (end < list.count && list.specs[end].alternative) ++end;
    const char* first = nullptr;
    for (size_t i = start; i < end; ++i) {
      if (!parsed.Has(list.specs[i].name)) continue;
      if (first != nullptr) return std::string(first) + " and " + list.specs[i].name;
      first = list.specs[i].name;
    }
    start = end;
  }
  return "";
}

}  // namespace

bool ParseArgs(const char* command, const Args& args, const OptionSpec* specs, size_t nspecs,
               bool stop_at_command, ParsedArgs* out, std::string* error) {
  if (!ParseWords(command, args, specs, nspecs, stop_at_command, out, error)) return false;
  std::string both = Together(*out);
  if (both.empty()) return true;
  *error = std::string("numabind ") + command + ": " + both + " do not go together";
  return false;
}

void Environment::Set(const std::string& name, const std::string& value) {
  std::string entry = name + "=" + value;
  bool replaced = false;
  for (auto& s : strings) {
    if (s.compare(0, name.size() + 1, name + "=") == 0) {
      s = entry;
      replaced = true;
      break;
    }
  }
  if (!replaced) strings.push_back(entry);
  ptrs.clear();
  for (const auto& s : strings) ptrs.push_back(s.c_str());
  ptrs.push_back(nullptr);
}

void Environment::Unset(const std::string& name) {
  std::string prefix = name + "=";
  std::vector<std::string> kept;
  for (auto& s : strings) {
    if (s.compare(0, prefix.size(), prefix) != 0) kept.push_back(std::move(s));
  }
  strings = std::move(kept);
  ptrs.clear();
  for (const auto& s : strings) ptrs.push_back(s.c_str());
  ptrs.push_back(nullptr);
}

const char* Environment::Get(const char* name) const { return config::Lookup(get(), name); }

Environment MergeOptions(const char* const* env, const ParsedArgs& parsed) {
  Environment e;
  for (const char* const* p = env; p != nullptr && *p != nullptr; ++p) e.strings.emplace_back(*p);
  for (const auto& s : e.strings) e.ptrs.push_back(s.c_str());
  e.ptrs.push_back(nullptr);
  for (const auto& [spec, value] : parsed.options) {
    if (spec->var != kNoVar) e.Set(config::kVarNames[spec->var], value);
  }
  return e;
}

const config::SiteFile& SiteDefaults(const char* const* env, FILE* err) {
  static config::SiteFile* site = nullptr;  // read once per process, as the library does
  if (site != nullptr) return *site;
  site = new config::SiteFile();
  const char* path = config::SiteFilePath(env);
  config::Error e;
  if (path != nullptr && !config::ReadSiteFile(path, site, &e) && err != nullptr)
    fprintf(err, "numabind: %s (the file is ignored)\n", e.text);
  else if (e.warning[0] != '\0' && err != nullptr)
    fprintf(err, "numabind: %s; ignored\n", e.warning);
  return *site;
}

std::string ValidateConfig(const Environment& env, const ParsedArgs& parsed, config::Config* cfg,
                           std::string* warning) {
  config::Error err;
  bool ok = config::Parse(env.get(), cfg, &err);
  // The site file's defaults, under the environment's and the options' values, as the library's.
  if (!cfg->disabled) config::ApplySite(env.get(), SiteDefaults(env.get(), stderr), cfg);
  // An unknown NUMABIND_* name is ignored, as the library ignores it (a newer version's variable or a
  // typo must not change the plan); the caller says it.
  if (warning != nullptr) *warning = err.warning;
  if (ok) return "";
  return AsOption(err.text, parsed);
}

int ConfigOfOptions(const char* command, const Invocation& call, const ParsedArgs& parsed,
                    Environment* merged, config::Config* cfg) {
  *merged = MergeOptions(call.env, parsed);
  merged->Unset("NUMABIND_DISABLE");  // the plan is the same whether or not the library is switched off
  std::string warning;
  std::string error = ValidateConfig(*merged, parsed, cfg, &warning);
  if (!error.empty()) {
    fprintf(call.err, "numabind %s: %s\n", command, error.c_str());
    return kExitUsage;
  }
  if (!warning.empty()) fprintf(call.err, "numabind %s: %s; ignored\n", command, warning.c_str());
  return -1;
}

std::string AsOption(const std::string& text, const ParsedArgs& parsed) {
  // Name the option the user typed rather than the variable it became.
  for (const auto& [spec, value] : parsed.options) {
    if (spec->var == kNoVar) continue;
    std::string shown = value.size() <= 96 ? value : value.substr(0, 96) + "...";
    std::string prefix = std::string(config::kVarNames[spec->var]) + "=" + shown + ": ";
    if (text.compare(0, prefix.size(), prefix) == 0) {
      return std::string(spec->name) + " " + shown + ": " + text.substr(prefix.size());
    }
  }
  return text;
}

void PrintTable(FILE* out, const std::vector<std::vector<std::string>>& rows) {
  size_t ncols = 0;
  for (const auto& row : rows) ncols = std::max(ncols, row.size());
  std::vector<size_t> widths(ncols, 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      // A short row's last cell (a message) runs on without widening the columns it spans.
      if (row.size() < ncols && i + 1 == row.size()) break;
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    fprintf(out, "%s\n", line.c_str());
  }
}

}  // namespace numabind::cli
