// A container runtime (ch-run, podman, apptainer, singularity) gets LD_PRELOAD without libnumabind.so, and
// so does the program a runtime starts: inside its container the library's path does not exist and the
// loader would complain in every process (shim/child/container.h). No runtime is needed here: a link named
// ch-run to helpers/report stands for one started by a launcher (every entry point of
// helpers/entry_launcher), and a link named ch-run to helpers/entry_launcher for a runtime that starts its
// program itself. tests/pkg/container_test.sh runs the real runtimes.

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

struct Outcome {
  std::vector<Report> reports;
  std::string output;
  RunResult run;
};

/// Runs argv (after `dir`'s links are made: DIR/ch-run to `runtime`, a helper's name) with `preload` as
/// LD_PRELOAD and `vars`; "@RUNTIME" in argv is the link, "@REPORT" helpers/report, "@LAUNCHER"
/// helpers/entry_launcher, "@OUT" the reports file.
Outcome RunWith(const std::string& runtime, std::vector<std::string> argv, const std::string& preload,
                const std::vector<std::string>& vars) {
  std::string dir = MakeTempDir("numabind-container");
  std::string build = BuildDir();
  std::string link = dir + "/ch-run";
  cr_assert_eq(symlink((build + "/helpers/" + runtime).c_str(), link.c_str()), 0);
  for (std::string& a : argv) {
    if (a == "@RUNTIME") a = link;
    if (a == "@REPORT") a = build + "/helpers/report";
    if (a == "@OUT") a = dir + "/reports";
    if (a == "@LAUNCHER") a = build + "/helpers/entry_launcher";
  }
  std::vector<std::string> env = {"LD_PRELOAD=" + preload, "NUMABIND_LOG_FILE=" + dir + "/log"};
  env.insert(env.end(), vars.begin(), vars.end());
  Outcome o;
  o.run = Run(argv, env, dir + "/output", 60);
  o.output = ReadFile(dir + "/output") + ReadFile(dir + "/log");
  // helpers/report's lines, in the reports file or on standard output (a loader error there is not one).
  for (const std::string& file : {dir + "/reports", dir + "/output"}) {
    for (const Report& r : ReadReports(file)) {
      if (!r.fields.empty()) o.reports.push_back(r);
    }
  }
  RemoveTree(dir);
  return o;
}

std::string Shim() { return BuildDir() + "/libnumabind.so"; }

/// `entry`'s two ranks are the runtime (a link named ch-run to helpers/report): each started with
/// `want_preload` as LD_PRELOAD ("null": none), on its planned CPU when `bound`.
void ExpectRuntimeRanks(const std::string& entry, const std::string& preload, const std::string& want_preload,
                        const std::vector<std::string>& vars, bool bound) {
  CpuPair p = TwoAllowedCpus();
  std::vector<std::string> all = vars;
  if (bound) all.push_back("NUMABIND_POLICY=" + p.policy);
  // The reports on standard output: the execl family takes three arguments at most.
  Outcome o = RunWith("report", {"@LAUNCHER", entry, "2", "@RUNTIME", "--env", "LD_PRELOAD"}, preload, all);
  cr_assert_eq(o.run.exit_code, 0, "%s: exit %d\n%s", entry.c_str(), o.run.exit_code, Tail(o.output).c_str());
  cr_assert_eq(o.reports.size(), 2u, "%s: %zu reports\n%s", entry.c_str(), o.reports.size(),
               Tail(o.output).c_str());
  for (const Report& r : o.reports) {
    cr_expect_eq(EnvOf(r, "LD_PRELOAD"), want_preload, "%s: LD_PRELOAD %s, want %s", entry.c_str(),
                 EnvOf(r, "LD_PRELOAD").c_str(), want_preload.c_str());
    if (bound) {
      std::string want = p.ForRank(std::stoi(r.Get("rank")));
      cr_expect_eq(r.Get("cpus"), want, "%s: rank %s on %s, planned %s", entry.c_str(), r.Get("rank").c_str(),
                   r.Get("cpus").c_str(), want.c_str());
    }
  }
}

const char* const kEntries[] = {
    "execve",  "execv",        "execvp",           "execvpe",      "execl",       "execle",       "execlp",
    "fexecve", "execveat",     "vfork-execve",     "_Fork-execve", "posix_spawn", "posix_spawnp", "system",
    "popen",   "small:execve", "small:posix_spawn"};

}  // namespace

// Before: every entry point passed LD_PRELOAD on as it was, and the runtime passed it into its container.
Test(container, runtime_rank_is_bound_and_started_without_the_library) {
  for (const char* entry : kEntries) ExpectRuntimeRanks(entry, Shim(), "null", {}, true);
}

// The package's profile.d script preloads the library into every login shell, with no NUMABIND_POLICY:
// the runtime must lose it there too. Other entries stay, in order.
Test(container, inert_library_leaves_itself_out_and_keeps_the_others) {
  std::string empty = BuildDir() + "/libempty.so";
  for (const char* entry : {"execve", "posix_spawn", "vfork-execve"}) {
    ExpectRuntimeRanks(entry, empty + ":" + Shim(), "\"" + empty + "\"", {}, false);
    ExpectRuntimeRanks(entry, Shim() + " " + empty, "\"" + empty + "\"", {}, false);
  }
}

// NUMABIND_CONTAINER=keep: the library is mounted inside, a launcher there binds its ranks.
Test(container, keep_passes_the_library_on) {
  for (const char* entry : {"execve", "posix_spawn"})
    ExpectRuntimeRanks(entry, Shim(), "\"" + Shim() + "\"", {"NUMABIND_CONTAINER=keep"}, true);
}

// The site file's NUMABIND_CONTAINER=keep acts as the environment's does (before, only the environment's was
// read, while `numabind vars` said keep was in effect); the environment's value overrides it.
Test(container, keep_from_the_site_file_passes_the_library_on) {
  std::string dir = MakeTempDir("numabind-container-site");
  std::string site = dir + "/numabind.conf";
  FILE* f = fopen(site.c_str(), "w");
  cr_assert(f != nullptr);
  fputs("NUMABIND_CONTAINER=keep\n", f);
  fclose(f);
  for (const char* entry : {"execve", "posix_spawn", "vfork-execve"}) {
    ExpectRuntimeRanks(entry, Shim(), "\"" + Shim() + "\"", {"NUMABIND_CONFIG_FILE=" + site}, true);
    ExpectRuntimeRanks(entry, Shim(), "\"" + Shim() + "\"", {"NUMABIND_CONFIG_FILE=" + site}, false);
    ExpectRuntimeRanks(entry, Shim(), "null", {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_CONTAINER=strip"},
                       false);
  }
  RemoveTree(dir);
}

// A bad value is an error like any other: one line naming it, and the safe reading (strip), not silence.
Test(container, bad_value_is_said_and_strips) {
  CpuPair p = TwoAllowedCpus();
  Outcome o = RunWith("report", {"@LAUNCHER", "execve", "1", "@RUNTIME", "--env", "LD_PRELOAD"}, Shim(),
                      {"NUMABIND_CONTAINER=Keep"});
  cr_assert_eq(o.reports.size(), 1u, "%s", Tail(o.output).c_str());
  cr_expect_eq(EnvOf(o.reports[0], "LD_PRELOAD"), "null", "%s", o.reports[0].line.c_str());
  cr_expect_eq(LinesWith(o.output, "NUMABIND_CONTAINER=Keep: expected strip or keep").size(), 1u, "%s",
               o.output.c_str());
}

// NUMABIND_DISABLE=1: nothing else is read, nothing is changed.
Test(container, disable_changes_nothing) {
  ExpectRuntimeRanks("execve", Shim(), "\"" + Shim() + "\"", {"NUMABIND_DISABLE=1"}, false);
}

// A program that is not a runtime keeps LD_PRELOAD: ranks' children go on being preloaded.
Test(container, other_programs_keep_the_library) {
  Outcome o = RunWith(
      "report", {"@LAUNCHER", "execve", "1", "@REPORT", "--out", "@OUT", "--env", "LD_PRELOAD"}, Shim(), {});
  cr_assert_eq(o.reports.size(), 1u, "%s", Tail(o.output).c_str());
  cr_expect_eq(EnvOf(o.reports[0], "LD_PRELOAD"), "\"" + Shim() + "\"", "%s", o.reports[0].line.c_str());
}

// A vfork child's exec maps the runtime's environment in its parent's memory: the parent unmaps it when vfork
// returns, so the launcher is left with as many mappings as when it starts a program that is not a runtime
// (counting before and after would not do: a leaked mapping and the next one merge into one).
Test(container, vfork_leaves_nothing_mapped_in_the_launcher) {
  std::vector<std::string> last;
  for (const char* program : {"@RUNTIME", "@REPORT"}) {
    Outcome o =
        RunWith("report", {"@LAUNCHER", "small:vfork-execve", "3", program}, Shim(), {"NB_TEST_MAPS=1"});
    cr_assert_eq(o.reports.size(), 3u, "%s", Tail(o.output).c_str());
    std::vector<std::string> counts = LinesWith(o.output, "maps after rank 2: ");
    cr_assert_eq(counts.size(), 1u, "%s", Tail(o.output).c_str());
    last.push_back(counts[0]);
  }
  cr_expect_eq(last[0], last[1], "runtime: %s, other program: %s", last[0].c_str(), last[1].c_str());
}

namespace {
/// Whether starting the runtime (a link named ch-run to helpers/report) through `how` left a plan basis in a
/// fresh shared directory: the process that starts it is preloaded and configured, and no rank.
bool PreparedForRuntime(const std::vector<std::string>& how, const std::vector<std::string>& vars) {
  std::string dir = MakeTempDir("numabind-container-shared");
  std::string shared = dir + "/shared";
  cr_assert_eq(mkdir(shared.c_str(), 0700), 0);
  CpuPair p = TwoAllowedCpus();
  std::vector<std::string> all = vars;
  all.push_back("NUMABIND_POLICY=" + p.policy);
  all.push_back("NUMABIND_SHARED=" + shared);
  Outcome o = RunWith("report", how, Shim(), all);
  cr_assert_eq(o.run.exit_code, 0, "%s", Tail(o.output).c_str());
  cr_assert_eq(o.reports.size(), 1u, "%s", Tail(o.output).c_str());
  bool found = false;
  if (DIR* d = opendir((shared + "/numabind-" + std::to_string(geteuid())).c_str())) {
    while (dirent* e = readdir(d)) found = found || std::string(e->d_name).rfind("basis-", 0) == 0;
    closedir(d);
  }
  RemoveTree(dir);
  return found;
}

const std::vector<std::string> kBashExec = {"/bin/bash", "-c", "exec \"$0\"", "@RUNTIME"};
const std::vector<std::string> kPythonSpawn = {
    "/usr/bin/python3",
    "-I",
    "-S",
    "-c",
    "import os, sys; os.waitpid(os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ), 0)",
    "@RUNTIME"};
}  // namespace

// With NUMABIND_CONTAINER=keep, the process that starts a runtime prepares the plan basis into the shared
// directory first (a shell exec'ing it, a posix_spawn), so that the library inside reads it there and needs
// no planner helper in the image. Without keep (the control), nothing is prepared: none of them forks.
Test(container, keep_prepares_the_shared_basis_before_the_runtime) {
  for (const auto& how : {kBashExec, kPythonSpawn}) {
    cr_expect(PreparedForRuntime(how, {"NUMABIND_CONTAINER=keep"}), "%s: no basis prepared", how[0].c_str());
    cr_expect_not(PreparedForRuntime(how, {}), "%s: a basis prepared without keep", how[0].c_str());
  }
}

// A runtime started preloaded by a launcher that is not (slurmstepd, a Go launcher) execs its container's
// program with LD_PRELOAD without the library: the link named ch-run to entry_launcher is such a runtime,
// its program helpers/report. Before: LD_PRELOAD went in as it was. The runtime as a rank that binds
// itself at start-up: its program inherits the CPUs.
Test(container, runtime_started_preloaded_starts_its_program_without_the_library) {
  for (const char* entry : {"execve", "direct-execve", "posix_spawn"}) {
    Outcome o =
        RunWith("entry_launcher", {"@RUNTIME", entry, "1", "@REPORT", "--out", "@OUT", "--env", "LD_PRELOAD"},
                Shim(), {});
    cr_assert_eq(o.reports.size(), 1u, "%s: %s", entry, Tail(o.output).c_str());
    cr_expect_eq(EnvOf(o.reports[0], "LD_PRELOAD"), "null", "%s: %s", entry, o.reports[0].line.c_str());
  }
  CpuPair p = TwoAllowedCpus();
  Outcome o = RunWith("entry_launcher",
                      {"@RUNTIME", "direct-execve", "1", "@REPORT", "--out", "@OUT", "--env", "LD_PRELOAD"},
                      Shim(), {"NUMABIND_POLICY=" + p.policy, "MPI_LOCALRANKID=1", "MPI_LOCALNRANKS=2"});
  cr_assert_eq(o.reports.size(), 1u, "%s", Tail(o.output).c_str());
  cr_expect_eq(EnvOf(o.reports[0], "LD_PRELOAD"), "null", "%s", o.reports[0].line.c_str());
  cr_expect_eq(o.reports[0].Get("cpus"), p.ForRank(1), "%s", o.reports[0].line.c_str());
}

}  // namespace numabind::shim::test
