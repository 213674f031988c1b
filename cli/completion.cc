// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind completion bash|zsh`: the completion scripts, made at build time (the Makefile writes them to
// $(BUILD)/completion/ and installs them) from the command table (cli/commands.h): each command's options,
// the values config/vars.def lists for the variable an option sets and the kind of its arguments, so that a
// command, an option or a policy name cannot be added without the completion knowing it. The bash script is
// here; zsh's is cli/completion_zsh.cc, from the same words (cli/completion.h).

#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "config/vars.h"

namespace numabind::cli {

// Both shells read it (cli/completion.h).
std::string ValueWords(config::VarId var, std::string* items, bool* files) {
  char accepts[256];
  std::string values(accepts, config::VarValues(var, accepts, sizeof(accepts)));
  std::string words, token, list;  // list: the keywords of this alternative
  bool comma = false, all_keywords = true;
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
    all_keywords = all_keywords && keyword && colon == std::string::npos;
    list += (list.empty() ? "" : " ") + token;
    token.clear();
    comma = comma || c == ',';
    if (c == ',') continue;
    if (comma && all_keywords) *items = list;  // the end of a comma list of keywords
    list.clear();
    comma = false, all_keywords = true;
  }
  return words;
}

namespace {

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
      std::string items;
      std::string words = o.var != kNoVar ? ValueWords(o.var, &items, &files) : "";
      values += std::string("      ") + o.name + ") words='" + words + "'" +
                (items.empty() ? "" : " items='" + items + "'") + (files ? " files=1" : "") + " ;;\n";
    }
  }
  std::string args = OperandsCase(c.operands);
  std::string out = std::string("    ") + c.name + ")\n";
  out += "      opts='" + opts + "' valued='" + valued + "'" + (args.empty() ? "" : " " + args) + "\n";
  out += "      case $prev in\n" + values + "      esac ;;\n";
  return out;
}

/// The script, around the command table's words: @COMMANDS@ (those listed), @CASES@ (CommandCase's) and
/// @DOCUMENTED@ (those `help` knows).
constexpr char kScript[] =
    R"SH(# bash completion for numabind(1): its commands, each command's options and their values.
# Made by `numabind completion bash` from the command's own tables; do not edit.
_numabind() {
  # bash splits words at ':' too (COMP_WORDBREAKS): "cpus:0," arrives as "cpus" ":" "0,". Words that touch
  # around a ':' in the line are joined back into args; bash replaces only the current word's text after
  # its last ':', so the replies lose what comes before it (at the end).
  local -a args=()
  local line=${COMP_LINE:0:COMP_POINT} cword=-1 k w sp
  for ((k = 0; k <= COMP_CWORD; k++)); do
    w=${COMP_WORDS[k]}
    sp=${line%%[![:space:]]*}
    line=${line:${#sp}}
    line=${line:${#w}}
    if ((cword >= 0)) && [[ -z $sp && ($w == : || ${args[cword]} == *:) ]]; then args[cword]+=$w
    else args[++cword]=$w; fi
  done
  local whole=${args[cword]} cur=${args[cword]} i=$((cword - 1)) prev=
  # --opt=value: bash splits at the '='.
  if [[ $cur == = ]]; then cur=; prev=${args[i]}
  elif [[ ${args[i]} == = ]]; then prev=${args[i - 1]}
  else prev=${args[i]}; fi
  COMPREPLY=()
  local opts= valued= words= items= files= cmd= argfiles= pids= commands= argwords= n=0 ended= value pre=
  if ((cword == 1)); then
    COMPREPLY=($(compgen -W '@COMMANDS@ --help --version' -- "$cur"))
    return
  fi
  case ${args[1]} in
@CASES@    *) return ;;
  esac
  # The arguments before this one that are not options nor their values (for run: CMD, then CMD's own
  # arguments). "--" ends the options: what follows are arguments, whatever they look like.
  for ((i = 2; i < cword; i++)); do
    w=${args[i]}
    if [[ -z $ended && $w == -- ]]; then ended=1
    elif [[ -z $ended && ($w == -* || $w == = || ${args[i - 1]} == = || " $valued " == *" ${args[i - 1]} "*) ]]
    then :
    else ((n++)); fi
  done
  if [[ -n $cmd && $n -gt 0 ]]; then COMPREPLY=($(compgen -f -- "$cur"))  # CMD's arguments
  elif [[ -n $cmd && -n $ended ]]; then COMPREPLY=($(compgen -c -- "$cur"))
  elif [[ -z $ended && (-n $words || -n $files) ]]; then
    # An option's value. After a comma only a comma list of words goes on, when each item before it is one
    # of them, each once (--export omp,gpu); what else has commas (cpus:0,1) is typed.
    value=$cur
    if [[ $cur == *,* ]]; then
      pre=${cur%,*}, cur=${cur##*,} words=
      local -a given
      IFS=, read -ra given <<<"$pre"
      for w in "${given[@]}"; do [[ " $items " == *" $w "* ]] || items=; done
      for w in $items; do [[ ,$pre == *",$w,"* ]] || words+=" $w"; done
    fi
    COMPREPLY=($(compgen -P "$pre" -W "$words" -- "$cur"))
    [[ -n $files ]] && COMPREPLY+=($(compgen -f -- "$value"))
    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
  # An option that takes a value and was given none yet: nothing to offer.
  elif [[ -z $ended && " $valued " == *" $prev "* ]]; then :
  elif [[ -z $ended && $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ -n $cmd ]]; then COMPREPLY=($(compgen -c -- "$cur"))
  elif [[ -n $argfiles ]]; then COMPREPLY=($(compgen -f -- "$cur"))
  elif [[ -n $pids ]]; then COMPREPLY=($(compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur"))
  elif [[ -n $commands && $n -eq 0 ]]; then COMPREPLY=($(compgen -W '@DOCUMENTED@' -- "$cur"))
  elif [[ -n $argwords && $n -eq 0 ]]; then COMPREPLY=($(compgen -W "$argwords" -- "$cur")); fi
  [[ $whole == *:* ]] && COMPREPLY=("${COMPREPLY[@]#"${whole%"${whole##*:}"}"}")
}
complete -F _numabind numabind
)SH";

/// `text` with the first `key` replaced by `value`.
std::string Replaced(std::string text, const std::string& key, const std::string& value) {
  return text.replace(text.find(key), key.size(), value);
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
  std::string script = Replaced(kScript, "@COMMANDS@", listed);
  script = Replaced(script, "@CASES@", cases);
  fputs(Replaced(script, "@DOCUMENTED@", documented).c_str(), out);
}

}  // namespace

const char* const kCompletionAbout[] = {
    "Prints the bash or zsh completion script for numabind, made from its command table: the commands,\n"
    "each command's options, the values of the variable an option sets (config/vars.def) and what its\n"
    "arguments are. make install puts them where bash-completion and zsh find them; to try one in a\n"
    "shell: source <(numabind completion bash), or in zsh: source <(numabind completion zsh).",
    nullptr};
const HelpText kCompletionHelp = {kCompletionAbout, "0, 2 for bad usage."};

int CompletionMain(const Invocation& call) {
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  if (parsed.positionals[0] == "zsh")  // StartCommand took one of the shells' names
    PrintZsh(call.out);
  else
    PrintBash(call.out);
  return 0;
}

}  // namespace numabind::cli
