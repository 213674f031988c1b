// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// One word per memory policy: `plan`, the library's log line, `report` and `show` of a rank that the library
// bound say the same word (NUMABIND_MEMORY's), and numa_maps' and get_mempolicy's names are read into it.

#include "cli/memory_policy.h"
#include "tests/cli/cli_util.h"

using numabind::test::Result;
using numabind::test::Run;

TestSuite(memory_word, .fini = numabind::test::RemoveTempDirs);

namespace {

/// The value of "key":"..." in a JSON text, or "".
std::string JsonField(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\":\"");
  if (at == std::string::npos) return "";
  at += key.size() + 4;
  return json.substr(at, json.find('"', at) - at);
}

}  // namespace

Test(memory_word, the_same_word_in_plan_the_log_report_and_show) {
  std::string lib = numabind::test::BuildDir() + "/libnumabind.so";
  cr_assert_eq(access(lib.c_str(), R_OK), 0, "%s is not built", lib.c_str());
  std::string allowed = numabind::test::StatusField("Cpus_allowed_list");
  std::string policy = "cpus:" + allowed.substr(0, allowed.find_first_of(",-"));
  std::string dir = numabind::test::TempDir();
  for (const char* memory : {"local", "preferred", "bind", "interleave"}) {
    Result plan = Run({"plan", "--policy", policy, "--memory", memory, "--ranks", "1", "--json"});
    cr_assert_eq(plan.status, 0, "%s", plan.err.c_str());
    EXPECT_STREQ(JsonField(plan.out, "memory"), memory);

    std::string log = dir + "/" + memory + ".log";
    Result text = Run({"run", "--policy", policy, "--memory", memory, "--log", "info", "--", "sh", "-c",
                       "LOCAL_RANK=0 exec \"$0\" show --json", numabind::test::Numabind()});
    cr_assert_eq(text.status, 0, "%s", text.err.c_str());
    cr_assert(text.err.find(std::string(" memory ") + memory + " ") != std::string::npos ||
                  text.err.find(std::string(" memory ") + memory + "\n") != std::string::npos,
              "log line: %s", text.err.c_str());
    std::string shown = JsonField(text.out, "memory");
    EXPECT_STREQ(shown.substr(0, shown.find(':')), memory);

    Result json = Run({"run", "--policy", policy, "--memory", memory, "--log-format", "json", "--log-file",
                       log, "--", "sh", "-c", "LOCAL_RANK=0 exec true"});
    cr_assert_eq(json.status, 0, "%s", json.err.c_str());
    Result report = Run({"report", "--json", log});
    cr_assert_eq(report.status, 0, "%s%s", report.out.c_str(), report.err.c_str());
    EXPECT_STREQ(JsonField(report.out, "memory"), memory);
  }
}

Test(memory_word, kernel_names_read_into_numabinds_words) {
  using numabind::cli::NumaMapsPolicy;
  const struct {
    const char* line;
    const char* text;
  } cases[] = {
      {"7f0000000000 default anon=1", "local"},
      {"7f0000000000 local anon=1", "local"},
      {"7f0000000000 prefer:1 anon=1", "preferred:1"},
      {"7f0000000000 prefer (many):0-1 anon=1", "preferred:0-1"},
      {"7f0000000000 bind:0-1 anon=1", "bind:0-1"},
      {"7f0000000000 bind=static:0 anon=1", "bind=static:0"},
      {"7f0000000000 interleave=relative|balancing:0-3 anon=1", "interleave=relative|balancing:0-3"},
      {"7f0000000000 weighted interleave:0-1 anon=1", "weighted:0-1"},  // NUMABIND_MEMORY=weighted
      {"7f0000000000 nosuch:1 anon=1", "nosuch:1"},
      {"7f0000000000", "?"},
  };
  for (const auto& c : cases) EXPECT_STREQ(NumaMapsPolicy(c.line), c.text);
  EXPECT_STREQ(numabind::cli::MemoryPolicyText(0, ""), "local");
  EXPECT_STREQ(numabind::cli::MemoryPolicyText(1, ""), "local");  // MPOL_PREFERRED without nodes
  EXPECT_STREQ(numabind::cli::MemoryPolicyText(5, "0-1"), "preferred:0-1");
}
