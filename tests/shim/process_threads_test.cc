// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The process's threads (shim/rank/process_threads.h): a rank that binds itself at start-up binds every
// thread it has then, not only the calling one: a library
// linked into the program (OpenBLAS's pthread build) starts its threads in its own constructor, which the
// dynamic linker runs before the preloaded library's. helpers/thread_report is linked with such a library
// (tests/shim/early/early_thread.c) and reports the CPUs of each of its threads.

#include <criterion/criterion.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

namespace numabind::shim::test {
namespace {

using Outcome = PreloadedRun;

/// helpers/thread_report under the shim, NUMABIND_LOG=info into a log file, and `env`.
Outcome ThreadReport(const std::vector<std::string>& env) {
  return RunPreloaded({BuildDir() + "/helpers/thread_report", "--out", "@OUT"}, env, "numabind-threads");
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

// Rank 0 of "cpus:SECOND|FIRST" belongs on the second CPU: every thread must be there, the library's too.
Test(process_threads, a_librarys_threads_end_on_the_ranks_cpus) {
  CpuPair c = TwoAllowedCpus();
  for (const char* memory : {"local", "bind"}) {
    Outcome o = ThreadReport({"NUMABIND_POLICY=" + c.policy, "LOCAL_RANK=0", "LOCAL_WORLD_SIZE=2",
                              std::string("NUMABIND_MEMORY=") + memory});
    cr_assert_eq(o.run.exit_code, 0, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
    cr_assert_eq(o.reports.size(), 1u, "%s", Tail(o.output).c_str());
    const Report& r = o.reports[0];
    cr_assert_eq(r.Get("early"), "1", "the library's thread did not start: %s", r.line.c_str());
    cr_assert_eq(r.Get("threads"), "2", "%s", r.line.c_str());
    cr_expect_eq(r.Get("cpus"), c.second, "main thread: %s\nlog:\n%s", r.line.c_str(), o.log.c_str());
    for (const std::string& cpus : Split(r.Get("thread_cpus"), ';')) {
      cr_expect_eq(cpus, c.second, "a thread on cpus %s, the rank's are %s: %s\nlog:\n%s", cpus.c_str(),
                   c.second.c_str(), r.line.c_str(), o.log.c_str());
    }
    std::vector<std::string> lines = LinesWith(o.log, "1 thread started before start-up");
    cr_expect_eq(lines.size(), 1u, "memory %s, log:\n%s", memory, o.log.c_str());
    // Its memory policy is its own: said when a policy was set and could be (containers may forbid it).
    bool set = std::string(memory) == "bind" && LinesWith(o.log, "memory unchanged").empty();
    bool said = !lines.empty() && lines[0].find("it keeps its memory policy, not bind") != std::string::npos;
    cr_expect_eq(said, set, "memory %s, log:\n%s", memory, o.log.c_str());
  }
}

// A forked worker that becomes a rank late (setenv of LOCAL_RANK, torch's Callable workers) binds every
// thread it has then, not only the one that set the variable; a thread it starts later inherits the binding.
Test(process_threads, a_forked_workers_threads_join_it_when_it_becomes_a_rank) {
  CpuPair c = TwoAllowedCpus();
  std::string script = RepoDir() + "/tests/shim/scripts/late_worker.py";
  Outcome o = RunPreloaded({"/usr/bin/python3", script, "@OUT", "2"},
                           {"NUMABIND_POLICY=" + c.policy, "NUMABIND_MEMORY=local"}, "numabind-late");
  cr_assert_eq(o.run.exit_code, 0, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
  cr_assert_eq(o.reports.size(), 2u, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
  for (const Report& r : o.reports) {
    const std::string& want = c.ForRank(std::stoi(r.Get("rank")));
    cr_expect_eq(r.Get("cpus"), want, "main thread: %s\nlog:\n%s", r.line.c_str(), o.log.c_str());
    cr_expect_eq(r.Get("before"), want, "a thread started before the rank variable: %s\nlog:\n%s",
                 r.line.c_str(), o.log.c_str());
    cr_expect_eq(r.Get("after"), want, "a thread started after: %s", r.line.c_str());
  }
  std::vector<std::string> lines = LinesWith(o.log, "1 thread started before it became a rank");
  cr_expect_eq(lines.size(), 2u, "one line per worker, log:\n%s", o.log.c_str());
}

// NUMABIND_BY_DEVICE=1 and a device given in the running process (Ray's prestarted workers: os.environ's
// CUDA_VISIBLE_DEVICES): the process becomes that device's rank then, every thread it has with it, and a
// second device rebinds it (the machine: 2 nodes of one CPU each, a GPU near each, onto this machine's
// CPUs 0 and 1). Without NUMABIND_BY_DEVICE nothing is bound. Before, it stayed on every CPU.
Test(process_threads, a_device_given_in_process_binds_every_thread) {
  std::vector<int> allowed = AllowedCpus();
  if (allowed.size() < 2 || allowed[0] != 0 || allowed[1] != 1)
    cr_skip_test("the topology file names CPUs 0, 1");
  std::string script = RepoDir() + "/tests/shim/scripts/device_worker.py";
  std::vector<std::string> env = {"NUMABIND_POLICY=node",
                                  "NUMABIND_TOPOLOGY=" + RepoDir() +
                                      "/tests/data/topologies/2synth-2n1c1t-2gpu.xml"};
  std::vector<std::string> by_device = env;
  by_device.emplace_back("NUMABIND_BY_DEVICE=1");
  Outcome o =
      RunPreloaded({"/usr/bin/python3", script, "@OUT", "1", "0", "0,1"}, by_device, "numabind-device");
  cr_assert_eq(o.run.exit_code, 0, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
  cr_assert_eq(o.reports.size(), 3u, "%s\nlog:\n%s", Tail(o.output).c_str(), o.log.c_str());
  // Two devices name no one device: the binding of the last one stays.
  const char* want[] = {"1", "0", "0"};
  for (size_t i = 0; i < 3; ++i) {
    const Report& r = o.reports[i];
    cr_expect_eq(r.Get("cpus"), want[i], "main thread: %s\nlog:\n%s", r.line.c_str(), o.log.c_str());
    cr_expect_eq(r.Get("thread"), want[i], "a thread started before: %s\nlog:\n%s", r.line.c_str(),
                 o.log.c_str());
  }
  cr_expect_eq(LinesWith(o.log, "bound rank 1 of 2 (CUDA_VISIBLE_DEVICES)").size(), 1u, "log:\n%s",
               o.log.c_str());
  cr_expect_eq(LinesWith(o.log, "bound rank 0 of 2 (CUDA_VISIBLE_DEVICES)").size(), 1u, "log:\n%s",
               o.log.c_str());
  std::string all = FormatCpuList(allowed);
  Outcome off = RunPreloaded({"/usr/bin/python3", script, "@OUT", "1"}, env, "numabind-device-off");
  cr_assert_eq(off.reports.size(), 1u, "%s", Tail(off.output).c_str());
  cr_expect_eq(off.reports[0].Get("cpus"), all, "without NUMABIND_BY_DEVICE: %s",
               off.reports[0].line.c_str());
}

}  // namespace
}  // namespace numabind::shim::test
