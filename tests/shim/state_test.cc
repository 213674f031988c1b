// Start-up must work under any C library: musl calls constructors without (argc, argv, envp), and a
// library that reads them crashes every musl program on a machine that preloads it site-wide.

#include <criterion/criterion.h>
#include <unistd.h>

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

/// helpers/musl/entry_launcher ENTRY 2 report --out FILE, with the shim preloaded and `vars`.
Outcome LaunchMusl(const std::string& entry, const std::vector<std::string>& vars) {
  std::string dir = MakeTempDir("numabind-musl");
  std::string build = BuildDir();
  std::vector<std::string> env = {"LD_PRELOAD=" + build + "/libnumabind.so"};
  env.insert(env.end(), vars.begin(), vars.end());
  Outcome o;
  o.run = Run({build + "/helpers/musl/entry_launcher", entry, "2", build + "/helpers/report", "--out",
               dir + "/reports"},
              env, dir + "/output", 60);
  o.reports = ReadReports(dir + "/reports");
  o.output = ReadFile(dir + "/output");
  RemoveTree(dir);
  return o;
}

bool HaveMusl() { return access((BuildDir() + "/helpers/musl/entry_launcher").c_str(), X_OK) == 0; }

}  // namespace

Test(state, musl_program_runs_inert) {
  if (!HaveMusl()) cr_skip_test("musl-gcc not installed (scripts/install-deps.sh installs musl-tools)");
  Outcome o = LaunchMusl("execve", {});
  cr_assert_eq(o.run.exit_code, 0, "musl launcher exited %d:\n%s", o.run.exit_code, Tail(o.output).c_str());
  cr_expect_eq(o.reports.size(), 2u);
  cr_expect_eq(o.output, "");
}

Test(state, musl_program_binds_its_ranks) {
  if (!HaveMusl()) cr_skip_test("musl-gcc not installed (scripts/install-deps.sh installs musl-tools)");
  if (AllowedCpus().size() < 2) cr_assert_fail("needs 2 CPUs");
  for (const char* entry : {"execve", "vfork-execve", "posix_spawn"}) {
    Outcome o = LaunchMusl(entry, {"NUMABIND_POLICY=cpus:1|0", "NUMABIND_LOG=info"});
    cr_assert_eq(o.run.exit_code, 0, "%s: musl launcher exited %d:\n%s", entry, o.run.exit_code,
                 Tail(o.output).c_str());
    cr_assert_eq(o.reports.size(), 2u, "%s:\n%s", entry, Tail(o.output).c_str());
    for (const Report& r : o.reports) {
      cr_expect_eq(r.Get("cpus"), r.Get("rank") == "0" ? "1" : "0", "%s: rank %s on %s", entry,
                   r.Get("rank").c_str(), r.Get("cpus").c_str());
    }
    cr_expect_eq(LinesWith(o.output, "bound rank").size(), 2u, "%s:\n%s", entry, o.output.c_str());
  }
}

// Loaded with dlopen rather than preloaded, nothing comes after the library in the lookup order: every
// wrapper must still reach the C library (before: fork and posix_spawn gave ENOSYS, system crashed on a
// call to address 0), whether the library is inert or configured, local or global.
Test(state, dlopened_library_passes_every_call_through) {
  std::string build = BuildDir();
  for (const char* mode : {"local", "global"}) {
    for (const char* policy : {"NUMABIND_LOG=warn", "NUMABIND_POLICY=cpus:1|0"}) {
      std::string dir = MakeTempDir("numabind-dlopen");
      RunResult r = Run({build + "/helpers/dlopen_calls", build + "/libnumabind.so", mode},
                        {std::string(policy)}, dir + "/output", 30);
      std::string output = ReadFile(dir + "/output");
      RemoveTree(dir);
      cr_expect_eq(r.exit_code, 0, "%s, '%s': exit %d\n%s", mode, policy, r.exit_code, output.c_str());
      cr_expect_eq(LinesWith(output, "ok ").size(), 11u, "%s, '%s':\n%s", mode, policy, output.c_str());
    }
  }
}

}  // namespace numabind::shim::test
