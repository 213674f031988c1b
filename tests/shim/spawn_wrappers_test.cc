// posix_spawn and friends through the shim return what the C library returns and write what it writes.

#include <criterion/criterion.h>

#include <string>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {

Test(spawn_wrappers, failed_spawn_leaves_pid_untouched) {
  // glibc writes *pid only on success; a caller that presets pid = -1 and cleans up with kill(pid, ...)
  // would otherwise signal its own process group (pid 0).
  std::string dir = MakeTempDir("numabind-spawn");
  std::string build = BuildDir();
  RunResult r =
      Run({build + "/helpers/hostile", "spawn-fail"},
          {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=cpus:1|0", "NUMABIND_LOG=off"},
          dir + "/output", 60);
  std::string out = ReadFile(dir + "/output");
  RemoveTree(dir);
  cr_expect_eq(r.exit_code, 0, "%s", out.c_str());
  cr_expect_eq(LinesWith(out, "spawn-fail: ret=2 pid=-1 ret2=2 pid2=-1").size(), 1u, "%s", out.c_str());
}

}  // namespace numabind::shim::test
