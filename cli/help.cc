// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind` alone (a short usage), `numabind --help`, `numabind help COMMAND`, `numabind vars [--markdown]`,
// and the dispatch to the commands of cli/commands.h's table.

#include <string.h>
#include <unistd.h>

#include "base/nearest.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/vars.h"

namespace numabind::cli {
namespace {

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

}  // namespace

std::string Wrap(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(pos, end - pos);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    pos = end + 1;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

void PrintOptions(FILE* out, const OptionSpec* specs, size_t nspecs) {
  std::vector<std::string> heads;
  size_t width = 0;
  for (size_t i = 0; i < nspecs; ++i) {
    std::string head = specs[i].name;
    if (!specs[i].flag) head += std::string(" ") + specs[i].arg;
    width = std::max(width, head.size());
    heads.push_back(head);
  }
  for (size_t i = 0; i < nspecs; ++i) {
    // An option whose variable takes a fixed list of words offers them (config/choices.h), then its help.
    char words[256] = "";
    int var = specs[i].var != nullptr ? config::FindVar(specs[i].var, strlen(specs[i].var)) : -1;
    if (var >= 0 && !specs[i].flag) config::VarChoicesText(var, words, sizeof(words));
    std::string help = words;
    if (!help.empty() && *specs[i].help != '\0') help += "; ";
    help += specs[i].help;
    if (specs[i].var != nullptr) help += std::string(" (") + specs[i].var + ")";
    std::string wrapped = Wrap(help, 2 + width + 2, 100);
    fprintf(out, "  %-*s  %s", static_cast<int>(width), heads[i].c_str(), wrapped.c_str() + 2 + width + 2);
  }
}

namespace {

/// The first lines of the usage and of `--help`: what numabind is, and its commands.
void PrintUsageHead(FILE* out) {
  fprintf(out,
          "numabind %s: starts each rank of a parallel job on the CPUs and memory nearest its accelerator.\n"
          "\n"
          "Usage:\n",
          kVersion);
  PrintCommandList(out);
}

}  // namespace

void PrintUsage(FILE* out) {
  PrintUsageHead(out);
  fprintf(out,
          "\n"
          "Without the command: LD_PRELOAD=/path/to/libnumabind.so NUMABIND_POLICY=node torchrun ...\n"
          "The library does nothing unless NUMABIND_POLICY is set.\n"
          "\n"
          "Variables (an empty value counts as unset, except for NUMABIND_MATCH):\n"
          "\n");
  PrintVars(out, false);
}

void PrintShortUsage(FILE* out) {
  PrintUsageHead(out);
  fprintf(out,
          "\n"
          "More: numabind --help (also every NUMABIND_* variable), numabind help COMMAND, man numabind.\n");
}

void PrintVarsHelp(FILE* out) {
  fprintf(
      out,
      "Usage: numabind vars [--markdown|--check]\n"
      "\n"
      "Lists every NUMABIND_* variable: accepted values, default and meaning, and the value in effect here\n"
      "with where it comes from: the environment, the site file's line (docs/site.md) or the default.\n"
      "--markdown prints the table that README.md holds between <!-- vars:begin --> and <!-- vars:end "
      "-->.\n"
      "--check checks the environment and the site file instead, as numabind run does before it starts:\n"
      "every bad value and every bad line of the site file (FILE:LINE: why), which leave ranks unbound, and\n"
      "every unknown NUMABIND_* name with the nearest known one, which numabind ignores. It prints one ok\n"
      "line when all is well.\n"
      "\n"
      "Exit status: 0; with --check, 1 when anything is wrong; 2 for bad usage.\n");
}

namespace {

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

namespace {
const OptionSpec kVarsOptions[] = {
    {"--markdown", nullptr, true, "", "the table for README.md"},
    {"--check", nullptr, true, "", "check the environment and the site file; exit 1 on any problem"},
};
}  // namespace

OptionList VarsOptions() { return {kVarsOptions, sizeof(kVarsOptions) / sizeof(kVarsOptions[0])}; }

int VarsCommand(const Args& args, const char* const* env, FILE* out, FILE* err) {
  ParsedArgs parsed;
  int started = StartCommand("vars", args, kVarsOptions, VarsOptions().count, CommandShape(), PrintVarsHelp,
                             out, err, &parsed);
  if (started >= 0) return started;
  if (parsed.Has("--check")) {
    if (parsed.Has("--markdown")) {
      fprintf(err, "numabind vars: --check and --markdown do not go together\n");
      return kExitUsage;
    }
    return PrintCheck(CheckConfig(MergeOptions(env, parsed), parsed), out);
  }
  PrintVars(out, parsed.Has("--markdown"), env);
  return 0;
}

bool PrintCommandHelp(const std::string& command, FILE* out) {
  const Command* c = FindCommand(command);
  if (c == nullptr || c->help == nullptr) return false;
  c->help(out);
  return true;
}

int Main(int argc, char** argv, const char* const* env) {
  if (argc < 2) {
    PrintShortUsage(stderr);
    return kExitUsage;
  }
  std::string command = argv[1];
  Args args(argv + 2, argv + argc);
  if (command == "-h" || command == "--help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command == "-V" || command == "--version" || command == "version") {
    printf("numabind %s\n", kVersion);
    return 0;
  }
  if (const Command* c = FindCommand(command)) return c->run({args, env, argv[0], stdout, stderr});
  base::Nearest near(command.data(), command.size());
  if (command[0] == '-') {
    near.OfferEach("--help|--version");
  } else {
    for (size_t i = 0; i < kCommandCount; ++i) {
      if (kCommands[i].listing != Listing::kInternal) near.Offer(kCommands[i].name);
    }
  }
  std::string hint = near.best() != nullptr
                         ? "did you mean " + std::string(near.best(), near.best_len()) + "?"
                         : std::string("numabind --help lists the commands");
  fprintf(stderr, "numabind: unknown %s %s (%s)\n", command[0] == '-' ? "option" : "command", command.c_str(),
          hint.c_str());
  return kExitUsage;
}

}  // namespace numabind::cli
