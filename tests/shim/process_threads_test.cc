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

}  // namespace
}  // namespace numabind::shim::test
