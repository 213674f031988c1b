// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The command's text for a terminal, rendered from the command table (cli/commands.h): `numabind` alone (a
// short usage), `numabind --help`, `numabind help COMMAND` and `COMMAND --help`.

#include <string.h>

#include <algorithm>

#include "cli/cli.h"
#include "cli/commands.h"
#include "config/vars.h"

namespace numabind::cli {
namespace {

/// The widest synopsis the command list puts beside its summary; a wider one has its summary below.
constexpr size_t kListHeadMax = 48;
/// The help's width.
constexpr size_t kHelpWidth = 100;

/// A command's options, one per line: its head, then its text wrapped beside it.
void PrintOptions(FILE* out, OptionList list) {
  size_t width = 0;
  for (size_t i = 0; i < list.count; ++i) width = std::max(width, OptionHead(list.specs[i]).size());
  for (size_t i = 0; i < list.count; ++i) {
    std::string wrapped = Wrap(OptionText(list.specs[i]), 2 + width + 2, kHelpWidth);
    fprintf(out, "  %-*s  %s", static_cast<int>(width), OptionHead(list.specs[i]).c_str(),
            wrapped.c_str() + 2 + width + 2);
  }
}

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

std::string OptionText(const OptionSpec& o) {
  // An option whose variable takes a fixed list of words offers them (config/choices.h), then its help.
  char words[256] = "";
  if (o.var != kNoVar && !o.flag) config::VarChoicesText(o.var, words, sizeof(words));
  std::string text = words;
  if (!text.empty() && *o.help != '\0') text += "; ";
  text += o.help;
  if (o.var != kNoVar) text += std::string(" (") + config::kVarNames[o.var] + ")";
  return text;
}

void PrintCommandList(FILE* out) {
  std::vector<std::string> heads;
  size_t width = 0;
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    std::string synopsis = Synopsis(c);
    heads.push_back(std::string("numabind ") + c.name + (synopsis.empty() ? "" : " ") + synopsis);
    if (c.listing != Listing::kInternal && heads.back().size() <= kListHeadMax)
      width = std::max(width, heads.back().size());
  }
  for (size_t i = 0; i < kCommandCount; ++i) {
    if (kCommands[i].listing == Listing::kInternal) continue;
    if (heads[i].size() > width)
      fprintf(out, "  %s\n%*s", heads[i].c_str(), static_cast<int>(2 + width), "");
    else
      fprintf(out, "  %-*s", static_cast<int>(width), heads[i].c_str());
    fprintf(out, "  %s\n", kCommands[i].summary);
  }
  fprintf(out, "  numabind --version\n");
}

void PrintCommandHelp(const Command& c, FILE* out) {
  std::string synopsis = Synopsis(c);
  fprintf(out, "Usage: numabind %s%s%s\n", c.name, synopsis.empty() ? "" : " ", synopsis.c_str());
  for (const char* const* p = c.help->about; *p != nullptr; ++p) fprintf(out, "\n%s\n", *p);
  if (c.options != nullptr) {
    fprintf(out, "\n");
    PrintOptions(out, c.options());
  }
  fprintf(out, "\nExit status: %s\n", c.help->exit_status);
}

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

}  // namespace numabind::cli
