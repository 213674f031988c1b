// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The command table (cli/commands.h) and what is made from it: `numabind` alone (a short usage), the
// dispatch, `help COMMAND`, numabind(1)'s sections and the bash completion (`numabind completion bash`).

#include "cli/commands.h"

#include "config/grammar.h"
#include "tests/cli/cli_util.h"

using numabind::cli::kCommandCount;
using numabind::cli::kCommands;
using numabind::cli::Listing;
using numabind::test::CountLines;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;

namespace {

/// The words of the completion's case for `command` (up to the ";;" that ends it).
std::string CaseOf(const std::string& script, const std::string& command) {
  size_t at = script.find("\n    " + command + ")\n");
  cr_assert_neq(at, std::string::npos, "no case for %s:\n%s", command.c_str(), script.c_str());
  return script.substr(at, script.find("esac ;;", at) - at);
}

/// The words quoted after `key` ("opts='", "--policy) words='") in `text`, as " w1 w2 ".
std::string Words(const std::string& text, const std::string& key) {
  size_t at = text.find(key);
  cr_assert_neq(at, std::string::npos, "no %s in:\n%s", key.c_str(), text.c_str());
  at += key.size();
  return " " + text.substr(at, text.find('\'', at) - at) + " ";
}

}  // namespace

Test(commands, alone_prints_a_short_usage_on_stderr) {
  Result r = Run({});
  cr_assert_eq(r.status, 2);
  cr_assert_str_empty(r.out.c_str());
  cr_assert_leq(CountLines(r.err), 25, "%d lines:\n%s", CountLines(r.err), r.err.c_str());
  for (size_t i = 0; i < kCommandCount; ++i) {
    const auto& c = kCommands[i];
    bool listed = r.err.find(std::string("\n  numabind ") + c.name + " ") != std::string::npos;
    cr_assert_eq(listed, c.listing != Listing::kInternal, "%s:\n%s", c.name, r.err.c_str());
    if (listed) cr_assert(r.err.find(c.summary) != std::string::npos, "%s's summary", c.name);
  }
  for (const char* more : {"numabind --help", "numabind help COMMAND", "man numabind"})
    cr_assert(r.err.find(more) != std::string::npos, "%s missing:\n%s", more, r.err.c_str());
}

Test(commands, help_and_version_stay) {
  Result h = Run({"--help"});
  cr_assert_eq(h.status, 0);
  cr_assert(h.out.find("NUMABIND_POLICY=") != std::string::npos);
  cr_assert_gt(CountLines(h.out), 25, "--help keeps every variable");
  Result v = Run({"--version"});
  cr_assert_eq(v.status, 0);
  cr_assert(v.out.rfind("numabind 0.", 0) == 0, "%s", v.out.c_str());
}

// Every row is dispatched to (its own --help answers, not "unknown command") and has its help.
Test(commands, every_row_is_dispatched) {
  for (size_t i = 0; i < kCommandCount; ++i) {
    const auto& c = kCommands[i];
    if (c.help == nullptr) continue;
    Result r = Run({c.name, "--help"});
    cr_assert_eq(r.status, 0, "%s --help: %s", c.name, r.err.c_str());
    Result h = Run({"help", c.name});
    cr_assert_eq(h.status, 0, "help %s", c.name);
    EXPECT_STREQ(h.out, r.out);
  }
  Result r = Run({"nosuch"});
  cr_assert_eq(r.status, 2);
  cr_assert(r.err.find("unknown command nosuch") != std::string::npos, "%s", r.err.c_str());
}

// numabind(1) has a section for each command the table puts in the manual, and none for the others.
Test(commands, manual_sections_come_from_the_table) {
  Result r = Run({"man", "1"});
  cr_assert_eq(r.status, 0);
  for (size_t i = 0; i < kCommandCount; ++i) {
    const auto& c = kCommands[i];
    bool has = r.out.find(std::string(".SS numabind ") + c.name) != std::string::npos;
    cr_assert_eq(has, c.listing == Listing::kManual, "%s", c.name);
  }
}

// The completion names every listed command, each command's options, every policy and memory policy name.
Test(commands, completion_knows_commands_options_and_policies) {
  Result r = Run({"completion", "bash"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  const std::string& s = r.out;
  for (size_t i = 0; i < kCommandCount; ++i) {
    const auto& c = kCommands[i];
    if (c.listing == Listing::kInternal) {
      cr_assert(Words(s, "compgen -W '").find(std::string(" ") + c.name + " ") == std::string::npos, "%s",
                c.name);
      cr_assert(s.find(std::string("\n    ") + c.name + ")\n") == std::string::npos, "internal %s", c.name);
      continue;
    }
    cr_assert(Words(s, "compgen -W '").find(std::string(" ") + c.name + " ") != std::string::npos, "%s",
              c.name);
    std::string opts = Words(CaseOf(s, c.name), "opts='");
    if (c.options == nullptr) continue;
    auto list = c.options();
    for (size_t o = 0; o < list.count; ++o)
      cr_assert(opts.find(std::string(" ") + list.specs[o].name + " ") != std::string::npos, "%s %s", c.name,
                list.specs[o].name);
  }
  // The policy names the parser accepts, and the memory policies' words.
  for (const char* policy : {"node", "socket", "exclusive", "core-complex", "auto"}) {
    numabind::config::Policy p;
    char why[256];
    cr_assert(numabind::config::ParsePolicyText(policy, &p, why, sizeof(why)), "%s: %s", policy, why);
    for (const char* command : {"run", "plan"}) {
      std::string words = Words(CaseOf(s, command), "--policy) words='");
      cr_assert(words.find(std::string(" ") + policy + " ") != std::string::npos, "%s: %s", command, policy);
    }
  }
  for (auto kind : {numabind::config::MemoryKind::kLocal, numabind::config::MemoryKind::kPreferred,
                    numabind::config::MemoryKind::kBind, numabind::config::MemoryKind::kInterleave}) {
    std::string word = numabind::config::MemoryName(kind);
    for (const char* command : {"run", "plan"})
      cr_assert(Words(CaseOf(s, command), "--memory) words='").find(" " + word + " ") != std::string::npos,
                "%s: %s", command, word.c_str());
  }
}

// Sourced by bash, it registers itself and completes: a command, an option, a policy after --policy.
Test(commands, completion_completes_in_bash) {
  std::string dir = numabind::test::TempDir();
  Result r = Run({"completion", "bash"});
  numabind::test::WriteAll(dir + "/numabind", r.out);
  std::string script =
      ". " + dir +
      "/numabind && complete -p numabind &&\n"
      "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _numabind; "
      "echo \"${COMPREPLY[*]}\"; }\n"
      "t numabind pl; t numabind plan --po; t numabind plan --policy co; t numabind run --memory = b\n";
  Result b = RunProgram({"bash", "--norc", "-c", script});
  cr_assert_eq(b.status, 0, "%s", b.err.c_str());
  EXPECT_STREQ(b.out, "complete -F _numabind numabind\nplan\n--policy\ncore-complex\nbind\n");
}
