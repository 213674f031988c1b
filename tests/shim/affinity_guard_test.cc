// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_GUARD (shim/rank/affinity_guard.cc): helpers/widen, a program that widens its own affinity to the
// whole machine (sched_setaffinity on itself, pthread_setaffinity_np on a second thread), run under the shim.
// A rank with the guard on stays inside its set and says so once, with the caller's stack; with the guard off
// it widens; a process that is not a rank, and a call for another process, are untouched. The map puts rank 0
// on the second allowed CPU, so an unbound or widened rank cannot pass.

#include <criterion/criterion.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

struct Outcome {
  RunResult run;
  std::string output;  // widen's lines, then the shim's (stderr) if any
  std::string log;     // NUMABIND_LOG_FILE
};

/// widen with `args` under the shim, with the policy map of `c`, NUMABIND_LOG=warn into a file, and `env`;
/// started by `prefix` (a command that execs it) when given.
Outcome Widen(const CpuPair& c, const std::vector<std::string>& env, const std::vector<std::string>& args,
              std::vector<std::string> prefix = {}) {
  std::string dir = MakeTempDir("numabind-guard");
  std::vector<std::string> argv = prefix;
  argv.push_back(BuildDir() + "/helpers/widen");
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> all = {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so",
                                  "NUMABIND_POLICY=" + c.policy, "NUMABIND_LOG=warn",
                                  "NUMABIND_LOG_FILE=" + dir + "/log"};
  all.insert(all.end(), env.begin(), env.end());
  Outcome o;
  o.run = Run(argv, all, dir + "/output", 60);
  o.output = ReadFile(dir + "/output");
  o.log = ReadFile(dir + "/log");
  RemoveTree(dir);
  cr_assert_eq(o.run.exit_code, 0, "widen exited %d\n%s\nlog:\n%s", o.run.exit_code, o.output.c_str(),
               o.log.c_str());
  return o;
}

/// The value of `key` on the line of widen's `output` that starts with `what` ("main", "thread", "other",
/// "start", "pid").
std::string FieldOf(const std::string& output, const std::string& what, const std::string& key) {
  for (const std::string& line : LinesWith(output, what + " ")) {
    if (line.rfind(what + " ", 0) != 0) continue;
    std::istringstream words(line.substr(what.size() + 1));
    std::string w;
    while (words >> w) {
      if (w.rfind(key + "=", 0) == 0) return w.substr(key.size() + 1);
    }
  }
  return "(no " + what + " " + key + ")";
}

std::string Field(const Outcome& o, const std::string& what, const std::string& key) {
  return FieldOf(o.output, what, key);
}

size_t GuardLines(const Outcome& o) { return LinesWith(o.log, "NUMABIND_GUARD=1: ").size(); }

}  // namespace
}  // namespace numabind::shim::test

using namespace numabind::shim::test;  // NOLINT: test file

Test(affinity_guard, a_rank_stays_inside_its_set_and_says_so_once) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"LOCAL_RANK=0", "NUMABIND_GUARD=1"}, {});
  cr_expect_eq(Field(o, "start", "cpus"), c.second, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "rc"), "0", "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.second, "%s\nlog:\n%s", o.output.c_str(), o.log.c_str());
  cr_expect_eq(Field(o, "thread", "rc"), "0", "%s", o.output.c_str());
  cr_expect_eq(Field(o, "thread", "cpus"), c.second, "%s\nlog:\n%s", o.output.c_str(), o.log.c_str());
  // Two narrowings, one line: the first, with what was asked, what was given and the caller's stack.
  cr_expect_eq(GuardLines(o), 1u, "log:\n%s", o.log.c_str());
  std::string asked = "sched_setaffinity(0) asked for cpus ";
  cr_expect_eq(LinesWith(o.log, asked).size(), 1u, "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "narrowed to cpus " + c.second + " (the rank's cpus " + c.second).size(), 1u,
               "log:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "  #0 ").size(), 1u, "no stack:\n%s", o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "helpers/widen+0x").size() >= 1, true, "the caller's frame:\n%s",
               o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "libnumabind").size(), 0u, "the shim's own frames:\n%s", o.log.c_str());
}

Test(affinity_guard, off_a_rank_widens) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"LOCAL_RANK=0"}, {});
  cr_expect_eq(Field(o, "start", "cpus"), c.second, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.all, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "thread", "cpus"), c.all, "%s", o.output.c_str());
  cr_expect_eq(GuardLines(o), 0u, "log:\n%s", o.log.c_str());
  o = Widen(c, {"LOCAL_RANK=0", "NUMABIND_GUARD=0"}, {});
  cr_expect_eq(Field(o, "main", "cpus"), c.all, "NUMABIND_GUARD=0: %s", o.output.c_str());
}

// NUMABIND_POLICY is set and the guard is on, but the process is not a rank: nothing to keep.
Test(affinity_guard, a_process_that_is_not_a_rank_is_untouched) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"NUMABIND_GUARD=1"}, {"--start", c.first});
  cr_expect_eq(Field(o, "start", "cpus"), c.first, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.all, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "thread", "cpus"), c.all, "%s", o.output.c_str());
  cr_expect_eq(GuardLines(o), 0u, "log:\n%s", o.log.c_str());
}

// Nothing in common with the rank's set: EINVAL, as the kernel answers a mask of no usable CPU.
Test(affinity_guard, no_cpu_in_common_is_einval_and_changes_nothing) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"LOCAL_RANK=0", "NUMABIND_GUARD=1"}, {"--cpus", c.first});
  cr_expect_eq(Field(o, "main", "rc"), "-1", "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "errno"), "22", "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.second, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "thread", "rc"), "22", "%s", o.output.c_str());
  cr_expect_eq(Field(o, "thread", "cpus"), c.second, "%s", o.output.c_str());
  cr_expect_eq(LinesWith(o.log, "refused (EINVAL)").size(), 1u, "log:\n%s", o.log.c_str());
}

// A rank that narrows itself further inside its set is doing nothing the guard has to change: no line.
Test(affinity_guard, a_call_inside_the_set_is_left_alone) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"LOCAL_RANK=0", "NUMABIND_GUARD=1"}, {"--cpus", c.second});
  cr_expect_eq(Field(o, "main", "rc"), "0", "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.second, "%s", o.output.c_str());
  cr_expect_eq(GuardLines(o), 0u, "log:\n%s", o.log.c_str());
}

// sched_setaffinity(PID) of another process (here the rank's own child) passes through untouched.
Test(affinity_guard, another_process_is_passed_through) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"LOCAL_RANK=0", "NUMABIND_GUARD=1"}, {"--other"});
  cr_expect_eq(Field(o, "main", "cpus"), c.second, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "other", "rc"), "0", "%s", o.output.c_str());
  cr_expect_eq(Field(o, "other", "cpus"), c.all, "%s", o.output.c_str());
}

// A rank started bound (NUMABIND_BOUND: a launcher or a rank's parent bound it; here a taskset inside the
// rank, itself guarded, narrows it first) is guarded with the set it started with.
Test(affinity_guard, a_rank_started_bound_keeps_what_it_was_given) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"LOCAL_RANK=0", "NUMABIND_BOUND=LOCAL_RANK=0", "NUMABIND_GUARD=1"}, {},
                    {"taskset", "-c", c.first});
  cr_expect_eq(Field(o, "start", "cpus"), c.first, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.first, "%s", o.output.c_str());
  cr_expect_eq(Field(o, "thread", "cpus"), c.first, "%s", o.output.c_str());
}

// A forked worker that becomes a rank through setenv (torchrun's fork start method) is guarded from then on.
Test(affinity_guard, a_forked_worker_is_guarded_once_bound) {
  CpuPair c = TwoAllowedCpus();
  Outcome o = Widen(c, {"NUMABIND_GUARD=1"}, {"--worker", "LOCAL_RANK=0"});
  cr_expect_eq(Field(o, "start", "cpus"), c.second, "%s\nlog:\n%s", o.output.c_str(), o.log.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.second, "%s\nlog:\n%s", o.output.c_str(), o.log.c_str());
  cr_expect_eq(Field(o, "thread", "cpus"), c.second, "%s", o.output.c_str());
  cr_expect_eq(GuardLines(o), 1u, "log:\n%s", o.log.c_str());
  o = Widen(c, {}, {"--worker", "LOCAL_RANK=0"});
  cr_expect_eq(Field(o, "start", "cpus"), c.second, "guard off: %s", o.output.c_str());
  cr_expect_eq(Field(o, "main", "cpus"), c.all, "guard off: %s", o.output.c_str());
}

// Calls the guard passes through answer as the C library does: a pid that does not exist, a negative one.
Test(affinity_guard, passed_through_calls_fail_as_without_the_shim) {
  CpuPair c = TwoAllowedCpus();
  for (const char* pid : {"2147483000", "-5"}) {
    std::string dir = MakeTempDir("numabind-guard-plain");
    RunResult plain = Run({BuildDir() + "/helpers/widen", "--pid", pid}, {}, dir + "/output", 60);
    std::string want = ReadFile(dir + "/output");
    RemoveTree(dir);
    cr_assert_eq(plain.exit_code, 0, "%s", want.c_str());
    cr_assert_eq(FieldOf(want, "pid", "rc"), "-1", "without the shim: %s", want.c_str());
    Outcome o = Widen(c, {"LOCAL_RANK=0", "NUMABIND_GUARD=1"}, {"--pid", pid});
    cr_expect_eq(LinesWith(o.output, "pid rc=").size(), 1u, "%s", o.output.c_str());
    cr_expect_eq(Field(o, "pid", "rc"), "-1", "pid %s: %s", pid, o.output.c_str());
    cr_expect_eq(Field(o, "pid", "errno"), FieldOf(want, "pid", "errno"), "pid %s: guarded %s, plain %s", pid,
                 o.output.c_str(), want.c_str());
  }
}
