// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind vars` with a site file (docs/site.md): each variable's value in effect and where it came from,
// a bad site file reported once and ignored, and `numabind plan` and `run` reading the same file.

#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "tests/cli/cli_util.h"

using numabind::test::Result;
using numabind::test::Run;

namespace {

/// Writes a site file; removed at the end of the test by the caller.
std::string SiteFile(const std::string& text) {
  char path[] = "/tmp/numabind-vars-site-XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  return path;
}

/// The "in effect" line that follows `name`'s line in `numabind vars`.
std::string InEffect(const std::string& out, const std::string& name) {
  size_t at = out.find("  " + name + "=");
  cr_assert_neq(at, std::string::npos, "%s missing", name.c_str());
  size_t line = out.find('\n', at) + 1;
  size_t end = out.find('\n', line);
  return out.substr(line, end - line);
}

/// got == want, both shown when not.
void Expect(const std::string& got, const std::string& want) {
  cr_assert(got == want, "got `%s`, want `%s`", got.c_str(), want.c_str());
}

}  // namespace

Test(vars, values_and_where_they_come_from) {
  std::string site =
      SiteFile("# defaults\nNUMABIND_POLICY=auto\n\nNUMABIND_MEMORY=bind\nNUMABIND_LOG=debug\n");
  Result r = Run({"vars"}, {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_LOG=info"});
  unlink(site.c_str());
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_str_empty(r.err.c_str());
  cr_assert(r.out.find("Site file: " + site + ", 3 variables.\n") != std::string::npos, "%s", r.out.c_str());
  Expect(InEffect(r.out, "NUMABIND_POLICY"), "      in effect: auto (" + site + ":2)");
  Expect(InEffect(r.out, "NUMABIND_MEMORY"), "      in effect: bind (" + site + ":4)");
  Expect(InEffect(r.out, "NUMABIND_LOG"), "      in effect: info (the environment)");
  Expect(InEffect(r.out, "NUMABIND_DEVICES"), "      in effect: auto (the default)");
  Expect(InEffect(r.out, "NUMABIND_NRANKS"), "      in effect: unset (the default)");
  // --markdown is the README's table: no values of this machine in it.
  Result md = Run({"vars", "--markdown"}, {"NUMABIND_CONFIG_FILE=" + site});
  cr_assert(md.out.find("in effect") == std::string::npos);
}

Test(vars, bad_site_file_reported_once_and_ignored) {
  std::string site = SiteFile("NUMABIND_POLICY=auto\nNUMABIND_MEMORY=fast\n");
  Result r = Run({"vars"}, {"NUMABIND_CONFIG_FILE=" + site});
  Result plan = Run({"plan", "--topology", "synthetic:pack:2 numa:2 core:2 pu:1", "--ranks", "2"},
                    {"NUMABIND_CONFIG_FILE=" + site});
  unlink(site.c_str());
  cr_assert_eq(r.status, 0);
  std::string want =
      "numabind: " + site +
      ":2: NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted (the file is "
      "ignored)\n";
  Expect(r.err, want);
  Expect(InEffect(r.out, "NUMABIND_POLICY"), "      in effect: unset (the default)");
  cr_assert_eq(plan.status, 0, "%s", plan.err.c_str());
  Expect(plan.err, want);
  cr_assert(plan.out.find("auto") == std::string::npos, "the file's policy must not apply: %s",
            plan.out.c_str());
}

Test(vars, plan_and_run_read_the_site_file) {
  std::string site = SiteFile("NUMABIND_POLICY=cpus:0|1\nNUMABIND_MEMORY=interleave\n");
  Result plan = Run({"plan", "--topology", "synthetic:pack:2 numa:2 core:2 pu:1", "--ranks", "2"},
                    {"NUMABIND_CONFIG_FILE=" + site});
  Result over =
      Run({"plan", "--topology", "synthetic:pack:2 numa:2 core:2 pu:1", "--ranks", "2", "--memory", "bind"},
          {"NUMABIND_CONFIG_FILE=" + site});
  // run needs no --policy when the site file gives one.
  Result run = Run({"run", "--", "true"}, {"NUMABIND_CONFIG_FILE=" + site});
  Result none = Run({"run", "--", "true"}, {"NUMABIND_CONFIG_FILE=none"});
  unlink(site.c_str());
  cr_assert_eq(plan.status, 0, "%s", plan.err.c_str());
  cr_assert(plan.out.find("interleave") != std::string::npos, "%s", plan.out.c_str());
  cr_assert(over.out.find("interleave") == std::string::npos, "an option overrides the file: %s",
            over.out.c_str());
  cr_assert(over.out.find("bind") != std::string::npos, "%s", over.out.c_str());
  cr_assert_eq(run.status, 0, "%s", run.err.c_str());
  cr_assert_eq(none.status, 2, "%s", none.err.c_str());
}

// An unknown name in the site file is said once, with the nearest name, and the rest of the file applies
// (the library's rule: a newer version's variable must not switch the file off).
Test(vars, unknown_name_in_the_site_file_is_a_warning) {
  std::string site = SiteFile("NUMABIND_POLICY=auto\nNUMABIND_MEMROY=bind\n");
  Result r = Run({"vars"}, {"NUMABIND_CONFIG_FILE=" + site});
  unlink(site.c_str());
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  Expect(r.err,
         "numabind: " + site +
             ":2: NUMABIND_MEMROY is not a numabind variable (did you mean NUMABIND_MEMORY?); ignored\n");
  Expect(InEffect(r.out, "NUMABIND_POLICY"), "      in effect: auto (" + site + ":1)");
  Expect(InEffect(r.out, "NUMABIND_MEMORY"), "      in effect: local (the default)");
}

// ------------------------------------------------------------------------------------------ vars --check

Test(vars, check_passes_a_good_configuration) {
  std::string site = SiteFile("# defaults\nNUMABIND_POLICY=auto\nNUMABIND_LOG=info\n");
  Result r = Run({"vars", "--check"}, {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_MEMORY=bind"});
  Result none = Run({"vars", "--check"}, {"NUMABIND_CONFIG_FILE=/nonexistent/numabind.conf"});
  unlink(site.c_str());
  cr_assert_eq(r.status, 0, "%s%s", r.out.c_str(), r.err.c_str());
  Expect(r.out, "numabind vars --check: ok (the environment and " + site + ")\n");
  Expect(r.err, "");
  cr_assert_eq(none.status, 0, "%s", none.out.c_str());
  Expect(none.out,
         "numabind vars --check: ok (the environment; no site file at /nonexistent/numabind.conf)\n");
}

// A bad NUMABIND_MOVE is a warning, as the library takes it (auto is used, the ranks stay bound); exit 1, as
// for any warning; `run` starts.
Test(vars, check_warns_of_a_bad_move_budget) {
  Result r = Run({"vars", "--check"}, {"NUMABIND_CONFIG_FILE=none", "NUMABIND_MOVE=lots"});
  cr_assert_eq(r.status, 1, "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect((r.err + r.out).find("NUMABIND_MOVE=lots: expected auto, off or a size") != std::string::npos,
            "%s%s", r.out.c_str(), r.err.c_str());
  cr_expect(r.out.find("numabind vars --check: 0 errors, 1 warning") != std::string::npos, "%s",
            r.out.c_str());
  Result run =
      Run({"run", "--policy", "node", "--", "true"}, {"NUMABIND_CONFIG_FILE=none", "NUMABIND_MOVE=lots"});
  cr_expect_eq(run.status, 0, "%s", run.err.c_str());
}

// Every bad line of the site file, not only the first; and the count; exit 1.
Test(vars, check_lists_every_bad_line) {
  std::string site = SiteFile(
      "NUMABIND_POLICY=auto\nNUMABIND_MEMORY=fast\n# comment\nNUMABIND_LOG=loud\nNUMABIND_SHARED=off\n");
  Result r = Run({"vars", "--check"}, {"NUMABIND_CONFIG_FILE=" + site});
  unlink(site.c_str());
  cr_assert_eq(r.status, 1, "%s", r.out.c_str());
  Expect(r.out,
         site + ":2: NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted\n" +
             site + ":4: NUMABIND_LOG=loud: expected off, warn, info or debug\n" +
             "numabind vars --check: 2 errors, 0 warnings (the environment and " + site + ")\n");
}

// An unknown name, in the environment or the file: its nearest known name, exit 1 (a prologue must hear of
// a typo that the library only warns about).
Test(vars, check_names_unknown_variables_with_the_nearest) {
  std::string site = SiteFile("NUMABIND_POLICY=auto\nNUMABIND_MEMROY=bind\n");
  Result r = Run({"vars", "--check"}, {"NUMABIND_CONFIG_FILE=" + site, "NUMABIND_PLOICY=node"});
  unlink(site.c_str());
  cr_assert_eq(r.status, 1, "%s", r.out.c_str());
  Expect(r.out,
         "NUMABIND_PLOICY is not a numabind variable (did you mean NUMABIND_POLICY?); ignored\n" + site +
             ":2: NUMABIND_MEMROY is not a numabind variable (did you mean NUMABIND_MEMORY?); ignored\n" +
             "numabind vars --check: 0 errors, 2 warnings (the environment and " + site + ")\n");
}

// A bad value in the environment, with the listed value it is nearest; checked under NUMABIND_DISABLE=1 too.
Test(vars, check_suggests_the_nearest_value) {
  Result r =
      Run({"vars", "--check"}, {"NUMABIND_CONFIG_FILE=none", "NUMABIND_POLICY=sockte", "NUMABIND_DISABLE=1"});
  cr_assert_eq(r.status, 1, "%s", r.out.c_str());
  Expect(r.out,
         "NUMABIND_POLICY=sockte: expected node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or "
         "nodes:LIST|LIST... (did you mean socket?)\n"
         "numabind vars --check: 1 error, 0 warnings (the environment; NUMABIND_CONFIG_FILE=none: no site "
         "file)\n");
  Result unreadable = Run({"vars", "--check"}, {"NUMABIND_CONFIG_FILE=/"});
  cr_assert_eq(unreadable.status, 1, "%s", unreadable.out.c_str());
  Expect(unreadable.out,
         "/: not a regular file\nnumabind vars --check: 1 error, 0 warnings (the environment and /)\n");
  Result both = Run({"vars", "--check", "--markdown"});
  cr_assert_eq(both.status, 2);
}
