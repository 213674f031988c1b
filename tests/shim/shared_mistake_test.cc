// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A mistake every rank shares is said once (shim/log/shared_mistake.h, shim/rank/mistake_note.h): by one
// rank of a launcher (bash, Python's subprocess), by one of the self-binding ranks of a node and job (a note
// in the shared directory), by each rank when NUMABIND_SHARED=off or at NUMABIND_LOG=debug.

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

constexpr char kBadPolicy[] = "NUMABIND_POLICY=sockte: expected node, socket";

std::string Shim() { return "LD_PRELOAD=" + BuildDir() + "/libnumabind.so"; }

/// Runs argv under the shim with `env` in a fresh directory, whose numabind-shared/ is the shared directory
/// (NUMABIND_SHARED, unless env sets it), and returns its output; *notes (when given) counts the note files.
std::string RunShared(const std::vector<std::string>& argv, std::vector<std::string> env,
                      size_t* notes = nullptr) {
  std::string dir = MakeTempDir("numabind-mistake");
  env.insert(env.begin(), {Shim(), "NUMABIND_SHARED=" + dir + "/shared"});
  mkdir((dir + "/shared").c_str(), 0700);
  RunResult r = Run(argv, env, dir + "/output", 60);
  std::string output = ReadFile(dir + "/output");
  cr_expect_eq(r.exit_code, 0, "%s exited %d: %s\n%s", argv[0].c_str(), r.exit_code, r.error.c_str(),
               output.c_str());
  if (notes != nullptr) {
    *notes = 0;
    std::string own = dir + "/shared/numabind-" + std::to_string(geteuid());
    if (DIR* d = opendir(own.c_str())) {
      while (dirent* e = readdir(d)) *notes += std::string(e->d_name).rfind("note-", 0) == 0 ? 1 : 0;
      closedir(d);
    }
  }
  RemoveTree(dir);
  return output;
}

/// A bash loop of n ranks (tests/shim/scripts/bash_loop.sh) that each run /bin/true.
std::vector<std::string> BashLoop(int n) {
  return {"bash", RepoDir() + "/tests/shim/scripts/bash_loop.sh", std::to_string(n), "/bin/true"};
}

/// n self-binding ranks, LOCAL_RANK=0..n-1, started one after the other by a shell numabind is not preloaded
/// into (`env -u LD_PRELOAD` in it: the ranks get it back), as srun's tasks are.
std::vector<std::string> SelfBinding(int n) {
  std::string script = "for r in $(seq 0 " + std::to_string(n - 1) +
                       "); do LOCAL_RANK=$r LOCAL_WORLD_SIZE=" + std::to_string(n) +
                       " LD_PRELOAD=\"$SHIM\" /bin/true & done; wait";
  return {"env", "-u", "LD_PRELOAD", "SHIM=" + BuildDir() + "/libnumabind.so", "bash", "-c", script};
}

}  // namespace
}  // namespace numabind::shim::test

using namespace numabind::shim::test;  // NOLINT: test file

Test(shared_mistake, one_line_per_launcher) {
  std::string out = RunShared(BashLoop(4), {"NUMABIND_POLICY=sockte"});
  std::vector<std::string> lines = LinesWith(out, kBadPolicy);
  cr_expect_eq(lines.size(), 1u, "4 ranks of a bash loop:\n%s", out.c_str());
  cr_expect_eq(LinesWith(out, "said once for all ranks").size(), 1u, "%s", out.c_str());
  out = RunShared(BashLoop(16), {"NUMABIND_POLICY=socket", "NUMABIND_MEMORY=fast"});
  cr_expect_eq(LinesWith(out, "NUMABIND_MEMORY=fast: expected").size(), 1u, "16 ranks:\n%s", out.c_str());
}

Test(shared_mistake, one_line_per_python_launcher) {
  std::string script =
      "import os, subprocess\n"
      "ps = [subprocess.Popen(['/bin/true'], env=dict(os.environ, LOCAL_RANK=str(r))) for r in range(4)]\n"
      "raise SystemExit(max(p.wait() for p in ps))\n";
  std::string out = RunShared({"/usr/bin/python3", "-c", script}, {"NUMABIND_POLICY=sockte"});
  cr_expect_eq(LinesWith(out, kBadPolicy).size(), 1u, "4 ranks of Python's subprocess:\n%s", out.c_str());
}

Test(shared_mistake, each_rank_at_debug) {
  std::string out = RunShared(BashLoop(4), {"NUMABIND_POLICY=sockte", "NUMABIND_LOG=debug"});
  cr_expect_eq(LinesWith(out, kBadPolicy).size(), 4u, "%s", out.c_str());
}

Test(shared_mistake, self_binding_ranks_say_it_once) {
  size_t notes = 0;
  std::string out = RunShared(SelfBinding(4), {"NUMABIND_POLICY=sockte"}, &notes);
  cr_expect_eq(LinesWith(out, kBadPolicy).size(), 1u, "4 self-binding ranks:\n%s", out.c_str());
  cr_expect_eq(notes, 1u, "the note in the shared directory");
}

// The note is the job's: in one shared directory, another job on the node says the mistake again and the
// same job does not; a launch with no job id is one of its own (its launcher's pid and start time). Issue
// 38: a note that ignored the job id passed every test (each job had a directory of its own).
Test(shared_mistake, another_job_says_it_again) {
  std::string dir = MakeTempDir("numabind-mistake-jobs");
  std::string own = dir + "/numabind-" + std::to_string(geteuid());
  auto said = [&](const char* job) {
    std::vector<std::string> env = {Shim(), "NUMABIND_SHARED=" + dir, "NUMABIND_POLICY=sockte"};
    if (job != nullptr) env.push_back(job);
    RunResult r = Run(SelfBinding(2), env, dir + "/output", 60);
    cr_expect_eq(r.exit_code, 0, "%s: exit %d", job, r.exit_code);  // unbound, running
    return LinesWith(ReadFile(dir + "/output"), kBadPolicy).size();
  };
  cr_expect_eq(said("SLURM_JOB_ID=41"), 1u, "job 41");
  cr_expect_eq(said("SLURM_JOB_ID=43"), 1u, "job 43, after job 41 said it");
  cr_expect_eq(said("SLURM_JOB_ID=41"), 0u, "job 41 again");
  cr_expect_eq(said(nullptr), 1u, "a launch with no job");
  cr_expect_eq(said(nullptr), 1u, "another launch with no job");
  size_t notes = 0;
  if (DIR* d = opendir(own.c_str())) {
    while (dirent* e = readdir(d)) notes += std::string(e->d_name).rfind("note-", 0) == 0 ? 1 : 0;
    closedir(d);
  }
  cr_expect_eq(notes, 4u, "one note per job and per launch with no job");
  RemoveTree(dir);
}

Test(shared_mistake, self_binding_ranks_of_one_job) {
  std::string dir = MakeTempDir("numabind-mistake-job");
  std::vector<std::string> env = {Shim(), "NUMABIND_SHARED=" + dir, "NUMABIND_POLICY=sockte",
                                  "SLURM_JOB_ID=42"};
  size_t said = 0;
  for (int step = 0; step < 2; ++step) {  // two launches in job 42: said in the first only
    RunResult r = Run(SelfBinding(4), env, dir + "/output", 60);
    cr_expect_eq(r.exit_code, 0);
    said += LinesWith(ReadFile(dir + "/output"), kBadPolicy).size();
  }
  RemoveTree(dir);
  cr_expect_eq(said, 1u, "job 42's ranks said it %zu times", said);
}

Test(shared_mistake, shared_off_says_it_at_each_rank) {
  size_t notes = 0;
  std::string out = RunShared(SelfBinding(4), {"NUMABIND_POLICY=sockte", "NUMABIND_SHARED=off"}, &notes);
  cr_expect_eq(LinesWith(out, kBadPolicy).size(), 4u, "%s", out.c_str());
  cr_expect_eq(notes, 0u);
}

Test(shared_mistake, a_good_rank_opens_no_note) {
  size_t notes = 0;
  std::string out = RunShared(SelfBinding(2), {"NUMABIND_POLICY=node"}, &notes);
  cr_expect_eq(LinesWith(out, "numabind:").size(), 0u, "%s", out.c_str());
  cr_expect_eq(notes, 0u);
}

Test(shared_mistake, a_new_note_removes_notes_a_day_old) {
  std::string dir = MakeTempDir("numabind-mistake-old");
  std::string own = dir + "/numabind-" + std::to_string(geteuid());
  mkdir(own.c_str(), 0700);
  std::string old_note = own + "/note-00000000000000aa", young_note = own + "/note-00000000000000bb";
  for (const std::string& p : {old_note, young_note}) fclose(fopen(p.c_str(), "w"));
  timespec two_days_ago[2] = {{time(nullptr) - 2 * 86400, 0}, {time(nullptr) - 2 * 86400, 0}};
  cr_assert_eq(utimensat(AT_FDCWD, old_note.c_str(), two_days_ago, 0), 0);
  RunResult r =
      Run(SelfBinding(2), {Shim(), "NUMABIND_SHARED=" + dir, "NUMABIND_POLICY=sockte"}, dir + "/output", 60);
  cr_expect_eq(r.exit_code, 0);
  cr_expect_neq(access(old_note.c_str(), F_OK), 0, "a note two days old was kept");
  cr_expect_eq(access(young_note.c_str(), F_OK), 0, "a young note was removed");
  RemoveTree(dir);
}
