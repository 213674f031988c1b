// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind man 1|7`: numabind(1) holds every command's options as `help COMMAND` prints them, numabind(7)
// every variable of the table (name, values, meaning) and every built-in rank variable, in roff.
// (tests/pkg/install_test.sh renders the installed pages with man --warnings.)

#include "cli/cli.h"
#include "config/config.h"
#include "config/vars.h"
#include "tests/cli/cli_util.h"

using numabind::test::Result;
using numabind::test::Run;

namespace {

/// Text as the pages write it: minus signs escaped.
std::string RoffText(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

}  // namespace

Test(man, page1_has_every_command_and_option) {
  Result r = Run({"man", "1"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.rfind(".TH NUMABIND 1 ", 0) == 0, "%s", r.out.substr(0, 80).c_str());
  for (const char* cmd : {"run", "plan", "show", "ps", "vars"}) {
    cr_assert(r.out.find(".SS numabind " + std::string(cmd)) != std::string::npos, "no section for %s", cmd);
    Result help = Run({"help", cmd});
    size_t pos = 0;
    int options = 0;
    while ((pos = help.out.find("\n  --", pos)) != std::string::npos) {
      size_t end = help.out.find_first_of(" \n", pos + 3);
      std::string option = help.out.substr(pos + 3, end - pos - 3);
      cr_assert(r.out.find(".TP\n\\fB" + RoffText(option) + "\\fR") != std::string::npos, "%s %s missing",
                cmd, option.c_str());
      ++options;
      pos = end;
    }
    if (std::string(cmd) != "vars") cr_assert_gt(options, 0, "%s: no options found in its help", cmd);
  }
}

Test(man, page7_has_every_variable_and_rank_variable) {
  Result r = Run({"man", "7"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.rfind(".TH NUMABIND 7 ", 0) == 0);
  for (int i = 0; i < numabind::config::kVarCount; ++i) {
    const auto& v = numabind::config::kVars[i];
    cr_assert(r.out.find("\\fB" + RoffText(v.name) + "\\fR=") != std::string::npos, "%s missing", v.name);
    cr_assert(r.out.find(RoffText(v.meaning)) != std::string::npos, "%s: meaning missing", v.name);
  }
  for (int i = 0; i < numabind::config::kRankVarCount; ++i) {
    cr_assert(r.out.find(RoffText(numabind::config::kRankVars[i].rank)) != std::string::npos, "%s missing",
              numabind::config::kRankVars[i].rank);
  }
  // No line starts with a character roff would take for a request.
  size_t pos = 0;
  while ((pos = r.out.find('\n', pos)) != std::string::npos) {
    ++pos;
    if (pos < r.out.size() && r.out[pos] == '\'')
      cr_assert_fail("line starts with ': %s", r.out.substr(pos, 40).c_str());
  }
}

Test(man, bad_section) {
  Result r = Run({"man", "3"});
  cr_assert_eq(r.status, 2);
  cr_assert_str_empty(r.out.c_str());
  EXPECT_STREQ(r.err, "usage: numabind man 1|7 (prints the manual page in roff)\n");
}
