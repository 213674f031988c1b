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
    std::vector<Report> in = ReadReports(dir + "/4242/" + n);
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

}  // namespace numabind::shim::test
