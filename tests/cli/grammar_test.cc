// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// One grammar: every input of the fuzz corpora (fuzz/corpus/: policies, device lists, CPU lists as cpus:
// maps, whole environments) goes through `numabind plan` (the command, as a user runs it) and through
// config::Parse (what the library runs in every process), and both must accept and reject the same ones,
// rejecting with the same line.

#include <dirent.h>

#include <algorithm>

#include "config/config.h"
#include "tests/cli/cli_util.h"

using numabind::test::ReadAll;
using numabind::test::Result;
using numabind::test::Run;

namespace {

constexpr int kExitUsage = 2;  // cli/cli.h: bad options or variables
const char kTopology[] = "NUMABIND_TOPOLOGY=synthetic:pack:2 numa:1 core:2 pu:1";

std::vector<std::string> CorpusFiles(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  cr_assert_not_null(d, "%s is missing", dir.c_str());
  while (struct dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') files.push_back(dir + "/" + e->d_name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  cr_assert(!files.empty(), "%s is empty", dir.c_str());
  return files;
}

/// The input as the fuzz targets read it (fuzz/fuzz_util.h): up to the first NUL.
std::string AsText(const std::string& bytes) { return bytes.substr(0, bytes.find('\0')); }

/// The entries of a config corpus input: one per line, as fuzz/config_fuzz.cc reads it.
std::vector<std::string> Lines(const std::string& bytes) {
  std::vector<std::string> lines(1);
  for (char c : bytes) {
    if (c == '\n' || c == '\0')
      lines.emplace_back();
    else
      lines.back() += c;
  }
  return lines;
}

/// Runs `numabind plan` with `entries` added to its environment, and config::Parse on the same entries,
/// and checks that they agree. `numabind plan` shows a plan whether or not NUMABIND_DISABLE is set (it
/// drops it), so the library's side reads the entries without it too.
void ExpectSameAnswer(const std::string& file, std::vector<std::string> entries) {
  entries.erase(
      std::remove_if(entries.begin(), entries.end(),
                     [](const std::string& e) { return e.compare(0, 17, "NUMABIND_DISABLE=") == 0; }),
      entries.end());
  std::vector<const char*> env;
  for (const std::string& e : entries) env.push_back(e.c_str());
  env.push_back(nullptr);
  numabind::config::Config config;
  numabind::config::Error error;
  bool library_ok = numabind::config::Parse(env.data(), &config, &error);

  std::vector<std::string> add = {kTopology};  // an entry of the input of the same name comes later: wins
  for (const std::string& e : entries) {
    if (e.find('=') != std::string::npos) add.push_back(e);  // RunProgram takes "NAME" alone as a removal
  }
  Result r = Run({"plan"}, add);
  // The command rejects a value with its line "numabind plan: NAME=value: why"; other failures (a map entry
  // with no CPU on this topology) name no value and come after the values were accepted.
  size_t name_end = r.err.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_", 24);
  bool names_a_value = r.err.compare(0, 24, "numabind plan: NUMABIND_") == 0 &&
                       name_end != std::string::npos && r.err[name_end] == '=';
  bool command_ok = r.status == 0 || !names_a_value;
  if (!command_ok) cr_expect_eq(r.status, kExitUsage, "%s: %s", file.c_str(), r.err.c_str());
  cr_expect_eq(command_ok, library_ok, "%s: numabind plan %s (status %d: %s), the library %s", file.c_str(),
               command_ok ? "accepts" : "rejects", r.status, r.err.c_str(),
               library_ok ? "accepts" : error.text);
  if (!command_ok && !library_ok) {
    cr_expect(r.err == std::string("numabind plan: ") + error.text + "\n",
              "%s: the command says %s, the library %s", file.c_str(), r.err.c_str(), error.text);
  }
}

}  // namespace

Test(grammar, plan_and_library_agree_on_the_fuzz_corpora) {
  for (const std::string& f : CorpusFiles("fuzz/corpus/policy")) {
    std::string text = AsText(ReadAll(f));
    ExpectSameAnswer(f, {"NUMABIND_POLICY=" + text});
    ExpectSameAnswer(f, {"NUMABIND_MEMORY=" + text});
  }
  for (const std::string& f : CorpusFiles("fuzz/corpus/devices"))
    ExpectSameAnswer(f, {"NUMABIND_DEVICES=" + AsText(ReadAll(f))});
  for (const std::string& f : CorpusFiles("fuzz/corpus/cpu_list"))
    ExpectSameAnswer(f, {"NUMABIND_POLICY=cpus:" + AsText(ReadAll(f))});
  for (const std::string& f : CorpusFiles("fuzz/corpus/config")) ExpectSameAnswer(f, Lines(ReadAll(f)));
}
