// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind bind --pid PID`: a live process rebound, as `taskset -a -p` and `migratepages` together: every
// thread to the rank's CPUs, then its private pages moved to the rank's nodes (base/page_move.h). Linux sets
// no memory policy on another process (set_mempolicy and mbind act on the caller's own): its new pages
// follow its CPUs' node under the default policy, the old ones are moved.

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/page_move.h"
#include "base/text.h"
#include "cli/bind.h"
#include "cli/cli.h"
#include "cli/proc_locality.h"
#include "cli/proc_text.h"

namespace numabind::cli {
namespace {

constexpr const char* kNeedsNice = " (another user's process needs CAP_SYS_NICE)";

/// The kernel's cpu_set_t of a plan's words.
cpu_set_t ToCpuSet(const planner::CpuSet& s) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t c : s.Members())
    if (c < CPU_SETSIZE) CPU_SET(c, &set);
  return set;
}

planner::CpuSet FromCpuSet(const cpu_set_t& set) {
  planner::CpuSet s;
  for (uint32_t c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) s.Set(c);
  return s;
}

/// The thread ids of `pid` not in `done`.
std::vector<long> NewThreads(long pid, const std::vector<long>& done) {
  std::vector<long> tids;
  for (const ThreadInfo& t : ReadThreads(pid, ""))
    if (std::find(done.begin(), done.end(), t.tid) == done.end()) tids.push_back(t.tid);
  return tids;
}

struct Saved {
  long tid;
  cpu_set_t cpus;
};

/// Binds every thread of `pid` to `want`, threads started meanwhile included; on a refusal puts back the
/// ones done and says why on `err`. Returns the threads bound, or -1.
long BindThreads(long pid, const BindTarget& t, const planner::CpuSet& want, FILE* err) {
  cpu_set_t set = ToCpuSet(want);
  std::vector<Saved> saved;
  std::vector<long> done;
  auto undo = [&saved] {
    for (const Saved& s : saved) sched_setaffinity(static_cast<pid_t>(s.tid), sizeof(cpu_set_t), &s.cpus);
  };
  std::string who = "process " + std::to_string(pid);
  for (int pass = 0; pass < 8; ++pass) {  // a process that keeps starting threads: 8 passes, then the rest
    std::vector<long> tids = NewThreads(pid, done);
    if (tids.empty()) break;
    for (long tid : tids) {
      done.push_back(tid);
      Saved s{tid, {}};
      if (sched_getaffinity(static_cast<pid_t>(tid), sizeof(cpu_set_t), &s.cpus) != 0) continue;  // it ended
      if (sched_setaffinity(static_cast<pid_t>(tid), sizeof(cpu_set_t), &set) != 0) {
        int e = errno;
        if (e == ESRCH) continue;
        undo();
        if (e == EPERM)
          fprintf(err, "numabind bind: %s: sched_setaffinity: not permitted%s\n", who.c_str(), kNeedsNice);
        else if (e == EINVAL)
          fprintf(err,
                  "numabind bind: %s needs CPUs %s (topology: %s); %s may use none of them; left as it was\n",
                  RankName(t).c_str(), want.ToList().c_str(), t.topology.c_str(), who.c_str());
        else
          fprintf(err, "numabind bind: %s: sched_setaffinity: %s\n", who.c_str(), strerror(e));
        return -1;
      }
      saved.push_back(s);
      cpu_set_t got;
      // The kernel gives a thread the plan's CPUs that its cgroup allows, silently: fewer is a refusal.
      if (sched_getaffinity(static_cast<pid_t>(tid), sizeof(cpu_set_t), &got) == 0 &&
          FromCpuSet(got) != want) {
        undo();
        fprintf(err, "numabind bind: %s; left as it was\n",
                NotAllowed(t, "CPU", want, FromCpuSet(got), who).c_str());
        return -1;
      }
    }
  }
  return static_cast<long>(saved.size());
}

}  // namespace

std::string RankName(const BindTarget& t) {
  return "rank " + std::to_string(t.rank) + " of " + std::to_string(t.nranks);
}

planner::CpuSet PlanCpus(const BindTarget& t) {
  return planner::CpuSet::FromWords(t.plan.cpus, t.basis->cpu_words);
}

planner::CpuSet PlanNodes(const BindTarget& t) {
  return planner::CpuSet::FromWords(t.plan.nodes, t.basis->node_words);
}

std::string NotAllowed(const BindTarget& t, const char* what, const planner::CpuSet& want,
                       const planner::CpuSet& allowed, const std::string& who) {
  auto noun = [what](const planner::CpuSet& s) { return std::string(what) + (s.Count() == 1 ? " " : "s "); };
  return RankName(t) + " needs " + noun(want) + want.ToList() + " (topology: " + t.topology + "), but " +
         who + " may use " + (allowed.Empty() ? std::string("none") : noun(allowed) + allowed.ToList()) +
         ": " + want.Minus(allowed).ToList() + " missing";
}

int RebindPid(const std::string& pid_text, const BindTarget& t, uint64_t budget, FILE* out, FILE* err) {
  char* end = nullptr;
  long pid = strtol(pid_text.c_str(), &end, 10);
  if (pid_text.empty() || *end != '\0' || pid <= 0 || pid_text[0] < '0' || pid_text[0] > '9') {
    fprintf(err, "numabind bind: --pid %s: not a process id\n", pid_text.c_str());
    return kExitUsage;
  }
  std::string who = "process " + std::to_string(pid);
  std::string status, list;
  if (ReadProcFile("/proc/" + std::to_string(pid) + "/status", 1 << 20, &status) != 0 || status.empty()) {
    fprintf(err, "numabind bind: no process %ld\n", pid);
    return kExitFailure;
  }
  planner::CpuSet cpus = PlanCpus(t), nodes = PlanNodes(t), mems;
  std::string ignored;
  if (StatusValue(status, "Mems_allowed_list", &list))
    planner::CpuSet::ParseList(list.c_str(), &mems, &ignored);
  if (!mems.Empty() && !nodes.Minus(mems).Empty()) {
    fprintf(err, "numabind bind: %s; left as it was\n", NotAllowed(t, "node", nodes, mems, who).c_str());
    return kExitFailure;
  }
  long threads = BindThreads(pid, t, cpus, err);
  if (threads < 0) return kExitFailure;
  if (threads == 0) {
    fprintf(err, "numabind bind: %s exited\n", who.c_str());
    return kExitFailure;
  }
  fprintf(out, "%s: %ld thread%s bound to CPUs %s (%s, topology: %s)\n", who.c_str(), threads,
          threads == 1 ? "" : "s", cpus.ToList().c_str(), RankName(t).c_str(), t.topology.c_str());
  if (budget == 0) return 0;
  bool spread =
      t.plan.memory == config::MemoryKind::kInterleave || t.plan.memory == config::MemoryKind::kWeighted;
  base::PagesMoved m =
      base::MovePrivatePages(static_cast<pid_t>(pid), t.plan.nodes, t.basis->node_words, spread, budget);
  uint64_t moved = m.before_kb > m.left_kb ? m.before_kb - m.left_kb : 0;
  if (m.before_kb == 0 && m.error == 0)
    fprintf(out, "%s: no private memory off node%s %s\n", who.c_str(), nodes.Count() == 1 ? "" : "s",
            nodes.ToList().c_str());
  else
    fprintf(out, "%s: moved %llu MiB of its memory to node%s %s in %ld ms, %llu MiB left%s\n", who.c_str(),
            static_cast<unsigned long long>((moved + 512) / 1024), nodes.Count() == 1 ? "" : "s",
            nodes.ToList().c_str(), m.ms, static_cast<unsigned long long>((m.left_kb + 512) / 1024),
            m.over_budget                   ? " (past the move budget: --move SIZE)"
            : m.left_kb > 0 && m.error == 0 ? " (shared with another process)"
                                            : "");
  if (m.error != 0 && m.error != -ESRCH) {
    fprintf(err, "numabind bind: %s: pages not moved: move_pages: %s%s\n", who.c_str(),
            base::ErrnoName(static_cast<int>(-m.error)), m.error == -EPERM ? kNeedsNice : "");
    return kExitFailure;
  }
  return 0;
}

}  // namespace numabind::cli
