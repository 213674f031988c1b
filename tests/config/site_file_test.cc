// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file (config/site_file.h): comments and blanks, every line through ParseVar, a bad line as
// FILE:LINE and the whole file ignored, the environment overriding it per variable, NUMABIND_DISABLE in
// either, the path and its override, and the rank-variable test of the library's start-up.

#include "config/site_file.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "config/rank_entry.h"
#include "config/vars.h"
#include "tests/config/config_test_util.h"

using numabind::config::ApplySite;
using numabind::config::Config;
using numabind::config::Error;
using numabind::config::MemoryKind;
using numabind::config::Parse;
using numabind::config::ReadSiteFile;
using numabind::config::SiteFile;
using numabind::config::SiteValue;
using numabind::config::testing::Env;

namespace {

/// Writes `text` to a new file and returns its path.
std::string Write(const std::string& text) {
  char path[] = "/tmp/numabind-site-XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  return path;
}

/// Reads `text` as a site file: whether it was good, the file (heap: 16 KiB) and the error.
struct Read {
  std::unique_ptr<SiteFile> site = std::make_unique<SiteFile>();
  Error err;
  bool ok = false;
  std::string path;
  explicit Read(const std::string& text) : path(Write(text)) {
    ok = ReadSiteFile(path.c_str(), site.get(), &err);
    unlink(path.c_str());
  }
};

/// Parses env, then applies the site file, as the library does. The Config's strings point into env's and
/// the site file's: env must outlive it (a named variable, not a temporary).
Config Apply(const Env& env, const SiteFile& site) {
  Config c;
  Error err;
  Parse(env.get(), &c, &err);
  ApplySite(env.get(), site, &c);
  return c;
}

}  // namespace

Test(site_file, comments_blanks_and_variables) {
  Read r(
      "# site défaults, ünïcode\n\n   \n  # indented comment\nNUMABIND_POLICY=auto\n\tNUMABIND_MEMORY=bind  "
      "\n"
      "NUMABIND_LOG=info");  // no newline at the end
  cr_assert(r.ok, "%s", r.err.text);
  cr_assert_eq(r.site->count, 3);
  uint32_t line = 0;
  cr_assert_str_eq(SiteValue(*r.site, numabind::config::kVarPolicy, &line), "auto");
  cr_assert_eq(line, 5u);
  cr_assert_str_eq(SiteValue(*r.site, numabind::config::kVarMemory, &line), "bind");  // blanks trimmed
  cr_assert_eq(line, 6u);
  cr_assert_str_eq(SiteValue(*r.site, numabind::config::kVarLog, &line), "info");
  cr_assert_eq(line, 7u);
  cr_assert_null(SiteValue(*r.site, numabind::config::kVarDevices, nullptr));
  Env c_env({});
  Config c = Apply(c_env, *r.site);
  cr_assert(c.enabled);
  cr_assert_str_eq(c.policy.text, "auto");
  cr_assert_eq(c.memory, MemoryKind::kBind);
  cr_assert_eq(c.log, numabind::config::LogLevel::kInfo);
}

Test(site_file, missing_file_is_no_file) {
  auto site = std::make_unique<SiteFile>();
  Error err;
  cr_assert(ReadSiteFile("/nonexistent/numabind.conf", site.get(), &err));
  cr_assert_eq(site->count, 0);
  cr_assert_null(site->path);
  cr_assert_str_empty(err.text);
}

Test(site_file, bad_value_names_file_and_line_and_ignores_the_file) {
  Read r("NUMABIND_POLICY=auto\n# comment\nNUMABIND_MEMORY=bogus\n");
  cr_assert_not(r.ok);
  const std::string want =
      r.path + ":3: NUMABIND_MEMORY=bogus: expected local, preferred, bind, interleave, near or weighted";
  cr_assert_str_eq(r.err.text, want.c_str());
  cr_assert_eq(r.site->count, 0, "a bad file is ignored as a whole: its good lines too");
  Env c_env({});
  Config c = Apply(c_env, *r.site);
  cr_assert_not(c.enabled);
}

namespace {

/// A value ParseVar accepts for variable `id`: its default, or the first of a few that it accepts.
std::string GoodValue(int id) {
  using numabind::config::kVars;
  const char* dflt = kVars[id].dflt;
  for (const char* v : {dflt, "node", "2", "LOCAL_RANK", "synthetic:pack:2 core:2 pu:1", "/tmp/x.log"}) {
    Config c;
    if (v != nullptr && numabind::config::ParseVar(kVars[id].name, v, &c, nullptr)) return v;
  }
  cr_assert_fail("no value for %s", kVars[id].name);
  return "";
}

}  // namespace

// Issue 38: a name is set twice only when the whole name is: NUMABIND_LOG after NUMABIND_LOG_FORMAT is
// another variable (the check compared the first line's name cut to the second's length, so the whole file
// was ignored). Every pair of variables, both ways.
Test(site_file, every_pair_of_names_both_ways) {
  using numabind::config::kVarCount;
  using numabind::config::kVars;
  auto settable = [](int id) {
    return id != numabind::config::kVarConfigFile && id != numabind::config::kVarBound;
  };
  for (int a = 0; a < kVarCount; ++a) {
    for (int b = 0; b < kVarCount; ++b) {
      if (!settable(a) || !settable(b)) continue;
      std::string first = std::string(kVars[a].name) + "=" + GoodValue(a);
      std::string second = std::string(kVars[b].name) + "=" + GoodValue(b);
      std::string text = first + "\n" + second + "\n";
      auto site = std::make_unique<SiteFile>();
      memcpy(site->text, text.data(), text.size());
      Error err;
      bool ok = numabind::config::ParseSiteText("site", text.size(), site.get(), &err);
      if (a == b) {
        cr_expect_not(ok, "%s twice", kVars[a].name);
        std::string want = "site:2: " + second + ": already set on line 1";
        cr_expect_str_eq(err.text, want.c_str());
        continue;
      }
      cr_expect(ok, "%s then %s: %s", kVars[a].name, kVars[b].name, err.text);
      cr_expect_eq(site->count, 2, "%s then %s", kVars[a].name, kVars[b].name);
      uint32_t line = 0;
      const char* v = SiteValue(*site, b, &line);
      cr_expect(v != nullptr && line == 2, "%s then %s: the second is not on line 2", kVars[a].name,
                kVars[b].name);
    }
  }
}

Test(site_file, other_lines_are_errors) {
  struct Case {
    const char* text;
    const char* why;  // after "PATH:LINE: "
  } cases[] = {
      {"\nexport NUMABIND_POLICY=auto\n",
       "2: export NUMABIND_POLICY=auto: expected NUMABIND_NAME=value (no quotes, no export; comments on "
       "lines "
       "of their own)"},
      {"PATH=/bin\n", "1: PATH=/bin: expected NUMABIND_NAME=value"},
      {"NUMABIND_POLICY\n", "1: NUMABIND_POLICY: expected NUMABIND_NAME=value"},
      {"NUMABIND_POLICY=\"auto\"\n", "1: NUMABIND_POLICY=\"auto\": "},
      {"NUMABIND_POLICY=auto # all ranks\n", "1: NUMABIND_POLICY=auto # all ranks: "},
      {"NUMABIND_POLICY=auto\nNUMABIND_POLICY=node\n", "2: NUMABIND_POLICY=node: already set on line 1"},
      {"NUMABIND_BOUND=LOCAL_RANK=0\n", "1: NUMABIND_BOUND=LOCAL_RANK=0: set by numabind only"},
      {"NUMABIND_CONFIG_FILE=/x\n", "1: NUMABIND_CONFIG_FILE=/x: read from the environment only"},
      {"NUMABIND_LOG=info\0\n", "1: a NUL byte: not a text file"},
  };
  for (const Case& k : cases) {
    std::string text = k.text;
    if (text == "NUMABIND_LOG=info") text += std::string("\0\n", 2);
    Read r(text);
    cr_assert_not(r.ok, "%s", k.text);
    std::string want = r.path + ":" + k.why;
    cr_assert(strncmp(r.err.text, want.c_str(), want.size()) == 0, "got %s, want %s...", r.err.text,
              want.c_str());
    cr_assert_eq(r.site->count, 0);
  }
}

// An unknown NUMABIND_* name (a newer version's variable, a typo) does not make the file bad: warned about
// with the nearest name, ignored, the other lines applied (issue 26).
Test(site_file, unknown_name_is_a_warning_and_ignored) {
  Read r("NUMABIND_POLICY=auto\nNUMABIND_MEMROY=bind\nNUMABIND_LOG=info\nNUMABIND_FUTURE_KNOB=3\n");
  cr_assert(r.ok, "%s", r.err.text);
  cr_assert_str_empty(r.err.text);
  const std::string want =
      r.path + ":2: NUMABIND_MEMROY is not a numabind variable (did you mean NUMABIND_MEMORY?)";
  cr_assert_str_eq(r.err.warning, want.c_str(), "the first unknown name");
  cr_assert_eq(r.site->count, 2);
  Env c_env({});
  Config c = Apply(c_env, *r.site);
  cr_assert(c.enabled);
  cr_assert_str_eq(c.policy.text, "auto");
  cr_assert_eq(c.log, numabind::config::LogLevel::kInfo);
  cr_assert_eq(c.memory, MemoryKind::kLocal, "the misspelt line is not read as anything");
  // An unknown name beside a bad value: the bad value still makes the file bad.
  Read bad("NUMABIND_POLICY=auto\nNUMABIND_FOO=1\nNUMABIND_MEMORY=fast\n");
  cr_assert_not(bad.ok);
  cr_assert(strstr(bad.err.text, ":3: NUMABIND_MEMORY=fast: ") != nullptr, "%s", bad.err.text);
  cr_assert_eq(bad.site->count, 0);
}

/// The problems a listener heard.
struct Heard {
  std::vector<std::string> errors, warnings;
  static void Tell(void* ctx, bool error, const char* text) {
    auto* h = static_cast<Heard*>(ctx);
    (error ? h->errors : h->warnings).push_back(text);
  }
};

// With a listener (`numabind vars --check`), every line is checked and every problem told, in line order;
// the result is the library's: the first error in err, nothing kept.
Test(site_file, listener_hears_every_problem) {
  std::string path = Write(
      "NUMABIND_POLICY=sockte\n# fine\nNUMABIND_LOG=info\nNUMABIND_POLCY=node\nNUMABIND_MEMORY=fast\n"
      "PATH=/bin\nNUMABIND_LOG=warn\n");
  auto site = std::make_unique<SiteFile>();
  Error err;
  Heard heard;
  numabind::config::SiteListener listener{Heard::Tell, &heard};
  bool ok = ReadSiteFile(path.c_str(), site.get(), &err, &listener);
  unlink(path.c_str());
  cr_assert_not(ok);
  cr_assert_eq(site->count, 0);
  const std::vector<std::string> errors = {
      path +
          ":1: NUMABIND_POLICY=sockte: expected node, socket, exclusive, core-complex, auto, "
          "cpus:LIST|LIST... or nodes:LIST|LIST... (did you mean socket?)",
      path + ":5: NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted",
      path +
          ":6: PATH=/bin: expected NUMABIND_NAME=value (no quotes, no export; comments on lines of their "
          "own)",
      path + ":7: NUMABIND_LOG=warn: already set on line 3"};
  const std::vector<std::string> warnings = {
      path + ":4: NUMABIND_POLCY is not a numabind variable (did you mean NUMABIND_POLICY?)"};
  cr_assert_eq(heard.errors.size(), errors.size());
  for (size_t i = 0; i < errors.size(); ++i)
    cr_assert(heard.errors[i] == errors[i], "got %s\nwant %s", heard.errors[i].c_str(), errors[i].c_str());
  cr_assert_eq(heard.warnings.size(), warnings.size());
  cr_assert(heard.warnings[0] == warnings[0], "got %s", heard.warnings[0].c_str());
  cr_assert(errors[0] == err.text, "err keeps the first: %s", err.text);
}

Test(site_file, larger_than_16_kib_is_an_error) {
  std::string text(numabind::config::kSiteFileMax - 10, '#');
  text += "\nNUMABIND_LOG=info\n#";
  cr_assert_gt(text.size(), numabind::config::kSiteFileMax);
  Read big(text);
  cr_assert_not(big.ok);
  std::string want = big.path + ": larger than 16384 bytes";
  cr_assert_str_eq(big.err.text, want.c_str());
  std::string fits(numabind::config::kSiteFileMax - 20, '#');
  fits += "\nNUMABIND_LOG=info\n";
  Read ok(fits);
  cr_assert(ok.ok, "%s", ok.err.text);
}

Test(site_file, environment_overrides_per_variable) {
  Read r("NUMABIND_POLICY=auto\nNUMABIND_MEMORY=bind\nNUMABIND_MATCH=*worker*\n");
  cr_assert(r.ok, "%s", r.err.text);
  Env c_env({"NUMABIND_MEMORY=interleave", "NUMABIND_POLICY=", "PATH=/bin"});
  Config c = Apply(c_env, *r.site);
  cr_assert_str_eq(c.policy.text, "auto", "an empty value is unset: the file's applies");
  cr_assert_eq(c.memory, MemoryKind::kInterleave);
  cr_assert_str_eq(c.match, "*worker*");
  // An empty NUMABIND_MATCH is a value (matches nothing): the file's does not apply.
  Env m_env({"NUMABIND_MATCH="});
  Config m = Apply(m_env, *r.site);
  cr_assert_str_eq(m.match, "");
  Env n_env({"NUMABIND_POLICY=node"});
  Config n = Apply(n_env, *r.site);
  cr_assert_str_eq(n.policy.text, "node");
  cr_assert_eq(n.memory, MemoryKind::kBind);
}

Test(site_file, disable_in_either_switches_off) {
  Read off("NUMABIND_POLICY=auto\nNUMABIND_DISABLE=1\n");
  cr_assert(off.ok, "%s", off.err.text);
  Env a_env({"NUMABIND_DISABLE=0", "NUMABIND_POLICY=node"});
  Config a = Apply(a_env, *off.site);
  cr_assert(a.disabled);
  cr_assert_not(a.enabled);
  Read on("NUMABIND_POLICY=auto\n");
  Env b_env({"NUMABIND_DISABLE=1"});
  Config b = Apply(b_env, *on.site);
  cr_assert(b.disabled);
  cr_assert_not(b.enabled);
}

Test(site_file, path_and_its_override) {
  // SiteFilePath returns a pointer into the environment: each Env is a named variable.
  Env none({}), empty({"NUMABIND_CONFIG_FILE="}), other({"NUMABIND_CONFIG_FILE=/x/y.conf"}),
      off({"NUMABIND_CONFIG_FILE=none"}), relative({"NUMABIND_CONFIG_FILE=relative.conf"});
  cr_assert_str_eq(numabind::config::SiteFilePath(none.get()), numabind::config::kSiteFilePath);
  cr_assert_str_eq(numabind::config::SiteFilePath(empty.get()), numabind::config::kSiteFilePath);
  cr_assert_str_eq(numabind::config::SiteFilePath(other.get()), "/x/y.conf");
  cr_assert_null(numabind::config::SiteFilePath(off.get()));
  Config c;
  Error err;
  cr_assert_not(Parse(relative.get(), &c, &err));
  cr_assert_str_eq(err.text,
                   "NUMABIND_CONFIG_FILE=relative.conf: expected none or an absolute path such as "
                   "/etc/numabind.conf");
}

// The library's start-up tests entries with IsRankEntry (immediates, no table): the same names as kRankVars.
Test(site_file, rank_entry_names_are_the_rank_variables) {
  using numabind::config::IsRankEntry;
  for (const auto& v : numabind::config::kRankVars) {
    std::string e = std::string(v.rank) + "=3";
    cr_assert(IsRankEntry(e.c_str()), "%s", e.c_str());
    cr_assert(IsRankEntry((std::string(v.rank) + "=").c_str()));
    cr_assert_not(IsRankEntry(v.rank), "no '='");
    cr_assert_not(IsRankEntry((std::string(v.rank) + "X=1").c_str()));
    cr_assert(numabind::config::LetterIn(numabind::config::kRankVarLetters, v.rank[0]), "%s", v.rank);
    cr_assert(numabind::config::LetterIn(numabind::config::kRankVarSeconds, v.rank[1]), "%s", v.rank);
  }
  for (const char* e : {"PATH=/bin", "LOCAL_RANKS=1", "SLURM_LOCALIDX=0", "MPI_LOCALRANKI=1", "", "L"})
    cr_assert_not(IsRankEntry(e), "%s", e);
}

// A visibility list that may name one device makes the start-up read the site file (NUMABIND_BY_DEVICE=1
// there binds a daemon's worker): one entry, not empty, for each of config/env_vars.def's device variables.
Test(site_file, one_device_entries_are_the_visibility_lists_with_one_entry) {
  using numabind::config::IsOneDeviceEntry;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) {
    for (const char* v : {"1", "GPU-8a2b", "-1"}) {
      std::string e = std::string(name) + "=" + v;
      cr_assert(IsOneDeviceEntry(e.c_str()), "%s", e.c_str());
    }
    for (const char* v : {"=", "=0,1", "=1,-1", "X=1"}) {
      std::string e = std::string(name) + v;
      cr_assert_not(IsOneDeviceEntry(e.c_str()), "%s", e.c_str());
    }
    cr_assert(numabind::config::LetterIn(numabind::config::kDeviceVarLetters, name[0]), "%s", name);
    cr_assert(numabind::config::LetterIn(numabind::config::kDeviceVarSeconds, name[1]), "%s", name);
  }
  for (const char* e : {"PATH=/bin", "CUDA_HOME=/usr/local/cuda", "LOCAL_RANK=0", "", "C"})
    cr_assert_not(IsOneDeviceEntry(e), "%s", e);
}
