// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shared plan basis: the first process prepares and shares, the next ones read it; a file that is not
// the user's own and private, is malformed or describes another machine state is not trusted; another
// allowed CPU set is another file; NUMABIND_SHARED=off shares nothing. Each test has a directory of its own.

#include <criterion/criterion.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

using namespace numabind::shim::test;  // NOLINT: test file

namespace {

struct Shared {
  std::string base = MakeTempDir("numabind-shared");
  std::string dir = base + "/numabind-" + std::to_string(geteuid());
  ~Shared() { RemoveTree(base); }
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    std::string list = base + "/list";
    Run({"sh", "-c", "ls -A \"$0\" 2>/dev/null", dir}, {}, list, 10);
    for (const std::string& l : LinesWith(ReadFile(list), "basis-")) out.push_back(dir + "/" + l);
    return out;
  }
};

struct Outcome {
  RunResult run;
  std::string log, cpus;
};

/// One self-binding rank (report) with the debug log; `prefix` runs before it (taskset...).
Outcome Rank(const Shared& s, int rank, std::vector<std::string> extra = {},
             std::vector<std::string> prefix = {}) {
  std::vector<int> allowed = AllowedCpus();
  if (allowed.size() < 2) cr_assert_fail("these tests need 2 CPUs");
  std::string policy =
      "NUMABIND_POLICY=cpus:" + std::to_string(allowed[1]) + "|" + std::to_string(allowed[0]);
  std::string tmp = MakeTempDir("numabind-shared-run");
  std::vector<std::string> env = {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                                  policy,
                                  "NUMABIND_LOG=debug",
                                  "NUMABIND_LOG_FILE=" + tmp + "/log",
                                  "NUMABIND_SHARED=" + s.base,
                                  "LOCAL_RANK=" + std::to_string(rank)};
  env.insert(env.end(), extra.begin(), extra.end());
  prefix.insert(prefix.end(), {BuildDir() + "/helpers/report", "--out", tmp + "/reports"});
  Outcome o;
  o.run = Run(prefix, env, tmp + "/output", 60);
  o.log = ReadFile(tmp + "/log");
  std::vector<Report> reports = ReadReports(tmp + "/reports");
  o.cpus = reports.size() == 1 ? reports[0].Get("cpus") : "(no report)";
  cr_assert_eq(o.run.exit_code, 0, "%s", ReadFile(tmp + "/output").c_str());
  cr_expect_eq(o.cpus, std::to_string(allowed[rank == 0 ? 1 : 0]), "log:\n%s", o.log.c_str());
  RemoveTree(tmp);
  return o;
}

bool FromHelper(const Outcome& o) { return LinesWith(o.log, "ms by ").size() == 1; }
bool FromShared(const Outcome& o) { return LinesWith(o.log, "ms from the shared basis").size() == 1; }

}  // namespace

Test(basis_cache, prepared_once_then_shared) {
  Shared s;
  Outcome first = Rank(s, 0);
  cr_expect(FromHelper(first), "log:\n%s", first.log.c_str());
  std::vector<std::string> files = s.Files();
  cr_assert_eq(files.size(), 1u);
  struct stat st;
  cr_assert_eq(stat(files[0].c_str(), &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0600u);
  cr_assert_eq(stat(s.dir.c_str(), &st), 0);
  cr_expect_eq(st.st_mode & 0777, 0700u);
  for (int rank : {1, 0}) {
    Outcome next = Rank(s, rank);
    cr_expect(FromShared(next), "rank %d, log:\n%s", rank, next.log.c_str());
  }
  cr_expect_eq(s.Files().size(), 1u);
}

Test(basis_cache, another_configuration_or_cpu_set_is_another_file) {
  Shared s;
  Rank(s, 0);
  Outcome o = Rank(s, 0, {"NUMABIND_MEMORY=bind"});
  cr_expect(FromHelper(o), "log:\n%s", o.log.c_str());
  o = Rank(s, 0, {"CUDA_VISIBLE_DEVICES=1"});
  cr_expect(FromHelper(o), "log:\n%s", o.log.c_str());
  cr_expect_eq(s.Files().size(), 3u);
  o = Rank(s, 0, {"NUMABIND_MEMORY=bind"});
  cr_expect(FromShared(o), "log:\n%s", o.log.c_str());
}

// A launcher prepares with its own CPUs (a taskset around mpirun plans inside them): another file.
Test(basis_cache, launcher_cpus_are_part_of_the_key) {
  Shared s;
  std::vector<int> allowed = AllowedCpus();
  std::string tmp = MakeTempDir("numabind-shared-launch");
  auto launch = [&](std::vector<std::string> prefix) {
    prefix.insert(prefix.end(), {BuildDir() + "/helpers/entry_launcher", "execve", "1",
                                 BuildDir() + "/helpers/report", "--out", tmp + "/reports"});
    Run(prefix,
        {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so", "NUMABIND_POLICY=node", "NUMABIND_LOG=debug",
         "NUMABIND_LOG_FILE=" + tmp + "/log", "NUMABIND_SHARED=" + s.base},
        tmp + "/output", 60);
  };
  launch({});
  launch({"taskset", "-c", std::to_string(allowed[0])});
  launch({"taskset", "-c", std::to_string(allowed[0])});
  std::string log = ReadFile(tmp + "/log");
  RemoveTree(tmp);
  cr_expect_eq(LinesWith(log, "ms by ").size(), 2u, "log:\n%s", log.c_str());
  cr_expect_eq(LinesWith(log, "ms from the shared basis").size(), 1u, "log:\n%s", log.c_str());
  cr_expect_eq(s.Files().size(), 2u);
}

Test(basis_cache, stale_or_damaged_files_are_prepared_again) {
  Shared s;
  Rank(s, 0);
  std::string file = s.Files().at(0);
  std::string good = ReadFile(file);
  // Another machine state (as after CPU hotplug or a reboot): the identity field differs.
  std::string stale = good;
  stale[16] ^= 1;
  for (const std::string& bad :
       {stale, good.substr(0, good.size() - 1), good + "x", std::string("garbage")}) {
    { std::ofstream(file, std::ios::binary | std::ios::trunc) << bad; }
    chmod(file.c_str(), 0600);
    Outcome o = Rank(s, 0);
    cr_expect(FromHelper(o), "log:\n%s", o.log.c_str());
    cr_expect_eq(ReadFile(file), good, "the file was not replaced");
  }
  // A flipped byte of the plan itself: the checksum.
  std::string flipped = good;
  flipped[good.size() - 3] ^= 0x40;
  { std::ofstream(file, std::ios::binary | std::ios::trunc) << flipped; }
  Outcome o = Rank(s, 0);
  cr_expect(FromHelper(o), "log:\n%s", o.log.c_str());
}

Test(basis_cache, files_others_could_write_are_not_trusted) {
  Shared s;
  Rank(s, 0);
  std::string file = s.Files().at(0);
  chmod(file.c_str(), 0622);
  Outcome o = Rank(s, 0);
  cr_expect(FromHelper(o), "group-writable file used; log:\n%s", o.log.c_str());
  // A symbolic link in the user's directory is not followed.
  std::string target = s.base + "/elsewhere";
  rename(file.c_str(), target.c_str());
  chmod(target.c_str(), 0600);
  cr_assert_eq(symlink(target.c_str(), file.c_str()), 0);
  o = Rank(s, 0);
  cr_expect(FromHelper(o), "symbolic link followed; log:\n%s", o.log.c_str());
  // A directory others may write to is not used at all.
  chmod(s.dir.c_str(), 0777);
  o = Rank(s, 0);
  cr_expect(FromHelper(o), "log:\n%s", o.log.c_str());
  o = Rank(s, 0);
  cr_expect(FromHelper(o), "a shared directory open to others was used; log:\n%s", o.log.c_str());
}

Test(basis_cache, another_users_files_are_not_trusted) {
  if (geteuid() != 0) cr_skip_test("needs root to give a file to another user");
  Shared s;
  Rank(s, 0);
  std::string file = s.Files().at(0);
  cr_assert_eq(chown(file.c_str(), 65534, 65534), 0);
  Outcome o = Rank(s, 0);
  cr_expect(FromHelper(o), "another user's file used; log:\n%s", o.log.c_str());
  // The directory itself belongs to someone else.
  cr_assert_eq(chown(s.dir.c_str(), 65534, 65534), 0);
  o = Rank(s, 0);
  o = Rank(s, 0);
  cr_expect(FromHelper(o), "another user's directory used; log:\n%s", o.log.c_str());
}

Test(basis_cache, off_shares_nothing) {
  Shared s;
  Outcome o = Rank(s, 0, {"NUMABIND_SHARED=off"});
  o = Rank(s, 0, {"NUMABIND_SHARED=off"});
  cr_expect(FromHelper(o), "log:\n%s", o.log.c_str());
  cr_expect_eq(s.Files().size(), 0u);
}

Test(basis_cache, asking_for_nics_is_another_file) {
  Shared s;
  Outcome plain = Rank(s, 0);
  cr_expect(FromHelper(plain), "log:\n%s", plain.log.c_str());
  // The helper discovers NICs (prepare-basis --nics 1) and the rank is bound as before; its basis is shared
  // apart from the one without NIC tables.
  Outcome nics = Rank(s, 0, {"NUMABIND_EXPORT=omp,nic"});
  cr_expect(FromHelper(nics), "log:\n%s", nics.log.c_str());
  cr_expect_eq(s.Files().size(), 2u);
  Outcome again = Rank(s, 1, {"NUMABIND_EXPORT=nic"});
  cr_expect(FromShared(again), "log:\n%s", again.log.c_str());
  cr_expect_eq(s.Files().size(), 2u);
}
