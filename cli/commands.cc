// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The command table (cli/commands.h). A new command is one row here and its own file.

#include "cli/commands.h"

#include <algorithm>
#include <string>

namespace numabind::cli {
namespace {

int HelpCommand(const Invocation& c) {
  if (c.args.empty()) {
    PrintUsage(c.out);
    return 0;
  }
  if (!PrintCommandHelp(c.args[0], c.out)) {
    fprintf(c.err, "numabind help: no command %s (numabind --help lists them)\n", c.args[0].c_str());
    return kExitUsage;
  }
  return 0;
}

}  // namespace

const Command kCommands[] = {
    {"run", "[OPTIONS] [--] CMD [ARGS...]", "run CMD with libnumabind.so preloaded",
     [](const Invocation& c) { return RunCommand(c.args, c.env, SelfExe(c.argv0), c.out, c.err); },
     PrintRunHelp, RunOptions, Listing::kManual},
    {"plan", "[OPTIONS]", "show where each local rank goes",
     [](const Invocation& c) { return PlanCommand(c.args, c.env, c.out, c.err); }, PrintPlanHelp, PlanOptions,
     Listing::kManual},
    {"show", "[--json|--draw] [PID...]", "show where processes run (default: this one)",
     [](const Invocation& c) { return ShowCommand(c.args, c.out, c.err); }, PrintShowHelp, ShowOptions,
     Listing::kManual},
    {"report", "[--json|--draw] [LOG...]", "did every rank of a job run where it should?",
     [](const Invocation& c) { return ReportCommand(c.args, c.env, c.out, c.err); }, PrintReportHelp,
     ReportOptions, Listing::kManual},
    {"vars", "[--markdown|--check]", "list or check the NUMABIND_* variables",
     [](const Invocation& c) { return VarsCommand(c.args, c.env, c.out, c.err); }, PrintVarsHelp, VarsOptions,
     Listing::kManual},
    {"help", "[COMMAND]", "a command's options", HelpCommand, nullptr, nullptr, Listing::kUsage},
    {"prepare-basis", "", "the planner helper the library runs",
     [](const Invocation& c) { return PrepareBasisCommand(c.args, c.env, c.out, c.err); }, nullptr, nullptr,
     Listing::kInternal},
    {"man", "1|7", "print a manual page in roff",
     [](const Invocation& c) { return ManCommand(c.args, c.out, c.err); }, nullptr, nullptr,
     Listing::kInternal},
    {"completion", "bash", "print the bash completion script",
     [](const Invocation& c) { return CompletionCommand(c.args, c.out, c.err); }, nullptr, nullptr,
     Listing::kInternal},
};
const size_t kCommandCount = sizeof(kCommands) / sizeof(kCommands[0]);

const Command* FindCommand(const std::string& name) {
  for (size_t i = 0; i < kCommandCount; ++i) {
    if (name == kCommands[i].name) return &kCommands[i];
  }
  return nullptr;
}

void PrintCommandList(FILE* out) {
  std::vector<std::string> heads;
  size_t width = 0;
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    std::string head = std::string("numabind ") + c.name + (*c.synopsis != '\0' ? " " : "") + c.synopsis;
    heads.push_back(head);
    if (c.listing != Listing::kInternal) width = std::max(width, head.size());
  }
  for (size_t i = 0; i < kCommandCount; ++i) {
    if (kCommands[i].listing == Listing::kInternal) continue;
    fprintf(out, "  %-*s  %s\n", static_cast<int>(width), heads[i].c_str(), kCommands[i].summary);
  }
  fprintf(out, "  numabind --version\n");
}

}  // namespace numabind::cli
