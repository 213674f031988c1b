// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind completion bash`: the bash completion script, made at build time (the Makefile writes it to
// $(BUILD)/completion/numabind and installs it) from the command table (cli/commands.h): each command's
// options, the values config/vars.def lists for the variable an option sets and the kind of its arguments,
// so that a command, an option or a policy name cannot be added without the completion knowing it.

#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "config/vars.h"

namespace numabind::cli {
namespace {

/// The words a value may be, from what `var` accepts (config::VarValues: its words or vars.def's VALUES)
/// ("node|socket|...|cpus:LIST|..."): the lower-case keywords, and "cpus:" for "cpus:LIST" (the rest is
/// typed). *files when FILE or PATH is one.
std::string ValueWords(config::VarId var, bool* files) {
  char accepts[256];
  std::string values(accepts, config::VarValues(var, accepts, sizeof(accepts)));
  std::string words, token;
  for (size_t i = 0; i <= values.size(); ++i) {
    char c = i < values.size() ? values[i] : '|';
    if (c != '|' && c != ',') {
      token += c;
      continue;
    }
    size_t colon = token.find(':');
    std::string word = token.substr(0, colon == std::string::npos ? token.size() : colon + 1);
    bool keyword = !word.empty() && word[0] >= 'a' && word[0] <= 'z';
    if (token == "FILE" || token == "PATH") *files = true;
    if (keyword && (" " + words + " ").find(" " + word + " ") == std::string::npos)
      words += (words.empty() ? "" : " ") + word;
    token.clear();
  }
  return words;
}

/// What a command's arguments are, for the script: a program to run, files, process ids, a command's name
/// or fixed words.
std::string OperandsCase(Operands operands) {
  switch (operands) {
    case Operands::kNone: return "";
    case Operands::kProgram: return "cmd=1";
    case Operands::kLogs: return "argfiles=1";
    case Operands::kPids: return "pids=1";
    case Operands::kCommand: return "commands=1";
    case Operands::kShell:
    case Operands::kSection: {
      std::string words = OperandsText(operands);
      for (char& ch : words) ch = ch == '|' ? ' ' : ch;
      return "argwords='" + words + "'";
    }
  }
  return "";
}

/// One command's case: its options, the values of the option just typed, and what its arguments are.
std::string CommandCase(const Command& c) {
  std::string opts = "--help", valued, values;
  if (c.options != nullptr) {
    OptionList list = c.options();
    for (size_t i = 0; i < list.count; ++i) {
      const OptionSpec& o = list.specs[i];
      opts += std::string(" ") + o.name;
      if (o.flag) continue;
      valued += (valued.empty() ? "" : " ") + std::string(o.name);
      bool files = false;
      std::string words = o.var != kNoVar ? ValueWords(o.var, &files) : "";
      values +=
          std::string("      ") + o.name + ") words='" + words + "'" + (files ? " files=1" : "") + " ;;\n";
    }
  }
  std::string args = OperandsCase(c.operands);
  std::string out = std::string("    ") + c.name + ")\n";
  out += "      opts='" + opts + "' valued='" + valued + "'" + (args.empty() ? "" : " " + args) + "\n";
  out += "      case $prev in\n" + values + "      esac ;;\n";
  return out;
}

void PrintBash(FILE* out) {
  std::string listed, documented, cases;
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    if (c.listing == Listing::kInternal) continue;
    listed += std::string(listed.empty() ? "" : " ") + c.name;
    if (c.help != nullptr) documented += std::string(documented.empty() ? "" : " ") + c.name;
    cases += CommandCase(c);
  }
  fprintf(
      out,
      "# bash completion for numabind(1): its commands, each command's options and their values.\n"
      "# Made by `numabind completion bash` from the command's own tables; do not edit.\n"
      "_numabind() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} i=$((COMP_CWORD - 1)) prev=\n"
      "  # --opt=value: bash splits at the '='.\n"
      "  if [[ $cur == = ]]; then cur=; prev=${COMP_WORDS[i]}\n"
      "  elif [[ ${COMP_WORDS[i]} == = ]]; then prev=${COMP_WORDS[i - 1]}\n"
      "  else prev=${COMP_WORDS[i]}; fi\n"
      "  COMPREPLY=()\n"
      "  if ((COMP_CWORD == 1)); then\n"
      "    COMPREPLY=($(compgen -W '%s --help --version' -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  local opts= valued= words= files= cmd= argfiles= pids= commands= argwords= n=0 w\n"
      "  case ${COMP_WORDS[1]} in\n"
      "%s"
      "    *) return ;;\n"
      "  esac\n"
      "  if [[ -n $words || -n $files ]]; then\n"
      "    local pre=\n"
      "    [[ $cur == *,* ]] && pre=${cur%%,*}, && cur=${cur##*,}\n"
      "    COMPREPLY=($(compgen -P \"$pre\" -W \"$words\" -- \"$cur\"))\n"
      "    [[ -n $files ]] && COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
      "    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null\n"
      "    return\n"
      "  fi\n"
      "  # An option that takes a value and was given none yet: nothing to offer.\n"
      "  [[ \" $valued \" == *\" $prev \"* ]] && return\n"
      "  # Arguments before this one that are not options (for run: past CMD, CMD's own arguments).\n"
      "  for ((i = 2; i < COMP_CWORD; i++)); do\n"
      "    w=${COMP_WORDS[i]}\n"
      "    if [[ $w == -- ]]; then ((n++)); break\n"
      "    elif [[ $w == -* || $w == = ]]; then continue\n"
      "    elif [[ \" $valued \" == *\" ${COMP_WORDS[i - 1]} \"* ]]; then continue\n"
      "    elif [[ ${COMP_WORDS[i - 1]} == = ]]; then continue\n"
      "    else ((n++)); [[ -n $cmd ]] && break; fi\n"
      "  done\n"
      "  if [[ -n $cmd && $n -gt 0 ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi\n"
      "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return; fi\n"
      "  if [[ -n $cmd ]]; then COMPREPLY=($(compgen -c -- \"$cur\"))\n"
      "  elif [[ -n $argfiles ]]; then COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  elif [[ -n $pids ]]; then COMPREPLY=($(compgen -W \"$(cd /proc && echo [0-9]*)\" -- \"$cur\"))\n"
      "  elif [[ -n $commands && $n -eq 0 ]]; then COMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
      "  elif [[ -n $argwords && $n -eq 0 ]]; then COMPREPLY=($(compgen -W \"$argwords\" -- \"$cur\")); fi\n"
      "}\n"
      "complete -F _numabind numabind\n",
      listed.c_str(), cases.c_str(), documented.c_str());
}

}  // namespace

const char* const kCompletionAbout[] = {
    "Prints the bash completion script for numabind, made from its command table: the commands, each\n"
    "command's options, the values of the variable an option sets (config/vars.def) and what its\n"
    "arguments are. make install puts it where bash-completion finds it; to try it in a shell:\n"
    "source <(numabind completion bash).",
    nullptr};
const HelpText kCompletionHelp = {kCompletionAbout, "0, 2 for bad usage."};

int CompletionMain(const Invocation& call) {
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  PrintBash(call.out);  // StartCommand took "bash", the one shell
  return 0;
}

}  // namespace numabind::cli
