// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The command table (cli/commands.h), the synopsis made from a record, and the dispatch. A new command is
// one row here and its own file (its options, help and function).

#include "cli/commands.h"

#include "base/nearest.h"

namespace numabind::cli {
namespace {

/// Options a synopsis spells out; a command with more says "[OPTIONS]" and its help lists them.
constexpr size_t kSynopsisOptionsMax = 5;

const char* const kHelpAbout[] = {
    "Prints what COMMAND does, its options and its exit status, as numabind COMMAND --help does; without\n"
    "COMMAND, the commands and every NUMABIND_* variable, as numabind --help does.",
    nullptr};
const HelpText kHelpHelp = {kHelpAbout, "0, 2 when COMMAND is not one that has help."};

int HelpMain(const Invocation& call) {
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  if (parsed.positionals.empty()) {
    PrintUsage(call.out);
    return 0;
  }
  const std::string& name = parsed.positionals[0];
  const Command* c = FindCommand(name);
  if (c == nullptr || c->help == nullptr) {
    fprintf(call.err, "numabind help: no command %s (numabind --help lists them)\n", name.c_str());
    return kExitUsage;
  }
  PrintCommandHelp(*c, call.out);
  return 0;
}

}  // namespace

const Command kCommands[] = {
    {"run", Operands::kProgram, "run CMD with libnumabind.so preloaded", &kRunHelp, RunOptions, RunMain,
     Listing::kManual},
    {"plan", Operands::kNone, "show where each local rank goes", &kPlanHelp, PlanOptions, PlanMain,
     Listing::kManual},
    {"bind", Operands::kProgram, "run CMD bound as one rank, or rebind a process", &kBindHelp, BindOptions,
     BindMain, Listing::kManual},
    {"show", Operands::kPids, "show where processes run (default: this one)", &kShowHelp, ShowOptions,
     ShowMain, Listing::kManual},
    {"report", Operands::kLogs, "did every rank of a job run where it should?", &kReportHelp, ReportOptions,
     ReportMain, Listing::kManual},
    {"ps", Operands::kNone, "list the processes numabind bound", &kPsHelp, PsOptions, PsMain,
     Listing::kManual},
    {"vars", Operands::kNone, "list or check the NUMABIND_* variables", &kVarsHelp, VarsOptions, VarsMain,
     Listing::kManual},
    {"completion", Operands::kShell, "the bash or zsh completion script", &kCompletionHelp, nullptr,
     CompletionMain, Listing::kManual},
    {"help", Operands::kCommand, "a command's options", &kHelpHelp, nullptr, HelpMain, Listing::kUsage},
    {"prepare-basis", Operands::kNone, "the planner helper the library runs", nullptr, nullptr,
     PrepareBasisMain, Listing::kInternal},
    {"man", Operands::kSection, "the manual page in roff", nullptr, nullptr, ManMain, Listing::kInternal},
};
const size_t kCommandCount = sizeof(kCommands) / sizeof(kCommands[0]);

const Command* FindCommand(const std::string& name) {
  for (size_t i = 0; i < kCommandCount; ++i) {
    if (name == kCommands[i].name) return &kCommands[i];
  }
  return nullptr;
}

const char* OperandsText(Operands operands) {
  switch (operands) {
    case Operands::kNone: return "";
    case Operands::kProgram: return "[--] CMD [ARGS...]";
    case Operands::kPids: return "[PID...]";
    case Operands::kLogs: return "[FILE|DIR|PATTERN...]";
    case Operands::kCommand: return "[COMMAND]";
    case Operands::kShell: return "bash|zsh";
    case Operands::kSection: return "1|7";
  }
  return "";
}

std::string Synopsis(const Command& c) {
  OptionList list = c.options != nullptr ? c.options() : OptionList{nullptr, 0};
  std::string s;
  if (list.count > kSynopsisOptionsMax) {
    s = "[OPTIONS]";
  } else {
    for (size_t i = 0; i < list.count; ++i) {
      const OptionSpec& o = list.specs[i];
      s += o.alternative ? "|" : s.empty() ? "[" : " [";
      s += OptionHead(o);
      if (i + 1 == list.count || !list.specs[i + 1].alternative) s += "]";
    }
  }
  const char* operands = OperandsText(c.operands);
  if (!s.empty() && *operands != '\0') s += " ";
  return s + operands;
}

std::string OptionHead(const OptionSpec& o) { return o.flag ? o.name : std::string(o.name) + " " + o.arg; }

namespace {

/// Whether `word` is one of the words of a kShell or kSection synopsis ("1|7").
bool IsOperandWord(Operands operands, const std::string& word) {
  std::string words = std::string("|") + OperandsText(operands) + "|";
  return !word.empty() && words.find("|" + word + "|") != std::string::npos;
}

}  // namespace

int StartCommand(const Invocation& call, ParsedArgs* parsed) {
  const Command& c = call.command;
  OptionList list = c.options != nullptr ? c.options() : OptionList{nullptr, 0};
  std::string error;
  if (!ParseArgs(c.name, call.args, list.specs, list.count, c.operands == Operands::kProgram, parsed,
                 &error)) {
    fprintf(call.err, "%s\n", error.c_str());
    return kExitUsage;
  }
  if (parsed->help && c.help != nullptr) {
    PrintCommandHelp(c, call.out);
    return 0;
  }
  const Args& given = parsed->positionals;
  size_t most = c.operands == Operands::kNone ? 0 : c.operands == Operands::kCommand ? 1 : given.size();
  if (c.operands == Operands::kShell || c.operands == Operands::kSection) {
    if (parsed->help || given.size() != 1 || !IsOperandWord(c.operands, given[0])) {
      fprintf(call.err, "usage: numabind %s %s (prints %s)\n", c.name, Synopsis(c).c_str(), c.summary);
      return kExitUsage;
    }
  } else if (given.size() > most) {
    fprintf(call.err, "numabind %s: unexpected argument %s (numabind %s --help lists the options)\n", c.name,
            given[most].c_str(), c.name);
    return kExitUsage;
  }
  return -1;
}

int RunNamed(const std::string& name, const Args& args, const char* const* env, const char* argv0, FILE* out,
             FILE* err) {
  const Command* c = FindCommand(name);
  if (c == nullptr) {
    fprintf(err, "numabind: unknown command %s\n", name.c_str());
    return kExitUsage;
  }
  return c->run({*c, args, env, argv0, out, err});
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
  if (FindCommand(command) != nullptr) return RunNamed(command, args, env, argv[0], stdout, stderr);
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
