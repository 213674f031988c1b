// The child side must never break the program it starts: a rank value that is not a rank (" 1", "1x",
// "4294967295") gives one line naming the variable and value, and the program runs unbound.

#include <criterion/criterion.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

struct Outcome {
  RunResult run;
  std::vector<Report> reports;
  std::string output;
};

/// bash -c 'LOCAL_RANK=VALUE report --out FILE' with the shim and `vars`: bash forks (or execs) the rank
/// with the value in its environment, as a launch script would.
Outcome RunWithRank(const std::string& value, const std::vector<std::string>& vars) {
  std::string dir = MakeTempDir("numabind-child");
  std::string build = BuildDir();
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so"};
  env.insert(env.end(), vars.begin(), vars.end());
  Outcome o;
  o.run = Run({"/bin/bash", "-c", "LOCAL_RANK=\"$1\" \"$2\" --out \"$3\"; true", "bash", value,
               build + "/helpers/report", dir + "/reports"},
              env, dir + "/output", 60);
  o.reports = ReadReports(dir + "/reports");
  o.output = ReadFile(dir + "/output");
  RemoveTree(dir);
  return o;
}

}  // namespace

Test(child, bad_rank_values_warn_once_and_run_unbound) {
  std::string all = FormatCpuList(AllowedCpus());
  for (const char* value :
       {"4294967295", "4294967296", "99999999999", "1048576", " 1", "1x", "-1", "+1", "0(x"}) {
    Outcome o = RunWithRank(value, {"NUMABIND_POLICY=cpus:1|0"});
    cr_expect_eq(o.run.exit_code, 0, "LOCAL_RANK='%s': exit %d\n%s", value, o.run.exit_code,
                 Tail(o.output).c_str());
    cr_assert_eq(o.reports.size(), 1u, "LOCAL_RANK='%s': the program did not run\n%s", value,
                 Tail(o.output).c_str());
    cr_expect_eq(o.reports[0].Get("cpus"), all, "LOCAL_RANK='%s' bound to %s", value,
                 o.reports[0].Get("cpus").c_str());
    std::string named = std::string("LOCAL_RANK='") + value + "'";
    cr_expect_eq(LinesWith(o.output, named).size(), 1u, "no line naming %s:\n%s", named.c_str(),
                 o.output.c_str());
    cr_expect_eq(LinesWith(o.output, "numabind:").size(), 1u, "output:\n%s", o.output.c_str());
  }
}

Test(child, bad_rank_value_refused_in_strict_mode) {
  Outcome o = RunWithRank("1x", {"NUMABIND_POLICY=cpus:1|0", "NUMABIND_STRICT=1"});
  cr_expect_eq(o.reports.size(), 0u, "a refused rank ran");
  cr_expect_eq(LinesWith(o.output, "LOCAL_RANK='1x' is not a local rank").size(), 1u, "%s", o.output.c_str());
}

Test(child, good_rank_value_still_binds) {
  if (AllowedCpus().size() < 2) cr_skip_test("needs 2 CPUs");
  Outcome o = RunWithRank("1", {"NUMABIND_POLICY=cpus:1|0"});
  cr_assert_eq(o.reports.size(), 1u, "%s", Tail(o.output).c_str());
  cr_expect_eq(o.reports[0].Get("cpus"), "0");
  cr_expect_eq(o.output, "");
}

// NUMABIND_RANK_VAR names a launcher's ranks on the child side too: the child's one pass over its new
// environment reads that variable's value (config::EnvFacts::named), which wins over a built-in one, and the
// launcher binds them (a rank no launcher bound would bind itself at start-up: another line).
Test(child, rank_var_names_the_ranks_a_launcher_starts) {
  CpuPair p = TwoAllowedCpus();
  PreloadedRun r = RunPreloaded(
      {"/bin/bash", "-c", "MY_RANK=1 LOCAL_RANK=0 \"$0\" --out \"$1\"; MY_RANK=0 \"$0\" --out \"$1\"; true",
       "@REPORT", "@OUT"},
      {"NUMABIND_POLICY=" + p.policy, "NUMABIND_RANK_VAR=MY_RANK", "NUMABIND_NRANKS=2"}, "numabind-child");
  cr_assert_eq(r.reports.size(), 2u, "%s\nlog:\n%s", Tail(r.output).c_str(), r.log.c_str());
  cr_expect_eq(r.reports[0].Get("cpus"), p.first, "MY_RANK=1 LOCAL_RANK=0 on %s\nlog:\n%s",
               r.reports[0].Get("cpus").c_str(), r.log.c_str());
  cr_expect_eq(r.reports[1].Get("cpus"), p.second, "MY_RANK=0 on %s\nlog:\n%s",
               r.reports[1].Get("cpus").c_str(), r.log.c_str());
  cr_expect_eq(LinesWith(r.log, "bound rank 1 of 2 (MY_RANK)").size(), 1u, "log:\n%s", r.log.c_str());
  cr_expect_eq(LinesWith(r.log, "bound rank 0 of 2 (MY_RANK)").size(), 1u, "log:\n%s", r.log.c_str());
  // Bound by the launcher (bash), not by themselves at start-up: the child side found them.
  cr_expect_eq(LinesWith(r.log, "via execve").size(), 2u, "log:\n%s", r.log.c_str());
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

Test(child, log_file_fifo_neither_hangs_nor_is_written) {
  // A FIFO with no reader at NUMABIND_LOG_FILE hung the launcher in open(); anyone who can create a file
  // at a shared log path could hang a root launcher that way.
  std::string dir = MakeTempDir("numabind-logfifo");
  std::string build = BuildDir();
  std::string fifo = dir + "/log";
  cr_assert_eq(mkfifo(fifo.c_str(), 0600), 0);
  RunResult r = Run({build + "/helpers/entry_launcher", "execve", "1", build + "/helpers/report", "--out",
                     dir + "/reports"},
                    {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=cpus:1|0",
                     "NUMABIND_LOG=info", "NUMABIND_LOG_FILE=" + fifo},
                    dir + "/output", 20);
  std::string out = ReadFile(dir + "/output");
  std::vector<Report> reports = ReadReports(dir + "/reports");
  RemoveTree(dir);
  cr_assert_not(r.timed_out, "the launcher hung on a FIFO log file");
  cr_expect_eq(r.exit_code, 0, "%s", out.c_str());
  cr_expect_eq(reports.size(), 1u);
  cr_expect_eq(
      LinesWith(out, "is not a regular file (logging to standard error): numabind: bound rank 0").size(), 1u,
      "%s", out.c_str());
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

Test(child, fits_a_16_kib_thread_stack) {
  // A thread with glibc's smallest stack (16 KiB, a guard page below) starts ranks by variable through
  // posix_spawn (preparing there), fork + execve and vfork + execve, then by order (reading /proc for the
  // live matching children): the shim's frames once took 21 KiB there and the thread died.
  std::string dir = MakeTempDir("numabind-stack");
  std::string build = BuildDir();
  RunResult r =
      Run({build + "/helpers/hostile", "small-stack", build + "/helpers/report", "--out", dir + "/reports"},
          {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=cpus:1|0", "NUMABIND_LOG=info",
           "NUMABIND_LOG_FILE=" + dir + "/log", "NUMABIND_MATCH=*numabind-by-order*"},
          dir + "/output", 60);
  std::string out = ReadFile(dir + "/output"), log = ReadFile(dir + "/log");
  std::vector<Report> reports = ReadReports(dir + "/reports");
  RemoveTree(dir);
  cr_assert_eq(r.exit_code, 0, "exit %d\n%s", r.exit_code, out.c_str());
  cr_expect_eq(reports.size(), 5u);
  cr_expect_eq(LinesWith(log, "bound rank 0 (LOCAL_RANK)").size(), 3u, "%s", log.c_str());
  cr_expect_eq(LinesWith(log, "bound rank 1 (order, NUMABIND_MATCH)").size(), 1u, "%s", log.c_str());
  size_t at = out.find("left=");
  cr_assert(at != std::string::npos, "%s", out.c_str());
  long left = std::stol(out.substr(at + 5));
  cr_expect_geq(left, 1024, "only %ld bytes of the thread's stack left unused", left);
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

Test(child, popen_and_system_start_ranks_from_a_16_kib_thread_stack) {
  // popen and system run the C library's own spawn under the shim's frames, with a lazy binding or two
  // (realloc: its XSAVE area alone takes about 1 KiB): with a line's buffer and a saved CPU mask of 8,192
  // CPUs held across that call (3.9 KiB), a thread with glibc's smallest stack died of SIGSEGV in it.
  std::string dir = MakeTempDir("numabind-popen-stack");
  std::string build = BuildDir();
  for (const char* entry : {"small:popen", "small:system"}) {
    for (const char* format : {"text", "json"}) {
      RunResult r =
          Run({build + "/helpers/entry_launcher", entry, "2", build + "/helpers/report", "--out",
               dir + "/reports"},
              {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=node", "NUMABIND_LOG=info",
               std::string("NUMABIND_LOG_FORMAT=") + format, "NUMABIND_LOG_FILE=" + dir + "/log"},
              dir + "/output", 60);
      std::string log = ReadFile(dir + "/log");
      cr_expect_eq(r.exit_code, 0, "%s, %s log: exit %d\n%s", entry, format, r.exit_code,
                   ReadFile(dir + "/output").c_str());
      cr_expect_eq(ReadReports(dir + "/reports").size(), 2u, "%s, %s log", entry, format);
      bool json = std::string(format) == "json";
      cr_expect_eq(LinesWith(log, json ? "\"event\":\"bound\"" : "numabind: bound rank").size(), 2u,
                   "%s:\n%s", entry, log.c_str());
      Run({"rm", "-f", dir + "/reports", dir + "/log"}, {}, dir + "/rm", 10);
    }
  }
  RemoveTree(dir);
}

Test(child, ranks_by_order_when_spawned_back_to_back) {
  // posix_spawn returns once the child has exec'd, but before the kernel has set its new arguments: its
  // command line then reads empty, like a finished worker's, and every worker of a burst was rank 0.
  std::string dir = MakeTempDir("numabind-burst");
  std::string build = BuildDir();
  RunResult r = Run({build + "/helpers/hostile", "burst", "4", build + "/helpers/report", "--env",
                     "numabind-burst", "--hold"},
                    {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=node", "NUMABIND_LOG=info",
                     "NUMABIND_LOG_FILE=" + dir + "/log",
                     // From the start: the launcher's own command line (hostile burst ...) must not match.
                     "NUMABIND_MATCH=" + build + "/helpers/report --env numabind-burst*"},
                    dir + "/output", 60);
  std::string out = ReadFile(dir + "/output"), log = ReadFile(dir + "/log");
  RemoveTree(dir);
  cr_assert_eq(r.exit_code, 0, "%s", out.c_str());
  for (int k = 0; k < 4; ++k) {
    std::string rank = "bound rank " + std::to_string(k) + " (order, NUMABIND_MATCH)";
    cr_expect_eq(LinesWith(log, rank).size(), 1u, "%s:\n%s", rank.c_str(), log.c_str());
  }
}

}  // namespace numabind::shim::test

namespace numabind::shim::test {

// Issue 26: a rank past its count says so with that count and what to change; planned as the last of rank
// + 1 ranks, an exclusive plan that cannot fit it names the stated count, not rank + 1.
Test(child, rank_past_the_count_names_the_count_and_the_fix) {
  Outcome o = RunWithRank("5", {"NUMABIND_POLICY=node", "NUMABIND_NRANKS=2"});
  cr_expect_eq(LinesWith(o.output, "numabind: rank 5 (LOCAL_RANK) ").size(), 1u, "%s", o.output.c_str());
  cr_expect_eq(LinesWith(o.output,
                         "is past the rank count, 2 (NUMABIND_NRANKS), so it is planned as the last of "
                         "6 ranks: set NUMABIND_NRANKS to the number of ranks on this node")
                   .size(),
               1u, "%s", o.output.c_str());
  o = RunWithRank("5", {"NUMABIND_POLICY=exclusive", "NUMABIND_NRANKS=2"});
  cr_expect_eq(
      LinesWith(o.output, "runs unbound: rank 5: policy exclusive: past the rank count, 2 (ranks 0 to 1)")
          .size(),
      1u, "%s", o.output.c_str());
  cr_expect_eq(LinesWith(o.output, "for 6 ranks").size(), 0u, "%s", o.output.c_str());
  // Within the count: nothing said.
  o = RunWithRank("1", {"NUMABIND_POLICY=node", "NUMABIND_NRANKS=2"});
  cr_expect_eq(LinesWith(o.output, "past the rank count").size(), 0u, "%s", o.output.c_str());
}

// Issue 26: more ranks than exclusive has cores suggests what fits.
Test(child, oversubscription_suggests_node_auto_or_fewer_ranks) {
  Outcome o = RunWithRank("0", {"NUMABIND_POLICY=exclusive", "LOCAL_WORLD_SIZE=4096"});
  std::vector<std::string> lines = LinesWith(o.output,
                                             "cores for 4096 ranks: use node or auto, "
                                             "or at most ");
  cr_expect_eq(lines.size(), 1u, "%s", o.output.c_str());
}

}  // namespace numabind::shim::test
