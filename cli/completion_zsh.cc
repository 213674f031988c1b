// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind completion zsh`: zsh's completion for numabind, from the command table as bash's is
// (cli/completion.h). zsh's own machinery does the work bash's script does by hand: _arguments parses the
// options (--opt VALUE and --opt=VALUE alike, "--" and the command after it), _describe lists the commands
// with their summaries, _values completes a comma list of words once each (--export omp,gpu).

#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/completion.h"

namespace numabind::cli {
namespace {

/// `text` for inside the script's single quotes ('\'' for a quote); with `bracket`, an _arguments
/// description's brackets made parentheses; with `colon`, a colon escaped (a message or a value's name).
std::string Quoted(const std::string& text, bool bracket = false, bool colon = false) {
  std::string out;
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else if (bracket && (c == '[' || c == ']'))
      out += c == '[' ? '(' : ')';
    else if (colon && c == ':')
      out += "\\:";
    else
      out += c;
  }
  return out;
}

/// The action of an option's value: its words (those ending in ':' go on without a space: cpus:LIST), a
/// comma list of items (and the words that are none of them, before a comma), files.
std::string ValueAction(const OptionSpec& o) {
  bool files = false;
  std::string items;
  std::string words = o.var != kNoVar ? ValueWords(o.var, &items, &files) : "";
  if (!items.empty()) {
    std::string whole;  // the alternatives that are no item of the list (none): only before a comma
    for (size_t at = 0, end; at < words.size(); at = end + 1) {
      end = words.find(' ', at);
      if (end == std::string::npos) end = words.size();
      std::string w = words.substr(at, end - at);
      if ((" " + items + " ").find(" " + w + " ") == std::string::npos) whole += " " + w;
    }
    return "{_numabind_list " + std::string(o.name + 2) + " '" + items + "'" + whole + "}";
  }
  // In braces: code, run as it is (a bare command would get _arguments' -J and -X options as words).
  std::string action;
  if (!words.empty()) action = "_numabind_words " + words;
  if (files) action += std::string(action.empty() ? "" : "; ") + "_files";
  return action.empty() ? " " : "{" + action + "}";
}

/// One option's _arguments spec: '--policy=[how each rank is placed]:P:{_numabind_words node ...}'.
std::string OptionSpecText(const OptionSpec& o, const OptionSpec* before, const OptionSpec* after) {
  std::string spec = "'";
  // Two alternatives exclude each other (--json and --draw): each is not offered once the other is given.
  std::string excluded;
  if (o.alternative && before != nullptr) excluded = before->name;
  if (after != nullptr && after->alternative)
    excluded += (excluded.empty() ? "" : " ") + std::string(after->name);
  if (!excluded.empty()) spec += "(" + excluded + ")";
  spec += o.name;
  if (!o.flag) spec += "=";
  spec += "[" + Quoted(OptionText(o), true) + "]";
  if (!o.flag) spec += ":" + Quoted(o.arg, false, true) + ":" + Quoted(ValueAction(o), false, true);
  return spec + "'";
}

/// What a command's arguments are, as _arguments specs.
std::string OperandsSpec(Operands operands) {
  switch (operands) {
    case Operands::kNone: return "";
    case Operands::kProgram: return "'*::command:{_numabind_command}'";
    case Operands::kLogs: return "'*:log file, directory or pattern:_files'";
    case Operands::kPids: return "'*:process id:_pids'";
    case Operands::kCommand: return "'1:command:{_numabind_words @DOCUMENTED@}'";
    case Operands::kShell:
    case Operands::kSection: {
      std::string words = OperandsText(operands);
      for (char& ch : words) ch = ch == '|' ? ' ' : ch;
      return "'1:word:(" + words + ")'";
    }
  }
  return "";
}

/// One command's case: _arguments with its options and arguments.
std::string CommandCase(const Command& c) {
  std::string out = std::string("        ") + c.name + ")\n          _arguments -S \\\n";
  out += "            '(- *)--help[print this command'\\''s options and help]' \\\n";
  if (c.options != nullptr) {
    OptionList list = c.options();
    for (size_t i = 0; i < list.count; ++i)
      out += "            " +
             OptionSpecText(list.specs[i], i > 0 ? &list.specs[i - 1] : nullptr,
                            i + 1 < list.count ? &list.specs[i + 1] : nullptr) +
             " \\\n";
  }
  std::string args = OperandsSpec(c.operands);
  if (!args.empty()) out += "            " + args + " \\\n";
  out.resize(out.size() - 3);  // the last " \"
  return out + " && ret=0 ;;\n";
}

constexpr char kScript[] = R"SH(#compdef numabind
# zsh completion for numabind(1): its commands, each command's options and their values.
# Made by `numabind completion zsh` from the command's own tables; do not edit.

# Words of an option's value; one that ends in ':' (cpus:, nodes:) goes on without a space.
_numabind_words() {
  local -a whole open
  local w
  for w in "$@"; do
    if [[ $w == *: ]]; then open+=("$w"); else whole+=("$w"); fi
  done
  (( $#whole )) && compadd -a whole
  (( $#open )) && compadd -S '' -a open
  return 0
}

# A command and its arguments; the "--" before it, which -S leaves in the words, is no command.
_numabind_command() {
  if [[ $words[1] == -- ]]; then
    shift words
    (( CURRENT-- ))
  fi
  _normal
}

# A comma list of ITEMS, each once (--export omp,gpu), or before any comma one of WORDS (none).
# No locals: _values reads names of its own from the caller's scope.
_numabind_list() {
  [[ $PREFIX != *,* ]] && (( $# > 2 )) && compadd -- "${@:3}"
  _values -s , "$1" ${=2}
}

_numabind() {
  local curcontext=$curcontext state line ret=1
  local -a subcommands=(  # not `commands`: zsh's own table of programs, which _normal reads
@COMMANDS@  )
  _arguments -C '(- *)--help[print the commands and every variable]' '(- *)--version[print the version]' \
    '1:command:->command' '*::argument:->argument' && ret=0
  case $state in
    command) _describe -t commands 'numabind command' subcommands && ret=0 ;;
    argument)
      curcontext=${curcontext%:*:*}:numabind-$words[1]:
      case $words[1] in
@CASES@      esac ;;
  esac
  return ret
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _numabind "$@"
else
  compdef _numabind numabind
fi
)SH";

std::string Replaced(std::string text, const std::string& key, const std::string& value) {
  size_t at;
  while ((at = text.find(key)) != std::string::npos) text.replace(at, key.size(), value);
  return text;
}

}  // namespace

void PrintZsh(FILE* out) {
  std::string commands, documented, cases;
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    if (c.listing == Listing::kInternal) continue;
    commands += std::string("    '") + c.name + ":" + Quoted(c.summary) + "'\n";  // its first colon splits
    if (c.help != nullptr) documented += std::string(documented.empty() ? "" : " ") + c.name;
    cases += CommandCase(c);
  }
  std::string script = Replaced(kScript, "@COMMANDS@", commands);
  script = Replaced(script, "@CASES@", cases);
  fputs(Replaced(script, "@DOCUMENTED@", documented).c_str(), out);
}

}  // namespace numabind::cli
