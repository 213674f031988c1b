// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind run`: where it finds libnumabind.so (build tree, installed layout), LD_PRELOAD kept and not
// doubled, the options' variables, validation before anything runs, exit statuses. The tests run a copy of
// build/numabind next to a stand-in libnumabind.so (a copy of build/libempty.so), so they check the command
// and not the shim.

#include <limits.h>

#include "cli/cli.h"
#include "tests/cli/cli_util.h"

using numabind::test::CountLines;
using numabind::test::Result;
using numabind::test::RunProgram;

namespace {

void Copy(const std::string& from, const std::string& to) {
  std::string data = numabind::test::ReadAll(from);
  cr_assert(!data.empty(), "cannot read %s", from.c_str());
  numabind::test::WriteAll(to, data);
  cr_assert_eq(chmod(to.c_str(), 0755), 0);
}

std::string EmptyLib() {
  std::string lib = numabind::test::BuildDir() + "/libempty.so";
  cr_assert_eq(access(lib.c_str(), R_OK), 0, "%s is not built (make BUILD=%s all)", lib.c_str(),
               numabind::test::BuildDir().c_str());
  return lib;
}

std::string Real(const std::string& path) {
  char buf[PATH_MAX];
  cr_assert_not_null(realpath(path.c_str(), buf), "realpath %s", path.c_str());
  return buf;
}

/// dir/numabind with dir/libnumabind.so beside it, as in the build tree; returns dir.
std::string BuildTreeLayout() {
  std::string dir = numabind::test::TempDir();
  Copy(numabind::test::Numabind(), dir + "/numabind");
  Copy(EmptyLib(), dir + "/libnumabind.so");
  return dir;
}

/// The value of NAME in `env` output, or "<unset>".
std::string EnvValue(const std::string& env_output, const std::string& name) {
  std::string key = "\n" + name + "=";
  std::string text = "\n" + env_output;
  size_t pos = text.find(key);
  if (pos == std::string::npos) return "<unset>";
  pos += key.size();
  return text.substr(pos, text.find('\n', pos) - pos);
}

}  // namespace

TestSuite(run, .fini = numabind::test::RemoveTempDirs);
TestSuite(run_parts, .fini = numabind::test::RemoveTempDirs);

Test(run, sets_preload_and_variables) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "env"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_str_empty(r.err.c_str());
  EXPECT_STREQ(EnvValue(r.out, "LD_PRELOAD").c_str(), Real(dir + "/libnumabind.so").c_str());
  EXPECT_STREQ(EnvValue(r.out, "NUMABIND_POLICY").c_str(), "node");
  EXPECT_STREQ(EnvValue(r.out, "NUMABIND_MEMORY").c_str(), "<unset>");
}

Test(run, every_option_sets_its_variable) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run",      "--policy",    "cpus:1|0",
                         "--memory",        "bind",     "--devices",   "none",
                         "--ranks",         "2",        "--rank-var",  "MY_RANK",
                         "--match",         "*worker*", "--topology",  "synthetic:pack:2 core:1 pu:1",
                         "--log",           "info",     "--log-file",  "/tmp/x.log",
                         "--strict",        "--guard",  "--by-device", "--export",
                         "omp,gpu",         "--forks",  "--",          "env"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  const char* expected[][2] = {
      {"NUMABIND_POLICY", "cpus:1|0"},
      {"NUMABIND_MEMORY", "bind"},
      {"NUMABIND_DEVICES", "none"},
      {"NUMABIND_NRANKS", "2"},
      {"NUMABIND_RANK_VAR", "MY_RANK"},
      {"NUMABIND_MATCH", "*worker*"},
      {"NUMABIND_TOPOLOGY", "synthetic:pack:2 core:1 pu:1"},
      {"NUMABIND_LOG", "info"},
      {"NUMABIND_LOG_FILE", "/tmp/x.log"},
      {"NUMABIND_STRICT", "1"},
      {"NUMABIND_EXPORT", "omp,gpu"},
      {"NUMABIND_GUARD", "1"},
      {"NUMABIND_BY_DEVICE", "1"},
      {"NUMABIND_FORKS", "ranks"},
  };
  for (const auto& e : expected) {
    EXPECT_STREQ(std::string(e[0]) + "=" + EnvValue(r.out, e[0]), std::string(e[0]) + "=" + e[1]);
  }
}

Test(run, keeps_variables_already_set) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run", "--memory", "interleave", "env"},
                        {"NUMABIND_POLICY=socket", "NUMABIND_MEMORY=bind", "OTHER=kept"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(EnvValue(r.out, "NUMABIND_POLICY").c_str(), "socket");
  EXPECT_STREQ(EnvValue(r.out, "NUMABIND_MEMORY").c_str(), "interleave");
  EXPECT_STREQ(EnvValue(r.out, "OTHER").c_str(), "kept");
  cr_assert_eq(r.out.find("NUMABIND_MEMORY=bind"), std::string::npos, "%s", r.out.c_str());
}

Test(run, keeps_existing_preload_entries) {
  std::string dir = BuildTreeLayout();
  std::string other = Real(EmptyLib());
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "env"}, {"LD_PRELOAD=" + other});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(EnvValue(r.out, "LD_PRELOAD").c_str(), (other + ":" + Real(dir + "/libnumabind.so")).c_str());
}

Test(run, does_not_add_the_library_twice) {
  std::string dir = BuildTreeLayout();
  std::string lib = Real(dir + "/libnumabind.so");
  std::string other = Real(EmptyLib());
  for (const std::string& preload : {lib, other + " " + lib, lib + ":" + other}) {
    Result r =
        RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "env"}, {"LD_PRELOAD=" + preload});
    cr_assert_eq(r.status, 0, "%s", r.err.c_str());
    EXPECT_STREQ(EnvValue(r.out, "LD_PRELOAD").c_str(), preload.c_str());
  }
}

Test(run, installed_layout) {
  std::string root = numabind::test::TempDir();
  cr_assert_eq(mkdir((root + "/bin").c_str(), 0755), 0);
  cr_assert_eq(mkdir((root + "/lib").c_str(), 0755), 0);
  Copy(numabind::test::Numabind(), root + "/bin/numabind");
  Copy(EmptyLib(), root + "/lib/libnumabind.so");
  Result r = RunProgram({root + "/bin/numabind", "run", "--policy", "node", "--", "env"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(EnvValue(r.out, "LD_PRELOAD").c_str(), Real(root + "/lib/libnumabind.so").c_str());
}

// LD_PRELOAD splits at spaces and colons: a library whose only path has one is preloaded through a link in
// the user's shared directory (reused by the next run), and one reached through a link whose path has
// neither is preloaded by the link's path.
Test(run, library_path_with_a_space) {
  std::string dir = numabind::test::TempDir() + "/with space";
  cr_assert_eq(mkdir(dir.c_str(), 0755), 0);
  Copy(numabind::test::Numabind(), dir + "/numabind");
  Copy(EmptyLib(), dir + "/libnumabind.so");
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "env"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::string preload = EnvValue(r.out, "LD_PRELOAD");
  std::string shared =
      numabind::test::BuildDir() + "/test-shared/numabind-" + std::to_string(geteuid()) + "/";
  EXPECT_STREQ(preload.substr(0, shared.size()).c_str(), shared.c_str());
  cr_expect(numabind::cli::Preloadable(preload), "%s", preload.c_str());
  EXPECT_STREQ(Real(preload).c_str(), Real(dir + "/libnumabind.so").c_str());
  struct stat st;
  cr_assert_eq(stat(shared.c_str(), &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0700u);
  r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "env"});
  EXPECT_STREQ(EnvValue(r.out, "LD_PRELOAD").c_str(), preload.c_str());

  std::string link = numabind::test::TempDir() + "/link";
  cr_assert_eq(symlink(dir.c_str(), link.c_str()), 0);
  r = RunProgram({link + "/numabind", "run", "--policy", "node", "--", "env"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(EnvValue(r.out, "LD_PRELOAD").c_str(), (link + "/libnumabind.so").c_str());
}

// No link can be made where the shared directory's own path has a space: a clear error.
Test(run, library_path_with_a_space_and_no_shared_directory) {
  std::string dir = numabind::test::TempDir() + "/with space";
  cr_assert_eq(mkdir(dir.c_str(), 0755), 0);
  Copy(numabind::test::Numabind(), dir + "/numabind");
  Copy(EmptyLib(), dir + "/libnumabind.so");
  Result r =
      RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "env"}, {"NUMABIND_SHARED=" + dir});
  cr_assert_eq(r.status, 1, "%s", r.out.c_str());
  EXPECT_STREQ(r.err.c_str(),
               ("numabind run: cannot preload " + Real(dir) +
                "/libnumabind.so: the dynamic loader splits LD_PRELOAD at spaces and colons, and the shared "
                "directory " +
                dir + "/numabind-" + std::to_string(geteuid()) +
                " has a space or a colon too (install numabind, or run it through a symbolic link whose "
                "path has neither)\n")
                   .c_str());
}

// The README's tour from a clone whose path has a space: numabind found through PATH (argv[0] has no '/')
// preloads the real library next to it, and the preloaded rank runs bound.
Test(run, through_path_from_a_directory_with_a_space) {
  std::string dir = numabind::test::TempDir() + "/with space";
  cr_assert_eq(mkdir(dir.c_str(), 0755), 0);
  Copy(numabind::test::Numabind(), dir + "/numabind");
  Copy(numabind::test::BuildDir() + "/libnumabind.so", dir + "/libnumabind.so");
  std::string path = "PATH=" + dir + ":" + (getenv("PATH") != nullptr ? getenv("PATH") : "/usr/bin:/bin");
  // env looks numabind up in its new PATH (posix_spawnp would search the test runner's).
  Result r = RunProgram({"/usr/bin/env", path, "numabind", "run", "--policy", "node", "--", "env"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::string preload = EnvValue(r.out, "LD_PRELOAD");
  cr_expect(numabind::cli::Preloadable(preload), "%s", preload.c_str());
  EXPECT_STREQ(Real(preload).c_str(), Real(dir + "/libnumabind.so").c_str());

  std::string report = Real(numabind::test::BuildDir() + "/helpers/report");
  r = RunProgram({"/usr/bin/env", path, "numabind", "run", "--policy", "cpus:1|0", "--", "env",
                  "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2", report});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_expect(r.out.find("\"cpus\":\"1\"") != std::string::npos, "%s%s", r.out.c_str(), r.err.c_str());
}

Test(run, library_not_found) {
  std::string dir = numabind::test::TempDir();
  Copy(numabind::test::Numabind(), dir + "/numabind");
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "true"});
  cr_assert_eq(r.status, 1);
  EXPECT_STREQ(r.err.c_str(), ("numabind run: cannot find libnumabind.so (tried " + dir +
                               "/libnumabind.so or " + dir + "/../lib/libnumabind.so)\n")
                                  .c_str());
}

Test(run, arguments_after_the_command_are_its_own) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node", "sh", "-c", "echo \"$@\"", "x",
                         "--policy", "bogus", "--", "y"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out.c_str(), "--policy bogus -- y\n");
}

Test(run, passes_the_exit_status_through) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "sh", "-c", "exit 7"});
  cr_assert_eq(r.status, 7);
}

Test(run, command_not_found) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "numabind-no-such-command"});
  cr_assert_eq(r.status, 127);
  EXPECT_STREQ(r.err.c_str(), "numabind run: numabind-no-such-command: No such file or directory\n");
  r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "/nonexistent/prog"});
  cr_assert_eq(r.status, 127);
  r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", dir});  // a directory
  cr_assert_eq(r.status, 126);
  EXPECT_STREQ(r.err.c_str(), ("numabind run: " + dir + ": Permission denied\n").c_str());
}

Test(run, bad_values_stop_before_anything_runs) {
  std::string dir = BuildTreeLayout();
  std::string marker = dir + "/ran";
  Result r =
      RunProgram({dir + "/numabind", "run", "--policy", "node", "--memory", "fast", "--", "touch", marker});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(
      r.err.c_str(),
      "numabind run: --memory fast: expected local, preferred, bind, interleave, near or weighted\n");
  r = RunProgram({dir + "/numabind", "run", "--policy", "node", "--", "touch", marker},
                 {"NUMABIND_LOG=loud"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind run: NUMABIND_LOG=loud: expected off, warn, info or debug\n");
  // Every bad value, each on its line, not only the first.
  r = RunProgram({dir + "/numabind", "run", "--policy", "sockte", "--", "touch", marker},
                 {"NUMABIND_LOG=loud", "NUMABIND_CONFIG_FILE=none"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(),
               "numabind run: --policy sockte: expected node, socket, exclusive, core-complex, auto, "
               "cpus:LIST|LIST... or nodes:LIST|LIST... (did you mean socket?)\n"
               "numabind run: NUMABIND_LOG=loud: expected off, warn, info or debug\n");
  // Checked even when NUMABIND_DISABLE=1 would make the library read nothing.
  r = RunProgram({dir + "/numabind", "run", "--policy", "nodes:x", "--", "touch", marker},
                 {"NUMABIND_DISABLE=1"});
  cr_assert_eq(r.status, 2, "%s", r.err.c_str());
  cr_assert_neq(access(marker.c_str(), F_OK), 0, "the command ran");
}

// vars --check's check: a bad site file refuses before anything starts, every bad line named; the library
// would ignore the whole file and leave every rank unbound.
Test(run, bad_site_file_stops_before_anything_runs) {
  std::string dir = BuildTreeLayout();
  std::string marker = dir + "/ran", site = dir + "/numabind.conf";
  numabind::test::WriteAll(site, "NUMABIND_POLICY=node\nNUMABIND_MEMORY=fast\nNUMABIND_LOG=loud\n");
  Result r = RunProgram({dir + "/numabind", "run", "--", "touch", marker}, {"NUMABIND_CONFIG_FILE=" + site});
  cr_assert_eq(r.status, 2, "%s", r.err.c_str());
  EXPECT_STREQ(r.err.c_str(),
               "numabind run: " + site +
                   ":2: NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted\n"
                   "numabind run: " +
                   site + ":3: NUMABIND_LOG=loud: expected off, warn, info or debug\n");
  cr_assert_neq(access(marker.c_str(), F_OK), 0, "the command ran");
}

// An unknown name is said, with the nearest, and ignored: the command runs (the library ignores it too).
Test(run, unknown_names_warn_and_run) {
  std::string dir = BuildTreeLayout();
  std::string marker = dir + "/ran", site = dir + "/numabind.conf";
  numabind::test::WriteAll(site, "NUMABIND_POLICY=node\nNUMABIND_MEMROY=bind\n");
  Result r = RunProgram({dir + "/numabind", "run", "--", "touch", marker},
                        {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_NRANK=4"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(
      r.err.c_str(),
      "numabind run: NUMABIND_NRANK is not a numabind variable (did you mean NUMABIND_NRANKS?); "
      "ignored\n"
      "numabind run: " +
          site + ":2: NUMABIND_MEMROY is not a numabind variable (did you mean NUMABIND_MEMORY?); ignored\n");
  cr_assert_eq(access(marker.c_str(), F_OK), 0, "the command did not run");
}

Test(run, needs_a_policy) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run", "--memory", "bind", "--", "true"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(),
               "numabind run: no policy: give --policy P or set NUMABIND_POLICY (numabind vars lists the "
               "choices)\n");
  // ...unless numabind is switched off: then the command runs, with the library inert.
  r = RunProgram({dir + "/numabind", "run", "--", "true"}, {"NUMABIND_DISABLE=1"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
}

Test(run, bad_usage) {
  std::string dir = BuildTreeLayout();
  Result r = RunProgram({dir + "/numabind", "run", "--policy", "node"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind run: no command given (numabind run [OPTIONS] -- CMD [ARGS...])\n");
  r = RunProgram({dir + "/numabind", "run", "--polcy", "node", "--", "true"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind run: unknown option --polcy (did you mean --policy?)\n");
  r = RunProgram({dir + "/numabind", "run", "--strict=1", "--", "true"});
  cr_assert_eq(r.status, 2);
  cr_assert_eq(CountLines(r.err), 1, "%s", r.err.c_str());
}

Test(run, ranks_land_where_the_plan_says) {
  // With the real library: a rank started under `numabind run` shows the CPUs and memory policy that
  // `numabind plan` gives it.
  std::string lib = numabind::test::BuildDir() + "/libnumabind.so";
  cr_assert_eq(access(lib.c_str(), R_OK), 0, "%s is not built", lib.c_str());
  std::string allowed = numabind::test::StatusField("Cpus_allowed_list");
  std::string cpu = allowed.substr(0, allowed.find_first_of(",-"));
  std::string policy = "cpus:" + cpu;
  Result plan =
      numabind::test::Run({"plan", "--policy", policy, "--memory", "bind", "--ranks", "1", "--json"});
  cr_assert_eq(plan.status, 0, "%s", plan.err.c_str());
  size_t n = plan.out.find("\"nodes\":\"");
  cr_assert_neq(n, std::string::npos, "%s", plan.out.c_str());
  n += 9;
  std::string nodes = plan.out.substr(n, plan.out.find('"', n) - n);
  Result r = numabind::test::Run({"run", "--policy", policy, "--memory", "bind", "--", "sh", "-c",
                                  "LOCAL_RANK=0 exec \"$0\" show --json", numabind::test::Numabind()});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::string expected = "\"cpus\":\"" + cpu + "\",\"nodes\":\"" +
                         numabind::test::StatusField("Mems_allowed_list") + "\",\"memory\":\"bind:" + nodes +
                         "\"";
  cr_assert(r.out.find(expected) != std::string::npos, "%s\nexpected %s", r.out.c_str(), expected.c_str());
}

// ------------------------------------------------------------------------------- the parts, in-process

Test(run_parts, compose_preload) {
  using numabind::cli::ComposePreload;
  const std::string lib = "/opt/numabind/lib/libnumabind.so";
  EXPECT_STREQ(ComposePreload(nullptr, lib).c_str(), lib.c_str());
  EXPECT_STREQ(ComposePreload("", lib).c_str(), lib.c_str());
  EXPECT_STREQ(ComposePreload("  ", lib).c_str(), lib.c_str());
  EXPECT_STREQ(ComposePreload("/a.so", lib).c_str(), ("/a.so:" + lib).c_str());
  EXPECT_STREQ(ComposePreload("/a.so /b.so", lib).c_str(), ("/a.so /b.so:" + lib).c_str());
  EXPECT_STREQ(ComposePreload("/a.so:", lib).c_str(), ("/a.so:" + lib).c_str());
  EXPECT_STREQ(ComposePreload(lib.c_str(), lib).c_str(), lib.c_str());
  EXPECT_STREQ(ComposePreload("/a.so:/build/libnumabind.so", lib).c_str(), "/a.so:/build/libnumabind.so");
  EXPECT_STREQ(ComposePreload("libnumabind.so", lib).c_str(), "libnumabind.so");
  EXPECT_STREQ(ComposePreload("/x/libnumabind.so.old", lib).c_str(),
               ("/x/libnumabind.so.old:" + lib).c_str());
}

Test(run_parts, find_shim) {
  std::string dir = BuildTreeLayout();
  std::string tried;
  EXPECT_STREQ(numabind::cli::FindShim(dir + "/numabind", &tried).c_str(),
               Real(dir + "/libnumabind.so").c_str());
  EXPECT_STREQ(numabind::cli::FindShim("/nonexistent/bin/numabind", &tried).c_str(), "");
  EXPECT_STREQ(tried.c_str(), "/nonexistent/bin/libnumabind.so or /nonexistent/bin/../lib/libnumabind.so");
}
