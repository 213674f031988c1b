// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The command table (cli/commands.h) and what is made from it: `numabind` alone (a short usage), the
// dispatch, `help COMMAND`, numabind(1)'s sections and the bash completion (`numabind completion bash`).
// The model's tests take what they expect from the records themselves, so that no rendering can drift
// from them, and probe each command's parser against its record.

#include "cli/commands.h"

#include <signal.h>
#include <stdlib.h>

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

// ------------------------------------------------------------------------------- the model's renderings

namespace {

using numabind::cli::Command;
using numabind::cli::OptionList;
using numabind::cli::OptionSpec;

OptionList OptionsOf(const Command& c) { return c.options != nullptr ? c.options() : OptionList{nullptr, 0}; }

/// "numabind NAME SYNOPSIS", as the record's synopsis makes it.
std::string UsageOf(const Command& c) {
  std::string synopsis = numabind::cli::Synopsis(c);
  return std::string("numabind ") + c.name + (synopsis.empty() ? "" : " ") + synopsis;
}

/// Text as roff writes it: minus signs escaped.
std::string Roffed(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

/// The command `name` run in this process (cli::RunNamed) with `args` and no environment.
Result RunHere(const char* name, const std::vector<std::string>& args) {
  char *out = nullptr, *err = nullptr;
  size_t out_len = 0, err_len = 0;
  FILE* o = open_memstream(&out, &out_len);
  FILE* e = open_memstream(&err, &err_len);
  Result r;
  const char* no_env[] = {nullptr};
  r.status = numabind::cli::RunNamed(name, args, no_env, "numabind", o, e);
  fclose(o);
  fclose(e);
  r.out = out;
  r.err = err;
  free(out);
  free(err);
  return r;
}

/// Every option name any command has, and a few no command has.
std::vector<std::string> OptionVocabulary() {
  std::vector<std::string> names = {"--verbose", "--output", "--format", "--quiet", "--pid", "--file"};
  for (size_t i = 0; i < kCommandCount; ++i) {
    OptionList list = OptionsOf(kCommands[i]);
    for (size_t o = 0; o < list.count; ++o) names.emplace_back(list.specs[o].name);
  }
  return names;
}

}  // namespace

// The synopses that had drifted from the options the commands take (issue 34), now made from them.
Test(commands, synopsis_is_made_from_the_options) {
  auto synopsis = [](const char* name) { return numabind::cli::Synopsis(*numabind::cli::FindCommand(name)); };
  EXPECT_STREQ(synopsis("ps"), "[--json|--draw] [--user NAME|UID] [--all]");
  EXPECT_STREQ(synopsis("report"), "[OPTIONS] [FILE|DIR|PATTERN...]");
  EXPECT_STREQ(synopsis("run"), "[OPTIONS] [--] CMD [ARGS...]");
  EXPECT_STREQ(synopsis("vars"), "[--markdown|--check]");
  EXPECT_STREQ(synopsis("completion"), "bash|zsh");
  EXPECT_STREQ(synopsis("man"), "1|7");
}

// Every command's one synopsis is what the command list, its help, and numabind(1)'s synopsis and subsection
// say; each option it takes is in that synopsis (or it says [OPTIONS]), in its help with its text, in its
// subsection of numabind(1) and in its completion, with the value words of its variable.
Test(commands, every_option_is_in_the_synopsis_help_manual_and_completion) {
  std::string list = Run({"--help"}).out, man = Run({"man", "1"}).out,
              script = Run({"completion", "bash"}).out;
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    if (c.listing == Listing::kInternal) continue;
    std::string usage = UsageOf(c), synopsis = numabind::cli::Synopsis(c);
    cr_assert(list.find("\n  " + usage + " ") != std::string::npos ||
                  list.find("\n  " + usage + "\n") != std::string::npos,
              "%s not in the command list:\n%s", usage.c_str(), list.c_str());
    cr_assert(man.find("\\fBnumabind\\fR" + Roffed(usage.substr(8)) + "\n") != std::string::npos,
              "numabind(1)'s synopsis lacks %s", usage.c_str());
    Result help = Run({"help", c.name});
    cr_assert_eq(help.status, 0, "help %s: %s", c.name, help.err.c_str());
    cr_assert(help.out.rfind("Usage: " + usage + "\n", 0) == 0, "%s", help.out.c_str());
    size_t at = man.find(".SS " + Roffed(usage) + "\n");
    cr_assert_eq(at == std::string::npos, c.listing != Listing::kManual, "%s's subsection", c.name);
    std::string section = at == std::string::npos ? "" : man.substr(at, man.find("\n.S", at + 1) - at);
    std::string cmd_case = CaseOf(script, c.name);
    std::string opts = Words(cmd_case, "opts='"), valued = Words(cmd_case, "valued='");
    OptionList options = OptionsOf(c);
    cr_assert_eq(synopsis.rfind("[OPTIONS]", 0) == 0, options.count > 5, "%s: %s", c.name, synopsis.c_str());
    for (size_t o = 0; o < options.count; ++o) {
      const OptionSpec& s = options.specs[o];
      std::string head = numabind::cli::OptionHead(s);
      if (options.count <= 5)
        cr_assert(synopsis.find(head) != std::string::npos, "%s's synopsis lacks %s", c.name, head.c_str());
      std::string text = numabind::cli::OptionText(s);
      cr_assert(help.out.find("\n  " + head + " ") != std::string::npos, "help %s lacks %s", c.name, s.name);
      cr_assert(help.out.find(text.substr(0, 20)) != std::string::npos, "help %s: %s's text", c.name, s.name);
      cr_assert(c.listing != Listing::kManual ||
                    section.find(".TP\n\\fB" + Roffed(s.name) + "\\fR") != std::string::npos,
                "numabind(1) lacks %s %s", c.name, s.name);
      cr_assert(c.listing != Listing::kManual || section.find(Roffed(text)) != std::string::npos,
                "numabind(1): %s %s's text", c.name, s.name);
      cr_assert(opts.find(std::string(" ") + s.name + " ") != std::string::npos, "completion: %s %s", c.name,
                s.name);
      cr_assert_eq(valued.find(std::string(" ") + s.name + " ") != std::string::npos, !s.flag, "%s %s",
                   c.name, s.name);
      if (s.var != numabind::cli::kNoVar && !s.flag)
        cr_assert(cmd_case.find(std::string("      ") + s.name + ") words='") != std::string::npos,
                  "completion: %s %s's values", c.name, s.name);
    }
  }
}

// The parser of each command takes exactly its record's options: each with the arity the record gives it
// (probed in this process: --help answers once the options parse), and no other option any command has.
Test(commands, each_parser_takes_exactly_its_records_options) {
  std::vector<std::string> vocabulary = OptionVocabulary();
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    if (c.help == nullptr) continue;  // internal: their own protocol (prepare-basis) or none
    std::string help = RunHere(c.name, {"--help"}).out;
    OptionList options = OptionsOf(c);
    for (const std::string& name : vocabulary) {
      const OptionSpec* spec = nullptr;
      for (size_t o = 0; o < options.count; ++o)
        if (name == options.specs[o].name) spec = &options.specs[o];
      Result r = RunHere(c.name, {spec != nullptr && !spec->flag ? name + "=x" : name, "--help"});
      if (spec == nullptr) {
        cr_assert_eq(r.status, 2, "%s takes %s, which its record lacks", c.name, name.c_str());
        cr_assert(r.err.find("unknown option " + name) != std::string::npos, "%s %s: %s", c.name,
                  name.c_str(), r.err.c_str());
        continue;
      }
      cr_assert_eq(r.status, 0, "%s %s: %s", c.name, name.c_str(), r.err.c_str());
      EXPECT_STREQ(r.out, help);
      Result arity = RunHere(c.name, {spec->flag ? name + "=x" : name});
      cr_assert_eq(arity.status, 2, "%s %s", c.name, name.c_str());
      cr_assert(arity.err.find(spec->flag ? "takes no value" : "needs a value") != std::string::npos, "%s",
                arity.err.c_str());
    }
  }
}

// Options the record makes alternatives ([--json|--draw]) are refused together, named in the record's order.
Test(commands, alternatives_are_refused_together) {
  int pairs = 0;
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    OptionList options = OptionsOf(c);
    for (size_t o = 1; o < options.count; ++o) {
      if (!options.specs[o].alternative) continue;
      const OptionSpec &a = options.specs[o - 1], &b = options.specs[o];
      Result r = RunHere(c.name, {a.flag ? a.name : std::string(a.name) + "=x",
                                  b.flag ? b.name : std::string(b.name) + "=x", "--help"});
      cr_assert_eq(r.status, 2, "%s %s %s", c.name, a.name, b.name);
      EXPECT_STREQ(r.err, std::string("numabind ") + c.name + ": " + a.name + " and " + b.name +
                              " do not go together\n");
      ++pairs;
    }
  }
  cr_assert_geq(pairs, 6, "json|draw of plan, show, report, ps; launch|last; markdown|check");
}

// Reading an option the record lacks is a bug that would never be seen (the option can be neither given nor
// shown): it aborts at once rather than read as absent.
Test(commands, reading_an_option_the_record_lacks_aborts, .signal = SIGABRT) {
  static const OptionSpec specs[] = {{"--json", numabind::cli::kNoVar, true, "", "json"}};
  numabind::cli::ParsedArgs p;
  std::string error;
  cr_assert(numabind::cli::ParseArgs("x", {"--json"}, specs, 1, false, &p, &error));
  cr_assert(p.Has("--json"));
  p.Has("--draw");
}

// `completion` is a command like the others: listed, with help, and completed.
Test(commands, completion_is_listed_with_help) {
  Result r = Run({"help", "completion"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.rfind("Usage: numabind completion bash|zsh\n", 0) == 0, "%s", r.out.c_str());
  Result alone = Run({});
  cr_assert(alone.err.find("\n  numabind completion bash|zsh ") != std::string::npos, "%s",
            alone.err.c_str());
  Result bad = Run({"completion", "fish"});
  cr_assert_eq(bad.status, 2);
  EXPECT_STREQ(bad.err, "usage: numabind completion bash|zsh (prints the bash or zsh completion script)\n");
  std::string dir = numabind::test::TempDir();
  numabind::test::WriteAll(dir + "/numabind", Run({"completion", "bash"}).out);
  std::string script = ". " + dir +
                       "/numabind\n"
                       "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); "
                       "_numabind; echo \"${COMPREPLY[*]}\"; }\n"
                       "t numabind comp; t numabind completion b; t numabind help comp\n";
  Result b = RunProgram({"bash", "--norc", "-c", script});
  cr_assert_eq(b.status, 0, "%s", b.err.c_str());
  EXPECT_STREQ(b.out, "completion\nbash\ncompletion\n");
}

// The command list fits in 100 columns: a long synopsis has its summary on the next line.
Test(commands, command_list_fits_100_columns) {
  Result r = Run({});
  size_t pos = 0;
  while (pos < r.err.size()) {
    size_t end = r.err.find('\n', pos);
    cr_assert_leq(end - pos, 100u, "%s", r.err.substr(pos, end - pos).c_str());
    pos = end + 1;
  }
}

// docs/commands.md's list of synopses is the commands' own, in the table's order.
Test(commands, docs_list_the_synopses) {
  std::string doc = numabind::test::ReadAll("docs/commands.md");
  size_t at = doc.find("```sh\n");
  cr_assert_neq(at, std::string::npos,
                "docs/commands.md not found or has no ```sh block (run from the root)");
  at += 6;
  std::string held = doc.substr(at, doc.find("```", at) - at), want;
  for (size_t i = 0; i < kCommandCount; ++i)
    if (kCommands[i].listing != Listing::kInternal) want += UsageOf(kCommands[i]) + "\n";
  EXPECT_STREQ(held, want);
}
