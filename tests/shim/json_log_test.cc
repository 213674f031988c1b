// NUMABIND_LOG_FORMAT=json: every log line is one JSON object (checked by Python's json module, strictly)
// with the fields a site collects, equal to what the ranks themselves report; problems are JSON lines too,
// with a message; text stays the default. The launcher is helpers/entry_launcher, the ranks
// helpers/report, the plan the map cpus:B|A over the first two allowed CPUs.

#include <criterion/criterion.h>
#include <sys/utsname.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

struct Outcome {
  std::vector<Report> reports;
  std::vector<Report> lines;  ///< the log's lines, parsed
  std::string log;
  std::string strict;  ///< what Python's json.loads said about each line ("ok" when all parsed)
  RunResult run;
};

Outcome Launch(const std::string& entry, const std::vector<std::string>& vars) {
  std::string dir = MakeTempDir("numabind-json");
  std::string build = BuildDir();
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so",
                                  "NUMABIND_LOG_FILE=" + dir + "/log"};
  env.insert(env.end(), vars.begin(), vars.end());
  Outcome o;
  o.run = Run(
      {build + "/helpers/entry_launcher", entry, "2", build + "/helpers/report", "--out", dir + "/reports"},
      env, dir + "/output", 60);
  o.reports = ReadReports(dir + "/reports");
  o.lines = ReadReports(dir + "/log");
  o.log = ReadFile(dir + "/log");
  Run({"/usr/bin/python3", "-c",
       "import json, sys\n"
       "for n, line in enumerate(open(sys.argv[1]), 1):\n"
       "    o = json.loads(line)\n"
       "    assert isinstance(o, dict), n\n"
       "print('ok')\n",
       dir + "/log"},
      {}, dir + "/strict", 30);
  o.strict = ReadFile(dir + "/strict");
  RemoveTree(dir);
  return o;
}

std::string Host() {
  utsname u;
  uname(&u);
  return u.nodename;
}

}  // namespace

Test(json_log, bound_ranks_one_object_per_line) {
  CpuPair p = TwoAllowedCpus();
  for (const char* entry : {"execve", "posix_spawn"}) {
    Outcome o =
        Launch(entry, {"NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG=info", "NUMABIND_LOG_FORMAT=json"});
    cr_assert_eq(o.run.exit_code, 0, "%s: launcher exited %d\nlog:\n%s", entry, o.run.exit_code,
                 o.log.c_str());
    cr_assert_eq(o.strict, "ok\n", "%s: not JSON lines:\n%s\nlog:\n%s", entry, o.strict.c_str(),
                 o.log.c_str());
    cr_assert_eq(o.reports.size(), 2u, "%s", entry);
    cr_assert_eq(o.lines.size(), 2u, "%s: log:\n%s", entry, o.log.c_str());
    for (const Report& r : o.reports) {
      const Report* line = nullptr;
      for (const Report& l : o.lines) {
        if (l.Get("pid") == r.Get("pid")) line = &l;
      }
      cr_assert_not_null(line, "%s: no line with pid %s:\n%s", entry, r.Get("pid").c_str(), o.log.c_str());
      const Report& l = *line;
      std::string why = std::string(entry) + ": " + l.line;
      cr_expect(std::regex_match(l.Get("time"), std::regex(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d\dZ)")),
                "%s", why.c_str());
      cr_expect_eq(l.Get("host"), Host(), "%s", why.c_str());
      cr_expect_eq(l.Get("level"), "info", "%s", why.c_str());
      cr_expect_eq(l.Get("event"), "bound", "%s", why.c_str());
      cr_expect_eq(l.Get("rank"), r.Get("rank"), "%s", why.c_str());
      cr_expect_eq(l.Get("nranks"), "2", "%s", why.c_str());
      cr_expect_eq(l.Get("rank_var"), "LOCAL_RANK", "%s", why.c_str());
      cr_expect_eq(l.Get("cpus"), r.Get("cpus"), "%s", why.c_str());
      cr_expect_eq(l.Get("cpus"), p.ForRank(std::stoi(r.Get("rank"))), "%s", why.c_str());
      cr_expect(std::regex_match(l.Get("nodes"), std::regex(R"([0-9][0-9,-]*)")), "%s", why.c_str());
      cr_expect_eq(l.Get("memory"), "local", "%s", why.c_str());
      cr_expect_eq(l.Get("device"), "null", "%s", why.c_str());
      cr_expect_eq(l.Get("entry"), entry, "%s", why.c_str());
      cr_expect_eq(l.Get("replaced"), "false", "%s", why.c_str());
      cr_expect_eq(l.Get("command"), BuildDir() + "/helpers/report", "%s", why.c_str());
    }
  }
}

Test(json_log, problems_are_objects_with_a_message) {
  CpuPair p = TwoAllowedCpus();
  Outcome o =
      Launch("execve", {"NUMABIND_POLICY=" + p.policy, "NUMABIND_MEMORY=fast", "NUMABIND_LOG_FORMAT=json"});
  cr_assert_eq(o.run.exit_code, 0, "log:\n%s", o.log.c_str());
  cr_assert_eq(o.strict, "ok\n", "not JSON lines:\n%s\nlog:\n%s", o.strict.c_str(), o.log.c_str());
  cr_assert_eq(o.lines.size(), 2u, "log:\n%s", o.log.c_str());
  for (const Report& l : o.lines) {
    cr_expect_eq(l.Get("level"), "warn", "%s", l.line.c_str());
    cr_expect_eq(l.Get("host"), Host(), "%s", l.line.c_str());
    cr_expect(l.Get("message").rfind("rank ", 0) == 0, "%s", l.line.c_str());
    cr_expect(l.Get("message").find("NUMABIND_MEMORY=fast: expected local, preferred, bind or interleave") !=
                  std::string::npos,
              "%s", l.line.c_str());
  }
}

Test(json_log, debug_adds_the_call_stack) {
  CpuPair p = TwoAllowedCpus();
  Outcome o =
      Launch("execve", {"NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG=debug", "NUMABIND_LOG_FORMAT=json"});
  cr_assert_eq(o.run.exit_code, 0, "log:\n%s", o.log.c_str());
  cr_assert_eq(o.strict, "ok\n", "not JSON lines:\n%s\nlog:\n%s", o.strict.c_str(), o.log.c_str());
  int bound = 0;
  for (const Report& l : o.lines) {
    if (l.Get("event") != "bound") continue;
    ++bound;
    cr_expect(l.Get("stack").find("#0 ") != std::string::npos, "%s", l.line.c_str());
  }
  cr_expect_eq(bound, 2, "log:\n%s", o.log.c_str());
}

Test(json_log, text_stays_the_default) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("execve", {"NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG=info"});
  cr_assert_eq(o.run.exit_code, 0);
  cr_expect_eq(LinesWith(o.log, "numabind: bound rank ").size(), 2u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "{").size(), 0u, "log:\n%s", o.log.c_str());
}

}  // namespace numabind::shim::test
