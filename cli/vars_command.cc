// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind vars [--markdown|--check]`: every NUMABIND_* variable of config/vars.def with its value in
// effect here, README.md's table of them, or the check of a configuration (cli/check_config.cc).

#include "cli/cli.h"
#include "cli/commands.h"
#include "config/vars.h"

namespace numabind::cli {
namespace {

const OptionSpec kVarsOptions[] = {
    {"--markdown", kNoVar, true, "", "the table for README.md"},
    {"--check", kNoVar, true, "", "check the environment and the site file; exit 1 on any problem", true},
};

const char* const kVarsAbout[] = {
    "Lists every NUMABIND_* variable: accepted values, default and meaning, and the value in effect here\n"
    "with where it comes from: the environment, the site file's line (docs/site.md) or the default.\n"
    "--markdown prints the table that README.md holds between <!-- vars:begin --> and <!-- vars:end -->.\n"
    "--check checks the environment and the site file instead, as numabind run does before it starts:\n"
    "every bad value and every bad line of the site file (FILE:LINE: why), which leave ranks unbound, and\n"
    "every unknown NUMABIND_* name with the nearest known one, which numabind ignores. It prints one ok\n"
    "line when all is well.",
    nullptr};

/// What variable `id` accepts, for people (config::VarValues).
std::string Values(int id) {
  char accepts[256];
  return std::string(accepts, config::VarValues(id, accepts, sizeof(accepts)));
}

std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

/// Variable `id`'s value for a process with environment `env` and where it comes from (docs/site.md).
std::string InEffect(const char* const* env, const config::SiteFile& site, int id) {
  const auto& v = config::kVars[id];
  std::string value, from;
  uint32_t line = 0;
  if (config::EnvSets(env, id)) {
    value = config::Lookup(env, v.name), from = "the environment";
  } else if (const char* s = config::SiteValue(site, id, &line)) {
    value = s, from = std::string(site.path) + ":" + std::to_string(line);
  } else if (id == config::kVarConfigFile) {
    return std::string(config::kSiteFilePath) + " (the default)";
  } else {
    return v.dflt != nullptr ? std::string(v.dflt) + " (the default)" : "unset (the default)";
  }
  config::Config scratch;
  config::Error err;
  bool good = config::ParseVar(v.name, value.c_str(), &scratch, &err);
  return (value.empty() ? "\"\"" : value) + " (" + from +
         (good ? ")" : "; bad: " + std::string(err.text) + ")");
}

/// Which site file the values below come from, and whether numabind is switched off.
void PrintSiteHeader(FILE* out, const char* const* env, const config::SiteFile& site) {
  const char* path = config::SiteFilePath(env);
  fprintf(out, "In effect here: the environment's values, then the site file's, then the defaults.\n");
  if (path == nullptr)
    fprintf(out, "Site file: none (NUMABIND_CONFIG_FILE=none).\n");
  else if (site.path == nullptr)
    fprintf(out, "Site file: %s: none read (absent, or ignored as reported above).\n", path);
  else
    fprintf(out, "Site file: %s, %d variable%s.\n", path, site.count, site.count == 1 ? "" : "s");
  config::Config c;
  config::Parse(env, &c, nullptr);
  if (!c.disabled) config::ApplySite(env, site, &c);
  if (c.disabled) fprintf(out, "NUMABIND_DISABLE=1: numabind is switched off.\n");
  fprintf(out, "\n");
}

/// `numabind vars --check`'s output: every problem, one a line, then a count; or one line saying all is
/// well. 0 when nothing is wrong, else kExitFailure (a warning too: a prologue must hear of a typo).
int PrintCheck(const ConfigCheck& check, FILE* out) {
  if (check.problems.empty()) {
    fprintf(out, "numabind vars --check: ok (%s)\n", check.checked.c_str());
    return 0;
  }
  for (const auto& p : check.problems) fprintf(out, "%s%s\n", p.text.c_str(), p.error ? "" : "; ignored");
  fprintf(out, "numabind vars --check: %d error%s, %d warning%s (%s)\n", check.errors,
          check.errors == 1 ? "" : "s", check.warnings, check.warnings == 1 ? "" : "s",
          check.checked.c_str());
  return kExitFailure;
}

}  // namespace

const HelpText kVarsHelp = {kVarsAbout, "0; with --check, 1 when anything is wrong; 2 for bad usage."};

OptionList VarsOptions() { return {kVarsOptions, sizeof(kVarsOptions) / sizeof(kVarsOptions[0])}; }

void PrintVars(FILE* out, bool markdown, const char* const* env) {
  using config::kVarCount;
  using config::kVars;
  if (markdown) {
    fprintf(out, "| Variable | Values | Default | Meaning |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < kVarCount; ++i) {
      const auto& v = kVars[i];
      std::string dflt = v.dflt != nullptr ? std::string("`") + MarkdownCell(v.dflt) + "`"
                                           : std::string("unset: ") + MarkdownCell(v.unset);
      fprintf(out, "| `%s` | `%s` | %s | %s |\n", v.name, MarkdownCell(Values(i)).c_str(), dflt.c_str(),
              MarkdownCell(v.meaning).c_str());
    }
    fprintf(out,
            "\nAn empty value counts as unset, except for `NUMABIND_MATCH`, where it matches nothing.\n");
    return;
  }
  const config::SiteFile* site = env != nullptr ? &SiteDefaults(env, stderr) : nullptr;
  if (site != nullptr) PrintSiteHeader(out, env, *site);
  for (int i = 0; i < kVarCount; ++i) {
    const auto& v = kVars[i];
    std::string dflt =
        v.dflt != nullptr ? std::string("default: ") + v.dflt : std::string("unset: ") + v.unset;
    fprintf(out, "  %s=%s\n", v.name, Values(i).c_str());
    if (site != nullptr) fprintf(out, "      in effect: %s\n", InEffect(env, *site, i).c_str());
    fprintf(out, "%s", Wrap(dflt + ".", 6, 100).c_str());
    fprintf(out, "%s", Wrap(v.meaning, 6, 100).c_str());
  }
}

int VarsMain(const Invocation& call) {
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  if (parsed.Has("--check")) return PrintCheck(CheckConfig(MergeOptions(call.env, parsed), parsed), call.out);
  PrintVars(call.out, parsed.Has("--markdown"), call.env);
  return 0;
}

}  // namespace numabind::cli
