// Stress on this machine: 16 threads start ranks at once through 8 entry points (helpers/stress), every child
// a rank that checks its own binding (helpers/rank_check). 0 crashes, 0 hangs and 0 wrong bindings.
// NUMABIND_STRESS_SPAWNS sets the spawns (make test: 1000; make stress: 10000). The guest repeats this with
// CPU hotplug and a shrinking cpuset (tests/vm/stress.sh).

#include <criterion/criterion.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {

Test(stress, sixteen_threads_every_entry_point, .timeout = 900) {
  CpuPair p = TwoAllowedCpus();
  const char* env_spawns = getenv("NUMABIND_STRESS_SPAWNS");
  std::string spawns = env_spawns != nullptr && *env_spawns != '\0' ? env_spawns : "1000";
  std::string dir = MakeTempDir("numabind-stress");
  std::string build = BuildDir();
  RunResult r = Run({build + "/helpers/stress", "16", spawns, "2", build + "/helpers/rank_check"},
                    {"LD_PRELOAD=" + build + "/libnumabind.so", "NUMABIND_POLICY=" + p.policy,
                     "NUMABIND_LOG_FILE=" + dir + "/log"},
                    dir + "/output", 600);
  std::string out = ReadFile(dir + "/output"), log = ReadFile(dir + "/log");
  RemoveTree(dir);
  cr_log_info("%s", Tail(out).c_str());
  cr_assert(!r.timed_out, "hung: %s", Tail(out).c_str());
  std::string want =
      "stress: " + spawns + " spawns, " + spawns + " bound as planned, 0 wrong, 0 crashed, 0 failed";
  cr_expect(out.find(want) != std::string::npos, "want '%s':\n%s\nlog:\n%s", want.c_str(), Tail(out).c_str(),
            Tail(log).c_str());
  cr_expect_eq(r.exit_code, 0);
}

}  // namespace numabind::shim::test
