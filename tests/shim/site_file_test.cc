// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file in the library (docs/site.md): a launcher (helpers/entry_launcher) whose environment has no
// NUMABIND_* variable but the test's override of the file's path (NUMABIND_CONFIG_FILE) starts two ranks;
// the file's cpus:B|A map must bind them (rank 0 on B, rank 1 on A, the reverse of any default). Through
// posix_spawn the launcher binds them (it reads the file at its first rank spawn); through fork and execve
// each rank binds itself at start-up. A bad line: one message per process that read the file, nothing
// bound. Without the file, or with the file in an environment that switches numabind off, nothing is bound.
// Secure execution (AT_SECURE) needs the library in /etc/ld.so.preload: tests/pkg/deb_test.sh checks it.

#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

using Outcome = PreloadedRun;

/// Writes `text` to `path` (the site file of a test).
void WriteSite(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  cr_assert(fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()), "%s",
            path.c_str());
  close(fd);
}

/// Runs `entry_launcher ENTRY 2 report` preloaded, with the site file `text` ("@LOG" is the log file's
/// path, "@SHARED" the test's shared directory) and `vars` added to an environment with no NUMABIND_*
/// variable but NUMABIND_CONFIG_FILE.
Outcome Launch(const std::string& entry, std::string text, const std::vector<std::string>& vars = {}) {
  std::string dir = MakeTempDir("numabind-site");
  std::string build = BuildDir();
  for (auto [key, value] :
       {std::pair<std::string, std::string>{"@LOG", dir + "/log"}, {"@SHARED", build + "/test-shared"}}) {
    for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
  }
  std::string site = dir + "/numabind.conf";
  WriteSite(site, text);
  // Run() adds NUMABIND_SHARED; an empty value is unset, so the file's applies.
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_CONFIG_FILE=" + site,
                                  "NUMABIND_SHARED="};
  env.insert(env.end(), vars.begin(), vars.end());
  Outcome o;
  o.run = Run(
      {build + "/helpers/entry_launcher", entry, "2", build + "/helpers/report", "--out", dir + "/reports"},
      env, dir + "/output", 60);
  o.reports = ReadReports(dir + "/reports");
  o.log = ReadFile(dir + "/log");
  o.output = ReadFile(dir + "/output");
  RemoveTree(dir);
  return o;
}

std::string GoodSite(const CpuPair& p) {
  return "# site defaults\n\nNUMABIND_POLICY=" + p.policy +
         "\nNUMABIND_LOG=info\nNUMABIND_LOG_FILE=@LOG\nNUMABIND_SHARED=@SHARED\n";
}

/// Both ranks ran, each on `cpus(rank)`.
template <typename Cpus>
void ExpectRanks(const Outcome& o, Cpus cpus, const char* what) {
  cr_assert_eq(o.run.exit_code, 0, "%s: launcher exited %d\n%s\nlog:\n%s", what, o.run.exit_code,
               Tail(o.output).c_str(), o.log.c_str());
  cr_assert_eq(o.reports.size(), 2u, "%s: %zu reports\n%s", what, o.reports.size(), Tail(o.output).c_str());
  for (const Report& r : o.reports) {
    std::string want = cpus(std::stoi(r.Get("rank")));
    cr_expect_eq(r.Get("cpus"), want, "%s: rank %s on cpus %s, expected %s\nlog:\n%s\noutput:\n%s", what,
                 r.Get("rank").c_str(), r.Get("cpus").c_str(), want.c_str(), o.log.c_str(), o.output.c_str());
  }
}

}  // namespace
}  // namespace numabind::shim::test

using namespace numabind::shim::test;  // NOLINT: test file

// posix_spawn: the inert launcher reads the file at its first rank spawn and binds the ranks itself.
Test(site_file, launcher_binds_ranks_from_the_site_file) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("posix_spawn", GoodSite(p));
  ExpectRanks(
      o, [&](int r) { return p.ForRank(r); }, "posix_spawn");
  cr_expect_eq(LinesWith(o.log, "bound rank").size(), 2u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "via posix_spawn").size(), 2u, "the launcher binds them:\n%s", o.log.c_str());
}

// fork + execve: the launcher's child passes through; each rank reads the file and binds itself.
Test(site_file, ranks_bind_themselves_from_the_site_file) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = Launch("execve", GoodSite(p));
  ExpectRanks(
      o, [&](int r) { return p.ForRank(r); }, "execve");
  cr_expect_eq(LinesWith(o.log, "at start-up").size(), 2u, "each rank binds itself:\n%s", o.log.c_str());
}

// A bad line: the file is ignored as a whole (its policy too), one message from each process that read it
// (the posix_spawn launcher and each rank), every rank unbound.
Test(site_file, bad_line_is_reported_and_nothing_changes) {
  CpuPair p = TwoAllowedCpus();
  for (const char* entry : {"posix_spawn", "execve"}) {
    Outcome o = Launch(entry, GoodSite(p) + "NUMABIND_MEMORY=fast\n");
    ExpectRanks(
        o, [&](int) { return p.all; }, entry);
    std::vector<std::string> lines =
        LinesWith(o.output, "numabind.conf:7: NUMABIND_MEMORY=fast: expected local");
    size_t readers = std::string(entry) == "posix_spawn" ? 3 : 2;
    cr_expect_eq(lines.size(), readers, "%s: output:\n%s", entry, o.output.c_str());
    cr_expect_eq(LinesWith(o.output, "numabind").size(), readers, "%s: output:\n%s", entry, o.output.c_str());
    cr_expect(o.log.empty(), "the file's log settings are ignored too:\n%s", o.log.c_str());
  }
}

// An unknown name in the file (a newer version's variable, a typo) is warned about once per process that
// reads the file, with the nearest name, and ignored: the ranks still bind by the file's other lines
// (issue 26: a cluster of mixed versions keeps binding). A bad value beside it still leaves them unbound.
Test(site_file, unknown_name_is_warned_about_and_the_file_still_binds) {
  CpuPair p = TwoAllowedCpus();
  for (const char* entry : {"posix_spawn", "execve"}) {
    Outcome o = Launch(entry, GoodSite(p) + "NUMABIND_MEMROY=bind\nNUMABIND_FUTURE_KNOB=1\n");
    ExpectRanks(
        o, [&](int r) { return p.ForRank(r); }, entry);
    std::vector<std::string> lines = LinesWith(
        o.log,
        "numabind.conf:7: NUMABIND_MEMROY is not a numabind variable (did you mean NUMABIND_MEMORY?); "
        "ignored");
    size_t readers = std::string(entry) == "posix_spawn" ? 3 : 2;
    cr_expect_eq(lines.size(), readers, "%s: one line per process that read the file:\n%s", entry,
                 o.log.c_str());
    cr_expect(LinesWith(o.log, "NUMABIND_FUTURE_KNOB").empty(), "the first unknown name only:\n%s",
              o.log.c_str());
    cr_expect(LinesWith(o.output, "numabind").empty(), "%s: output:\n%s", entry, o.output.c_str());
  }
  Outcome bad = Launch("execve", GoodSite(p) + "NUMABIND_MEMROY=bind\nNUMABIND_MEMORY=fast\n");
  ExpectRanks(
      bad, [&](int) { return p.all; }, "a bad value beside it");
}

// The environment overrides the file per variable; NUMABIND_DISABLE=1 in it switches everything off.
Test(site_file, environment_overrides_and_disables) {
  CpuPair p = TwoAllowedCpus();
  std::string swapped = "NUMABIND_POLICY=cpus:" + p.first + "|" + p.second;
  Outcome o = Launch("posix_spawn", GoodSite(p), {swapped});
  ExpectRanks(
      o, [&](int r) { return r % 2 == 0 ? p.first : p.second; }, "environment's policy");
  Outcome off = Launch("posix_spawn", GoodSite(p), {"NUMABIND_DISABLE=1"});
  ExpectRanks(
      off, [&](int) { return p.all; }, "disabled");
  cr_expect(off.log.empty(), "%s", off.log.c_str());
  Outcome none = Launch("execve", GoodSite(p), {"NUMABIND_CONFIG_FILE=none"});
  ExpectRanks(
      none, [&](int) { return p.all; }, "no site file");
}

// Issue 38: a name that begins a longer one set before it is another variable, not a second setting of it:
// the file applies (it was ignored whole, for every process, with "already set on line 1").
Test(site_file, a_name_after_a_longer_one_is_another_variable) {
  CpuPair p = TwoAllowedCpus();
  std::string text =
      "NUMABIND_LOG_FORMAT=text\nNUMABIND_LOG_FILE=@LOG\nNUMABIND_LOG=info\nNUMABIND_POLICY=" + p.policy +
      "\nNUMABIND_SHARED=@SHARED\n";
  Outcome o = Launch("execve", text);
  ExpectRanks(
      o, [&](int r) { return p.ForRank(r); }, "NUMABIND_LOG after NUMABIND_LOG_FORMAT");
  cr_expect_eq(LinesWith(o.log, "at start-up").size(), 2u, "NUMABIND_LOG=info applies:\n%s", o.log.c_str());
  cr_expect(LinesWith(o.output, "numabind").empty(), "output:\n%s", o.output.c_str());
}

// Issue 38: the environment's variables override the file however many unknown NUMABIND_* names come before
// them (the first 39 were read: past them the file's policy won, at the launcher's start-up and when it read
// the file at its first spawn, and in each rank).
Test(site_file, environment_overrides_after_many_unknown_names) {
  CpuPair p = TwoAllowedCpus();
  std::vector<std::string> vars;
  for (int i = 0; i < 45; ++i) vars.push_back("NUMABIND_UNKNOWN_" + std::to_string(i) + "=1");
  vars.push_back("NUMABIND_POLICY=cpus:" + p.first + "|" + p.second);
  for (const char* entry : {"posix_spawn", "execve"}) {
    Outcome o = Launch(entry, GoodSite(p), vars);
    ExpectRanks(
        o, [&](int r) { return r % 2 == 0 ? p.first : p.second; }, entry);
  }
}

// Only ranks and launchers of ranks read the file: with a bad file, a shell that runs commands (fork and
// exec, posix_spawn through env) says nothing; the same shell as a rank says it once, and so does each
// command it runs (a rank's children are ranks too).
Test(site_file, other_processes_never_read_it) {
  std::string dir = MakeTempDir("numabind-site-inert");
  std::string site = dir + "/numabind.conf";
  WriteSite(site, "NUMABIND_POLICY=auto\nNUMABIND_LOG=loud\n");
  std::vector<std::string> env = {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                                  "NUMABIND_CONFIG_FILE=" + site, "NUMABIND_SHARED="};
  RunResult inert = Run({"sh", "-c", "/bin/true; env /bin/true; echo done"}, env, dir + "/inert", 60);
  std::vector<std::string> as_rank = env;
  as_rank.push_back("LOCAL_RANK=0");
  RunResult rank = Run({"sh", "-c", "/bin/true; echo done"}, as_rank, dir + "/rank", 60);
  std::string inert_out = ReadFile(dir + "/inert"), rank_out = ReadFile(dir + "/rank");
  RemoveTree(dir);
  cr_assert_eq(inert.exit_code, 0, "%s", inert_out.c_str());
  cr_expect_eq(inert_out, "done\n", "an inert process read the site file:\n%s", inert_out.c_str());
  cr_assert_eq(rank.exit_code, 0, "%s", rank_out.c_str());
  cr_expect_eq(LinesWith(rank_out, "numabind.conf:2: NUMABIND_LOG=loud: expected").size(), 2u, "%s",
               rank_out.c_str());
}

// A process NUMABIND_POLICY configures reads the site file at its first start of a program, not at start-up:
// one that starts nothing never opens it (a bad file would say so), one that starts a program says so once.
Test(site_file, configured_process_reads_it_at_its_first_start_only) {
  std::string dir = MakeTempDir("numabind-site-configured");
  std::string site = dir + "/numabind.conf";
  WriteSite(site, "NUMABIND_LOG=loud\n");
  std::vector<std::string> env = {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so", "NUMABIND_POLICY=node",
                                  "NUMABIND_CONFIG_FILE=" + site};
  RunResult quiet = Run({"/bin/true"}, env, dir + "/quiet", 60);
  RunResult spawns = Run({"sh", "-c", "/bin/true; /bin/true; echo done"}, env, dir + "/spawns", 60);
  std::string quiet_out = ReadFile(dir + "/quiet"), spawns_out = ReadFile(dir + "/spawns");
  RemoveTree(dir);
  cr_assert_eq(quiet.exit_code, 0, "%s", quiet_out.c_str());
  cr_expect_eq(quiet_out, "", "a configured process that starts nothing read the site file:\n%s",
               quiet_out.c_str());
  cr_assert_eq(spawns.exit_code, 0, "%s", spawns_out.c_str());
  // The shell reads it once, at its first fork; its two children (configured, no rank) read it never.
  cr_expect_eq(LinesWith(spawns_out, "numabind.conf:1: NUMABIND_LOG=loud: expected").size(), 1u, "%s",
               spawns_out.c_str());
}

// A FIFO as the site file (or a directory, a device): ignored with one line from each process that looks,
// never opened blocking. Before, every rank and configured launcher hung in open() before main.
Test(site_file, a_file_that_is_not_regular_is_ignored_never_waited_on) {
  CpuPair p = TwoAllowedCpus();
  std::string dir = MakeTempDir("numabind-site-fifo");
  std::string build = BuildDir();
  std::string fifo = dir + "/numabind.conf";
  cr_assert_eq(mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string& site : {fifo, dir, std::string("/dev/null")}) {
    for (const char* entry : {"posix_spawn", "execve"}) {
      unlink((dir + "/reports").c_str());
      RunResult r = Run({build + "/helpers/entry_launcher", entry, "2", build + "/helpers/report", "--out",
                         dir + "/reports"},
                        {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_CONFIG_FILE=" + site,
                         "NUMABIND_POLICY=" + p.policy},
                        dir + "/output", 10);
      std::string output = ReadFile(dir + "/output");
      cr_assert_eq(r.exit_code, 0, "%s, %s: exit %d (timed out: %d)\n%s", site.c_str(), entry, r.exit_code,
                   r.timed_out, Tail(output).c_str());
      std::vector<Report> reports = ReadReports(dir + "/reports");
      cr_assert_eq(reports.size(), 2u, "%s, %s:\n%s", site.c_str(), entry, Tail(output).c_str());
      for (const Report& rep : reports)  // the environment's policy still binds
        cr_expect_eq(rep.Get("cpus"), p.ForRank(std::stoi(rep.Get("rank"))), "%s", rep.line.c_str());
      std::vector<std::string> lines = LinesWith(output, site + ": not a regular file (the file is ignored)");
      cr_expect_geq(lines.size(), 1u, "%s, %s: output:\n%s", site.c_str(), entry, output.c_str());
      cr_expect_eq(lines.size(), LinesWith(output, "numabind").size(), "%s", output.c_str());
    }
  }
  RemoveTree(dir);
}

// A threaded launcher configured by its environment, with interleave from the site file: its 16 threads
// spawn at once, and the first to read the file must not let the others plan without it (before, 128 of
// 1,600 ranks got local in 8 of 100 launches). Every rank checks its CPUs and its memory policy.
Test(site_file, threads_of_a_launcher_never_plan_without_the_file, .timeout = 300) {
  CpuPair p = TwoAllowedCpus();
  std::string dir = MakeTempDir("numabind-site-race");
  std::string build = BuildDir();
  std::string site = dir + "/numabind.conf";
  WriteSite(site, "NUMABIND_MEMORY=interleave\n");
  int launches = 0, wrong = 0;
  std::string last;
  for (; launches < 150; ++launches) {
    RunResult r = Run({build + "/helpers/stress", "16", "16", "2", build + "/helpers/rank_check"},
                      {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=" + p.policy,
                       "NUMABIND_CONFIG_FILE=" + site, "NB_CHECK_INTERLEAVE=1",
                       "NUMABIND_SHARED=" + build + "/test-shared"},
                      dir + "/output", 60);
    std::string out = ReadFile(dir + "/output");
    if (r.exit_code != 0 || out.find("16 bound as planned") == std::string::npos) {
      ++wrong;
      last = out;
    }
  }
  RemoveTree(dir);
  cr_expect_eq(wrong, 0, "%d of %d launches had a rank planned without the file:\n%s", wrong, launches,
               Tail(last).c_str());
}

// A site file that was ignored is a flag in `numabind report`'s verdict: every process that read it said so
// into the job's JSON log (the launcher and each rank), and the verdict is one flag line with the count and
// exit 1, not an exit 0 under as many identical warnings. The ranks were bound by the environment's policy.
Test(site_file, an_ignored_file_is_one_flag_in_reports_verdict) {
  CpuPair p = TwoAllowedCpus();
  std::string dir = MakeTempDir("numabind-site-verdict");
  for (const char* entry : {"posix_spawn", "execve"}) {
    std::string log = dir + "/" + entry + ".log";
    Outcome o = Launch(entry, "NUMABIND_LOG=info\nNUMABIND_MEMORY=fast\n",
                       {"NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG_FORMAT=json", "NUMABIND_LOG_FILE=" + log,
                        "NUMABIND_SHARED=" + BuildDir() + "/test-shared"});
    ExpectRanks(
        o, [&](int r) { return p.ForRank(r); }, entry);
    std::string lines = ReadFile(log);
    size_t said = LinesWith(lines, "\"event\":\"site_file\",\"ignored\":\"file\"").size();
    cr_expect_geq(said, 2u, "%s: each process that read it says so:\n%s", entry, lines.c_str());
    RunResult v = Run({BuildDir() + "/numabind", "report", log}, {}, dir + "/verdict", 30);
    std::string out = ReadFile(dir + "/verdict");
    cr_expect_eq(v.exit_code, 1, "%s: %s", entry, out.c_str());
    cr_expect_eq(LinesWith(out, "NUMABIND_MEMORY=fast").size(), 1u, "%s: %s", entry, out.c_str());
    cr_expect_eq(LinesWith(out, "  flag: site file ignored: ").size(), 1u, "%s: %s", entry, out.c_str());
    cr_expect(out.find("(the file is ignored) (said " + std::to_string(said) + " times)") !=
                  std::string::npos,
              "%s: %s", entry, out.c_str());
    cr_expect(out.find("NOT as planned: 1 host, 2 ranks") != std::string::npos, "%s: %s", entry, out.c_str());
  }
  // An unknown name: its line is ignored, the rest of the file applies (the ranks bind by its policy): a
  // flag too.
  std::string log = dir + "/unknown.log";
  Outcome o = Launch("execve", "NUMABIND_POLICY=" + p.policy + "\nNUMABIND_FUTURE_KNOB=1\n",
                     {"NUMABIND_LOG_FORMAT=json", "NUMABIND_LOG_FILE=" + log,
                      "NUMABIND_SHARED=" + BuildDir() + "/test-shared"});
  ExpectRanks(
      o, [&](int r) { return p.ForRank(r); }, "unknown name");
  RunResult v = Run({BuildDir() + "/numabind", "report", log}, {}, dir + "/verdict", 30);
  std::string out = ReadFile(dir + "/verdict");
  cr_expect_eq(v.exit_code, 1, "%s", out.c_str());
  cr_expect_eq(LinesWith(out, "  flag: site file line ignored: ").size(), 1u, "%s", out.c_str());
  cr_expect_eq(LinesWith(out, "NUMABIND_FUTURE_KNOB").size(), 1u, "%s", out.c_str());
  RemoveTree(dir);
}

// The site-wide device rule (issue 37): NUMABIND_POLICY and NUMABIND_BY_DEVICE=1 in the site file and nothing
// of numabind in the environment; a daemon's worker started with one device (CUDA_VISIBLE_DEVICES=1) reads
// the file at its start and binds as that device's rank (the machine: 2 nodes of one CPU each, a GPU near
// each, mapped onto this machine's first two CPUs). A worker with two devices, or none, stays on every CPU.
// Before, start-up read the file only for a policy or a rank variable: the worker ran everywhere, silently.
Test(site_file, a_worker_with_one_device_binds_by_the_site_files_device_rule) {
  std::vector<int> allowed = AllowedCpus();
  if (allowed.size() < 2 || allowed[0] != 0 || allowed[1] != 1)
    cr_skip_test("the topology file names CPUs 0, 1");
  std::string dir = MakeTempDir("numabind-site-device");
  std::string site = dir + "/numabind.conf";
  WriteSite(site, "NUMABIND_POLICY=node\nNUMABIND_BY_DEVICE=1\nNUMABIND_TOPOLOGY=" + RepoDir() +
                      "/tests/data/topologies/2synth-2n1c1t-2gpu.xml\n");
  std::string all = FormatCpuList(allowed);
  for (auto [devices, cpus] : {std::pair<const char*, std::string>{"1", "1"}, {"0", "0"}, {"0,1", all}}) {
    PreloadedRun o = RunPreloaded(
        {"@REPORT", "--out", "@OUT"},
        {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_SHARED=", std::string("CUDA_VISIBLE_DEVICES=") + devices},
        "numabind-site-device-run");
    cr_assert_eq(o.run.exit_code, 0, "%s: exit %d\n%s", devices, o.run.exit_code, o.output.c_str());
    cr_assert_eq(o.reports.size(), 1u, "%s: %zu reports\n%s", devices, o.reports.size(), o.output.c_str());
    cr_expect_eq(o.reports[0].Get("cpus"), cpus, "CUDA_VISIBLE_DEVICES=%s: on cpus %s, expected %s\nlog:\n%s",
                 devices, o.reports[0].Get("cpus").c_str(), cpus.c_str(), o.log.c_str());
  }
  RemoveTree(dir);
}
