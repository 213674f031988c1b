// NUMABIND_LOG_FORMAT=json: every log line is one JSON object (checked by Python's json module, strictly)
// with the fields a site collects, equal to what the ranks themselves report; problems are JSON lines too,
// with a message; text stays the default. The launcher is helpers/entry_launcher, the ranks
// helpers/report, the plan the map cpus:B|A over the first two allowed CPUs. Then hostile inputs
// (scripts/json_rank.py starts one rank, bound at start-up or by a forked launcher, with any bytes for a
// name and any starting CPU; scripts/json_lines.py checks each line as strict UTF-8 and one JSON object):
// every line stays one object of strict UTF-8, cut only between characters and saying so, text lines are
// never cut inside a character, and "replaced" is said exactly when the binding changed.

#include <criterion/criterion.h>
#include <stdio.h>
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
  for (const Report& l : ReadReports(dir + "/log"))
    if (l.Get("event") != "end") o.lines.push_back(l);  // a bound rank's exit (launch_id_test.cc)
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

/// What scripts/json_lines.py made of a log: one entry per line, {"bad": ...} for a line that is not strict.
struct Checked {
  std::vector<Report> lines;
  std::string log;  ///< the raw log
  std::string Bad() const {
    std::string bad;
    for (const Report& l : lines)
      if (!l.Get("bad").empty()) bad += l.line + "\n";
    return bad;
  }
};

/// One rank started by scripts/json_rank.py MODE CPUS RANK DIR helpers/report NAME with the shim preloaded,
/// the plan cpus:B|A (rank 0 on B), NUMABIND_LOG=info in `format` (json or text) into a log file, and `env`.
struct RankRun {
  RunResult run;
  Checked log;
  std::vector<Report> reports;
  std::string dir;  ///< the run's directory (removed): the fork mode's links are under it
  std::string output;
};

RankRun StartRank(const std::string& mode, const std::string& cpus, const std::string& name,
                  const std::string& format, const std::vector<std::string>& env = {},
                  const std::string& rank = "0") {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : name) hex += std::string{kHex[c >> 4], kHex[c & 15]};
  CpuPair p = TwoAllowedCpus();
  RankRun r;
  r.dir = MakeTempDir("numabind-json");
  std::vector<std::string> all = {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                                  "NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG=info",
                                  "NUMABIND_LOG_FILE=" + r.dir + "/log"};
  if (format == "json") all.push_back("NUMABIND_LOG_FORMAT=json");
  if (mode == "self") all.push_back("NUMABIND_DISABLE=1");  // json_rank.py itself stays inert
  all.insert(all.end(), env.begin(), env.end());
  r.run = Run({"/usr/bin/python3", RepoDir() + "/tests/shim/scripts/json_rank.py", mode, cpus, rank,
               r.dir + "/links", BuildDir() + "/helpers/report", hex, "--out", r.dir + "/reports"},
              all, r.dir + "/output", 60);
  r.output = ReadFile(r.dir + "/output");
  r.reports = ReadReports(r.dir + "/reports");
  r.log.log = ReadFile(r.dir + "/log");
  Run({"/usr/bin/python3", RepoDir() + "/tests/shim/scripts/json_lines.py", format, r.dir + "/log"}, {},
      r.dir + "/checked", 30);
  r.log.lines = ReadReports(r.dir + "/checked");
  RemoveTree(r.dir);
  return r;
}

/// The line with "event":"bound" (asserting there is exactly one), after checking every line.
Report BoundLine(const RankRun& r, const std::string& what) {
  cr_assert_eq(r.run.exit_code, 0, "%s: exit %d\n%s\nlog:\n%s", what.c_str(), r.run.exit_code,
               Tail(r.output).c_str(), r.log.log.c_str());
  cr_assert(r.log.Bad().empty(), "%s: not strict JSON lines:\n%s", what.c_str(), r.log.Bad().c_str());
  std::vector<Report> bound;
  for (const Report& l : r.log.lines)
    if (l.Get("event") == "bound") bound.push_back(l);
  cr_assert_eq(bound.size(), 1u, "%s: log:\n%s", what.c_str(), r.log.log.c_str());
  return bound[0];
}

/// Every raw line of `log` fits the library's line buffer (2048 bytes with its newline).
void ExpectShortLines(const std::string& log, const std::string& what) {
  size_t start = 0;
  for (size_t nl; (nl = log.find('\n', start)) != std::string::npos; start = nl + 1)
    cr_expect_leq(nl + 1 - start, 2048u, "%s: a line of %zu bytes", what.c_str(), nl + 1 - start);
}

// Quotes, backslashes, control characters, DEL, and bytes that are not UTF-8: a lone 0xff, a lead byte
// without its continuation, an encoded surrogate, an overlong '/', a 3-byte character missing its last byte.
const std::string kHostile =
    "q\"b\\s\x01t\te\nd\x7f \xff|\xc3 |\xed\xa0\x80|\xc0\xaf|\xe2\x82|\xe2\x82\xac|\xc3\xa9.";
// What strict UTF-8 makes of it: each maximal invalid subpart becomes U+FFFD, as Python's "replace" does.
const std::string kHostileUtf8 =
    "q\"b\\s\x01t\te\nd\x7f \uFFFD|\uFFFD |\uFFFD\uFFFD\uFFFD|\uFFFD\uFFFD|\uFFFD|\u20AC|\u00E9.";

/// A name of about `bytes` bytes: `lead` ASCII bytes, then 3-byte characters, so that some cut falls inside
/// one whatever the cut point; '/' every 200 bytes when `dirs` (a path's components must stay short).
std::string LongName(int lead, size_t bytes, bool dirs) {
  std::string s(static_cast<size_t>(lead), 'x');
  while (s.size() < bytes) s += dirs && s.size() % 200 < 3 && !s.empty() ? "/" : "\u20AC";
  return s;
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
      cr_expect_eq(l.Get("policy"), p.policy, "%s", why.c_str());
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
    // What `numabind report` reads: which rank of how many, by which variable, and that it ran unbound.
    cr_expect_eq(l.Get("event"), "unbound", "%s", l.line.c_str());
    cr_expect(l.Get("rank") == "0" || l.Get("rank") == "1", "%s", l.line.c_str());
    cr_expect_eq(l.Get("nranks"), "2", "%s", l.line.c_str());
    cr_expect_eq(l.Get("rank_var"), "LOCAL_RANK", "%s", l.line.c_str());
    cr_expect_eq(l.Get("command"), BuildDir() + "/helpers/report", "%s", l.line.c_str());
    cr_expect(l.Get("message").find(
                  "NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted") !=
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

Test(json_log, bound_lines_only_at_info) {
  // A bound rank is an info event: at NUMABIND_LOG=warn (the default) the text format does not say it.
  CpuPair p = TwoAllowedCpus();
  Outcome o =
      Launch("execve", {"NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG=warn", "NUMABIND_LOG_FORMAT=text"});
  cr_assert_eq(o.run.exit_code, 0, "log:\n%s", o.log.c_str());
  cr_expect_eq(o.reports.size(), 2u);
  cr_expect_eq(o.log, "", "log:\n%s", o.log.c_str());
}

// A JSON log file is what `numabind report` reads: it records every rank whatever the level (before, a file
// written at the default level held nothing, and report said only "no JSON log line").
Test(json_log, a_json_log_file_records_every_rank_whatever_the_level) {
  CpuPair p = TwoAllowedCpus();
  for (const char* level : {"NUMABIND_LOG=warn", "NUMABIND_LOG=off"}) {
    Outcome o = Launch("execve", {"NUMABIND_POLICY=" + p.policy, level, "NUMABIND_LOG_FORMAT=json"});
    cr_assert_eq(o.run.exit_code, 0, "%s: log:\n%s", level, o.log.c_str());
    cr_expect_eq(o.reports.size(), 2u, "%s", level);
    size_t bound = 0;
    for (const Report& l : o.lines) bound += l.Get("event") == "bound";
    cr_expect_eq(bound, 2u, "%s: log:\n%s", level, o.log.c_str());
  }
}

Test(json_log, text_stays_the_default) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("execve", {"NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG=info"});
  cr_assert_eq(o.run.exit_code, 0);
  cr_expect_eq(LinesWith(o.log, "numabind: bound rank ").size(), 2u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "{").size(), 0u, "log:\n%s", o.log.c_str());
}

Test(json_log, hostile_command_names_stay_strict_utf8) {
  RankRun r = StartRank("self", "-", kHostile, "json");
  Report l = BoundLine(r, "self-bound");
  cr_expect_eq(l.Get("command"), kHostileUtf8, "%s", l.line.c_str());
  cr_expect_eq(l.Get("truncated"), "", "%s", l.line.c_str());
  r = StartRank("fork", "-", kHostile, "json");
  l = BoundLine(r, "bound by a forked launcher");
  cr_expect_eq(l.Get("command"), r.dir + "/links/" + kHostileUtf8, "%s", l.line.c_str());
  cr_expect_eq(r.reports.size(), 1u, "%s", r.output.c_str());
}

// A 5,000-byte name: the command is cut between two characters, the line says "truncated":true and stays
// whole. Three lead lengths put the cut inside a character at least once, whatever the cut point.
Test(json_log, long_names_cut_between_characters) {
  for (int lead = 0; lead < 3; ++lead) {
    std::string name = LongName(lead, 5000, false);
    RankRun r = StartRank("self", "-", name, "json");
    std::string what = "self-bound, lead " + std::to_string(lead);
    Report l = BoundLine(r, what);
    cr_expect_eq(l.Get("truncated"), "true", "%s: %s", what.c_str(), l.line.c_str());
    cr_expect(l.Get("command").size() > 100 &&
                  name.compare(0, l.Get("command").size(), l.Get("command")) == 0,
              "%s: command is not a prefix of the name: %s", what.c_str(), l.line.c_str());
    cr_expect_eq(l.Get("replaced"), "false", "%s", l.line.c_str());
    ExpectShortLines(r.log.log, what);
    // A path of 3,000 bytes, through a forked launcher.
    std::string path = LongName(lead, 3000, true);
    r = StartRank("fork", "-", path, "json");
    what = "forked launcher, lead " + std::to_string(lead);
    l = BoundLine(r, what);
    cr_expect_eq(l.Get("truncated"), "true", "%s: %s", what.c_str(), l.line.c_str());
    ExpectShortLines(r.log.log, what);
    // A warning that quotes the name (the rank variable is not a rank): the message is cut the same way.
    r = StartRank("self", "-", name, "json", {}, "x");
    what = "warning, lead " + std::to_string(lead);
    cr_assert_eq(r.run.exit_code, 0, "%s: %s", what.c_str(), r.output.c_str());
    cr_assert(r.log.Bad().empty(), "%s: not strict JSON lines:\n%s", what.c_str(), r.log.Bad().c_str());
    cr_assert_eq(r.log.lines.size(), 1u, "%s: log:\n%s", what.c_str(), r.log.log.c_str());
    const Report& w = r.log.lines[0];
    cr_expect_eq(w.Get("level"), "warn", "%s: %s", what.c_str(), w.line.c_str());
    cr_expect_eq(w.Get("truncated"), "true", "%s: %s", what.c_str(), w.line.c_str());
    cr_expect(w.Get("message").rfind("LOCAL_RANK='x' is not a local rank", 0) == 0, "%s: %s", what.c_str(),
              w.line.c_str());
    ExpectShortLines(r.log.log, what);
  }
}

// Text lines are cut too, never inside a character: a log of valid UTF-8 names stays valid UTF-8.
Test(json_log, text_lines_cut_between_characters) {
  for (int lead = 0; lead < 3; ++lead) {
    std::string what = "lead " + std::to_string(lead);
    for (const char* rank : {"0", "x"}) {
      RankRun r = StartRank("self", "-", LongName(lead, 5000, false), "text", {}, rank);
      cr_assert_eq(r.run.exit_code, 0, "%s: %s", what.c_str(), r.output.c_str());
      cr_expect(r.log.Bad().empty(), "%s, rank %s: not UTF-8:\n%s", what.c_str(), rank, r.log.Bad().c_str());
      cr_expect_eq(r.log.lines.size(), 1u, "%s: log:\n%s", what.c_str(), r.log.log.c_str());
      ExpectShortLines(r.log.log, what);
    }
  }
}

// "replaced" is said when the rank started on other CPUs than its plan's (rank 0: the second allowed CPU),
// by a launcher's binding (fork) or the one it started with (self), in JSON and in text alike; not when it
// started on exactly its plan's CPU, nor unbound.
Test(json_log, replaced_only_when_the_binding_changed) {
  CpuPair p = TwoAllowedCpus();
  struct Case {
    const char* mode;
    std::string start;
    bool replaced;
  };
  for (const Case& c :
       {Case{"self", p.first, true}, Case{"self", p.second, false}, Case{"self", "-", false},
        Case{"fork", p.first, true}, Case{"fork", p.second, false}, Case{"fork", "-", false}}) {
    std::string what = std::string(c.mode) + " started on cpus " + c.start;
    RankRun r = StartRank(c.mode, c.start, "rank", "json");
    Report l = BoundLine(r, what);
    cr_expect_eq(l.Get("cpus"), p.second, "%s: %s", what.c_str(), l.line.c_str());
    cr_expect_eq(l.Get("replaced"), c.replaced ? "true" : "false", "%s: %s", what.c_str(), l.line.c_str());
    cr_expect_eq(l.Get("launcher_cpus"), c.replaced ? c.start : "", "%s: %s", what.c_str(), l.line.c_str());
    cr_assert_eq(r.reports.size(), 1u, "%s: %s", what.c_str(), r.output.c_str());
    cr_expect_eq(r.reports[0].Get("cpus"), p.second, "%s", what.c_str());
    r = StartRank(c.mode, c.start, "rank", "text");
    cr_assert_eq(r.run.exit_code, 0, "%s: %s", what.c_str(), r.output.c_str());
    std::vector<std::string> bound = LinesWith(r.log.log, "numabind: bound rank 0 of 2");
    cr_assert_eq(bound.size(), 1u, "%s: text log:\n%s", what.c_str(), r.log.log.c_str());
    std::string said = std::string(c.mode) == "self" ? " (replaced the binding it started with, cpus "
                                                     : " (replaced the launcher's binding to cpus ";
    cr_expect_eq(bound[0].find(said + c.start + ")") != std::string::npos, c.replaced, "%s: %s", what.c_str(),
                 bound[0].c_str());
    cr_expect_eq(bound[0].find("replaced") != std::string::npos, c.replaced, "%s: %s", what.c_str(),
                 bound[0].c_str());
  }
}

// A log file that cannot be opened: the lines go to standard error, with a line saying why, every one of
// them a JSON object.
Test(json_log, log_file_fallback_stays_json) {
  RankRun r = StartRank("self", "-", "rank", "json", {"NUMABIND_LOG_FILE=/"});
  cr_assert_eq(r.run.exit_code, 0, "%s", r.output.c_str());
  std::string dir = MakeTempDir("numabind-json");
  {
    FILE* f = fopen((dir + "/stderr").c_str(), "w");
    fputs(r.output.c_str(), f);
    fclose(f);
  }
  Run({"/usr/bin/python3", RepoDir() + "/tests/shim/scripts/json_lines.py", "json", dir + "/stderr"}, {},
      dir + "/checked", 30);
  Checked c;
  c.lines = ReadReports(dir + "/checked");
  RemoveTree(dir);
  cr_assert(c.Bad().empty(), "not strict JSON lines:\n%s", c.Bad().c_str());
  int bound = 0, fallback = 0;
  for (const Report& l : c.lines) {
    bound += l.Get("event") == "bound";
    fallback += l.Get("log_file") == "/" && l.Get("level") == "warn" &&
                l.Get("message") == "NUMABIND_LOG_FILE cannot be written: logging to standard error" &&
                l.Get("error").find("EISDIR") != std::string::npos;
  }
  cr_expect_eq(bound, 1, "%s", r.output.c_str());
  cr_expect_eq(fallback, 1, "%s", r.output.c_str());
}

}  // namespace numabind::shim::test
