// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind --help`, `help COMMAND`, `vars [--markdown]`, `--version`, bad commands; and README.md's variable
// table, which must be exactly what `numabind vars --markdown` prints (scripts/readme-vars.sh --update
// rewrites it) between the lines <!-- vars:begin --> and <!-- vars:end -->.

#include "cli/cli.h"
#include "config/vars.h"
#include "tests/cli/cli_util.h"

using numabind::test::CountLines;
using numabind::test::Result;
using numabind::test::Run;

namespace {

void ExpectEveryVariable(const std::string& text) {
  for (int i = 0; i < numabind::config::kVarCount; ++i) {
    const auto& v = numabind::config::kVars[i];
    cr_assert(text.find(v.name) != std::string::npos, "%s missing", v.name);
    // The meaning's first words, at least (the text may be wrapped).
    std::string start = std::string(v.meaning).substr(0, 16);
    cr_assert(text.find(start) != std::string::npos, "%s: meaning missing", v.name);
  }
}

std::string TrimNewlines(const std::string& s) {
  size_t b = s.find_first_not_of('\n');
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of('\n');
  return s.substr(b, e - b + 1);
}

}  // namespace

Test(help, usage_lists_commands_and_every_variable) {
  for (const char* flag : {"--help", "-h", "help"}) {
    Result r = Run({flag});
    cr_assert_eq(r.status, 0, "%s", flag);
    cr_assert_str_empty(r.err.c_str());
    for (const char* cmd : {"numabind run", "numabind plan", "numabind show", "numabind vars", "--version"}) {
      cr_assert(r.out.find(cmd) != std::string::npos, "%s: %s missing", flag, cmd);
    }
    ExpectEveryVariable(r.out);
  }
}

Test(help, no_arguments_is_bad_usage) {
  Result r = Run({});
  cr_assert_eq(r.status, 2);
  cr_assert_str_empty(r.out.c_str());
  cr_assert(r.err.find("numabind plan") != std::string::npos, "%s", r.err.c_str());
}

Test(help, vars) {
  Result a = Run({"vars"});
  cr_assert_eq(a.status, 0);
  ExpectEveryVariable(a.out);
  for (int i = 0; i < numabind::config::kVarCount; ++i) {
    const auto& v = numabind::config::kVars[i];
    std::string dflt =
        v.dflt != nullptr ? std::string("default: ") + v.dflt : std::string("unset: ") + v.unset;
    cr_assert(a.out.find(dflt) != std::string::npos, "%s: %s missing", v.name, dflt.c_str());
    char accepts[256];
    numabind::config::VarValues(i, accepts, sizeof(accepts));
    cr_assert(a.out.find(std::string(v.name) + "=" + accepts + "\n") != std::string::npos, "%s", v.name);
  }
  Result b = Run({"help", "vars"});
  cr_assert_eq(b.status, 0);
  cr_assert(b.out.find("--markdown") != std::string::npos);
}

Test(help, markdown_table) {
  Result r = Run({"vars", "--markdown"});
  cr_assert_eq(r.status, 0);
  cr_assert(r.out.rfind("| Variable | Values | Default | Meaning |\n| --- | --- | --- | --- |\n", 0) == 0,
            "%s", r.out.c_str());
  for (int i = 0; i < numabind::config::kVarCount; ++i) {
    std::string row = std::string("\n| `") + numabind::config::kVars[i].name + "` | ";
    cr_assert(r.out.find(row) != std::string::npos, "%s", row.c_str());
  }
  // Every table row has exactly four cells: a | inside a cell is escaped.
  size_t pos = 0;
  int rows = 0;
  while (pos < r.out.size()) {
    size_t end = r.out.find('\n', pos);
    std::string line = r.out.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] != '|') continue;
    int bars = 0;
    for (size_t i = 0; i < line.size(); ++i) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    cr_assert_eq(bars, 5, "%s", line.c_str());
    ++rows;
  }
  cr_assert_eq(rows, 2 + numabind::config::kVarCount);
}

Test(help, readme_vars_script_prints_the_table) {
  Result table = Run({"vars", "--markdown"});
  Result script =
      numabind::test::RunProgram({"scripts/readme-vars.sh"}, {"BUILD=" + numabind::test::BuildDir()});
  cr_assert_eq(script.status, 0, "%s", script.err.c_str());
  EXPECT_STREQ(script.out.c_str(), table.out.c_str());
}

Test(help, readme_holds_the_variable_table) {
  std::string readme = numabind::test::ReadAll("README.md");
  cr_assert(!readme.empty(), "README.md not found in %s (tests run from the repository's root)",
            get_current_dir_name());
  const std::string begin = "<!-- vars:begin -->\n", end = "<!-- vars:end -->";
  size_t b = readme.find(begin);
  cr_assert_neq(b, std::string::npos, "README.md has no line %s", begin.c_str());
  size_t e = readme.find(end, b);
  cr_assert_neq(e, std::string::npos, "README.md has no line %s after the begin marker", end.c_str());
  std::string held = readme.substr(b + begin.size(), e - b - begin.size());
  Result table = Run({"vars", "--markdown"});
  cr_assert(TrimNewlines(held) == TrimNewlines(table.out),
            "README.md's variable table differs from `numabind vars --markdown`: run "
            "scripts/readme-vars.sh --update");
}

Test(help, command_help) {
  const char* expected[][4] = {
      {"plan", "--topology", "--ranks", "--json"},
      {"show", "--json", "PID", "Mems_allowed_list"},
      {"run", "--policy", "--strict", "--log-file"},
  };
  for (const auto& e : expected) {
    Result a = Run({"help", e[0]});
    Result b = Run({e[0], "--help"});
    cr_assert_eq(a.status, 0, "%s", e[0]);
    cr_assert_eq(b.status, 0, "%s", e[0]);
    EXPECT_STREQ(a.out.c_str(), b.out.c_str());
    for (int i = 1; i < 4; ++i) cr_assert(a.out.find(e[i]) != std::string::npos, "%s: %s", e[0], e[i]);
  }
  Result r = Run({"help", "frobnicate"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind help: no command frobnicate (numabind --help lists them)\n");
}

Test(help, version) {
  Result r = Run({"--version"});
  cr_assert_eq(r.status, 0);
  EXPECT_STREQ(r.out.c_str(), (std::string("numabind ") + numabind::cli::kVersion + "\n").c_str());
}

Test(help, unknown_commands_and_options) {
  Result r = Run({"frobnicate"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind: unknown command frobnicate (numabind --help lists the commands)\n");
  cr_assert_str_empty(r.out.c_str());
  r = Run({"--frobnicate"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind: unknown option --frobnicate (numabind --help lists the commands)\n");
  r = Run({"vars", "--json"});
  cr_assert_eq(r.status, 2);
  cr_assert_eq(CountLines(r.err), 1);
}

// A mistyped command or option: the nearest one, when one is near (base/nearest.h).
Test(help, unknown_commands_suggest_the_nearest) {
  Result r = Run({"reprot"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind: unknown command reprot (did you mean report?)\n");
  r = Run({"paln", "--ranks", "2"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind: unknown command paln (did you mean plan?)\n");
  r = Run({"--verison"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind: unknown option --verison (did you mean --version?)\n");
  // A policy where the command goes: no command is near it.
  r = Run({"sokcet"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind: unknown command sokcet (numabind --help lists the commands)\n");
  cr_assert_str_empty(r.out.c_str());
}

// ------------------------------------------------------------------------------------- shared helpers

Test(cli_parts, parse_args) {
  static const numabind::cli::OptionSpec specs[] = {
      {"--policy", numabind::config::kVarPolicy, false, "P", "policy"},
      {"--strict", numabind::config::kVarStrict, true, "", "strict"},
  };
  numabind::cli::ParsedArgs p;
  std::string error;
  cr_assert(numabind::cli::ParseArgs("x", {"--policy", "a", "--strict", "pos", "--policy=b"}, specs, 2, false,
                                     &p, &error));
  EXPECT_STREQ(p.Value("--policy")->c_str(), "b");
  cr_assert(p.Has("--strict"));
  cr_assert_eq(p.positionals.size(), 1u);
  cr_assert(numabind::cli::ParseArgs("x", {"--strict", "cmd", "--policy", "a"}, specs, 2, true, &p, &error));
  cr_assert_not(p.Has("--policy"));
  cr_assert_eq(p.positionals.size(), 3u);
  cr_assert(numabind::cli::ParseArgs("x", {"--", "--policy"}, specs, 2, false, &p, &error));
  cr_assert_eq(p.positionals.size(), 1u);
  cr_assert(numabind::cli::ParseArgs("x", {"-h"}, specs, 2, false, &p, &error));
  cr_assert(p.help);
  cr_assert_not(numabind::cli::ParseArgs("x", {"-p"}, specs, 2, false, &p, &error));
  EXPECT_STREQ(error.c_str(), "numabind x: unknown option -p (numabind x --help lists the options)");
}

Test(cli_parts, table) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  numabind::cli::PrintTable(
      f, {{"a", "bb", "c"}, {"long", "x", "y"}, {"1", "a message wider than the columns"}});
  fclose(f);
  EXPECT_STREQ(buf, "a     bb  c\nlong  x   y\n1     a message wider than the columns\n");
  free(buf);
}

Test(cli_parts, wrap) {
  EXPECT_STREQ(numabind::cli::Wrap("aa bb cc dd", 2, 8).c_str(), "  aa bb\n  cc dd\n");
}
