// Preparing the plan in a launcher (shim/prepare.cc, shim/helper_launch.cc) at its edges: an environment
// near the kernel's exec limit, no /dev/null.

#include <criterion/criterion.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

std::string EdgeLaunch() { return RepoDir() + "/tests/shim/scripts/edge_launch.py"; }

}  // namespace

Test(prepare_edges, environment_near_the_exec_limit, .timeout = 60) {
  // The rank's exec takes all but 1500 bytes of the kernel's limit; the helper, given the launcher's whole
  // environment and its arguments (the long policy twice), did not fit ("exec E2BIG").
  CpuPair cpus = TwoAllowedCpus();
  std::string policy = cpus.policy;
  while (policy.size() < 4000) policy += "|" + cpus.second + "|" + cpus.first;
  std::string dir = MakeTempDir("numabind-edges");
  std::string build = BuildDir();
  RunResult r =
      Run({"/usr/bin/python3", EdgeLaunch(), "fill", build + "/helpers/report", "--out", dir + "/reports"},
          {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=" + policy, "NUMABIND_SHARED=off"},
          dir + "/output", 60);
  std::string output = ReadFile(dir + "/output");
  std::vector<Report> reports = ReadReports(dir + "/reports");
  RemoveTree(dir);
  cr_expect_eq(r.exit_code, 0, "%s", output.c_str());
  cr_assert_eq(reports.size(), 1u, "%s", output.c_str());
  cr_expect_eq(reports[0].Get("cpus"), cpus.second, "%s", Tail(output).c_str());
  cr_expect_eq(LinesWith(output, "E2BIG").size(), 0u, "%s", Tail(output).c_str());
}

Test(prepare_edges, no_dev_null, .timeout = 60) {
  // /dev hidden under an empty tmpfs (a private mount namespace): the helper cannot get its standard
  // input and error, and the line must say so rather than blame the helper's exec ("exec ENOENT").
  cr_assert_eq(geteuid(), 0u, "needs root (unshare --mount)");
  std::string dir = MakeTempDir("numabind-edges");
  std::string build = BuildDir();
  RunResult r =
      Run({"unshare", "--mount", "/bin/sh", "-c",
           "mount -t tmpfs none /dev && test ! -e /dev/null && exec \"$@\"", "sh",
           build + "/helpers/entry_launcher", "execve", "1", build + "/helpers/report", "--out",
           dir + "/reports"},
          {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=node", "NUMABIND_SHARED=off"},
          dir + "/output", 60);
  std::string output = ReadFile(dir + "/output");
  size_t reports = ReadReports(dir + "/reports").size();
  RemoveTree(dir);
  cr_expect_eq(r.exit_code, 0, "%s", output.c_str());
  cr_expect_eq(reports, 1u, "%s", output.c_str());
  cr_expect_eq(LinesWith(output, "failed: open /dev/null ENOENT").size(), 1u, "%s", output.c_str());
}

}  // namespace numabind::shim::test
