// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FILE's % sequences in the library (shim/log/log.cc with base/log_path.cc): a launcher's
// ranks (helpers/entry_launcher, bound between fork and exec) log to the file their host, job and pid name;
// a directory that is not there is never made: each line goes to standard error after the one warning,
// which names the expanded path.

#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

std::string ShortHost() {
  utsname u;
  uname(&u);
  std::string h = u.nodename;
  return h.substr(0, h.find('.'));
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

RunResult LaunchTwo(const std::string& dir, const std::string& log_file) {
  std::string build = BuildDir();
  CpuPair p = TwoAllowedCpus();
  return Run({build + "/helpers/entry_launcher", "execve", "2", build + "/helpers/report", "--out",
              dir + "/reports"},
             {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=" + p.policy, "NUMABIND_LOG=info",
              "NUMABIND_LOG_FORMAT=json", "SLURM_JOB_ID=4242", "NUMABIND_LOG_FILE=" + log_file},
             dir + "/output", 60);
}

}  // namespace

Test(log_file, host_job_and_pid_name_the_file) {
  std::string dir = MakeTempDir("numabind-logfile");
  mkdir((dir + "/4242").c_str(), 0755);
  RunResult r = LaunchTwo(dir, dir + "/%j/%h.%p.log");
  std::string output = ReadFile(dir + "/output");
  std::vector<Report> reports = ReadReports(dir + "/reports");
  std::vector<std::string> names = Names(dir + "/4242");
  std::vector<Report> lines;
  for (const std::string& n : names) {
    std::vector<Report> in;
    for (const Report& l : ReadReports(dir + "/4242/" + n))
      if (l.Get("event") != "end") in.push_back(l);  // the rank's exit, in its own file too
    cr_expect_eq(in.size(), 1u, "%s: one rank's line", n.c_str());
    for (const Report& l : in) {
      cr_expect_eq(n, ShortHost() + "." + l.Get("pid") + ".log", "%s", l.line.c_str());
      lines.push_back(l);
    }
  }
  RemoveTree(dir);
  cr_assert_eq(r.exit_code, 0, "%s", output.c_str());
  cr_expect_eq(reports.size(), 2u);
  cr_expect_eq(names.size(), 2u, "one file per rank (its pid):\n%s", output.c_str());
  for (const Report& l : lines) cr_expect_eq(l.Get("event"), "bound", "%s", l.line.c_str());
}

Test(log_file, missing_directory_is_one_warning_and_never_made) {
  std::string dir = MakeTempDir("numabind-logfile");
  RunResult r = LaunchTwo(dir, dir + "/%j/%h.log");
  std::string output = ReadFile(dir + "/output");
  bool made = access((dir + "/4242").c_str(), F_OK) == 0;
  RemoveTree(dir);
  cr_assert_eq(r.exit_code, 0, "%s", output.c_str());
  cr_expect_not(made, "the job's directory is not the library's to make");
  std::string expanded = dir + "/4242/" + ShortHost() + ".log";
  std::vector<std::string> notes = LinesWith(output, "NUMABIND_LOG_FILE cannot be written");
  cr_expect_eq(notes.size(), 2u, "one per line that fell back:\n%s", output.c_str());
  for (const std::string& n : notes) {
    cr_expect(n.find("\"log_file\":\"" + expanded + "\"") != std::string::npos, "%s", n.c_str());
    cr_expect(n.find("ENOENT") != std::string::npos, "%s", n.c_str());
  }
  cr_expect_eq(LinesWith(output, "\"event\":\"bound\"").size(), 2u, "%s", output.c_str());
}

// A rank started with its standard error closed: the log file must not become its fd 2 (the program's own
// error output would go into the log) nor stay open. The library's descriptors are never 0, 1 or 2.
Test(log_file, never_becomes_the_programs_standard_error) {
  std::string dir = MakeTempDir("numabind-logfd");
  std::string build = BuildDir();
  CpuPair p = TwoAllowedCpus();
  for (const char* closed : {"2", "0"}) {
    // The same start without the library (LIB empty) is the control: the descriptors the rank inherits.
    std::string lists[2];
    for (int with = 0; with < 2; ++with) {
      std::string script =
          std::string("exec ") + closed + ">&-; LD_PRELOAD=\"$LIB\" exec \"$REPORT\" --out \"$OUT\"";
      unlink((dir + "/reports").c_str());
      unlink((dir + "/log").c_str());
      RunResult r =
          Run({"/bin/bash", "-c", script},
              {"LIB=" + (with ? build + "/libnumabind.so" : ""), "REPORT=" + build + "/helpers/report",
               "OUT=" + dir + "/reports", "NUMABIND_POLICY=" + p.policy, "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2",
               "NUMABIND_LOG=info", "NUMABIND_LOG_FILE=" + dir + "/log"},
              dir + "/output", 30);
      std::vector<Report> reports = ReadReports(dir + "/reports");
      cr_assert_eq(r.exit_code, 0, "fd %s closed: %s", closed, ReadFile(dir + "/output").c_str());
      cr_assert_eq(reports.size(), 1u, "fd %s closed", closed);
      lists[with] = reports[0].Get("fd_list");
    }
    std::string log = ReadFile(dir + "/log");
    cr_expect_eq(lists[1], lists[0], "fd %s closed: the rank has %s open, %s without the library\nlog:\n%s",
                 closed, lists[1].c_str(), lists[0].c_str(), log.c_str());
    cr_expect_eq(LinesWith(log, "bound rank 0 of 2").size(), 1u, "fd %s closed, log:\n%s", closed,
                 log.c_str());
  }
  RemoveTree(dir);
}

}  // namespace numabind::shim::test
