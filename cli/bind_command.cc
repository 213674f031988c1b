// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind bind -- CMD`: binds this process as rank R of N (0 of 1 by default) to the plan `numabind plan`
// shows (planner::Prepare's basis, plan::ComputeRankPlan: the one grammar) with the memory policy a launched
// rank gets (plan::ApplyMemory), and execs CMD with the rank's NUMABIND_EXPORT variables, as numactl and
// hwloc-bind do. Bound before the exec rather than by the library at CMD's start-up: a static binary, or a
// program a wrapper starts without LD_PRELOAD, is bound all the same, and no numactl binary is needed.
// `--pid` rebinds a live process instead (cli/bind_pid.cc).

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/syscalls.h"
#include "cli/bind.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/plan_rows.h"
#include "cli/proc_text.h"
#include "config/bound_marker.h"
#include "config/config.h"
#include "plan/apply_memory.h"
#include "plan/rank_env.h"

namespace numabind::cli {
namespace {

const OptionSpec kBindOptions[] = {
    {"--policy", config::kVarPolicy, false, "P", "default node"},
    {"--memory", config::kVarMemory, false, "M", ""},
    {"--smt", config::kVarSmt, false, "N", "at most N hardware threads of each core"},
    {"--core-kinds", config::kVarCoreKinds, false, "K", ""},
    {"--devices", config::kVarDevices, false, "D", ""},
    {"--rank", kNoVar, false, "R", "bind as local rank R (default 0)"},
    {"--ranks", config::kVarNranks, false, "N", "of N local ranks (default 1)"},
    {"--topology", config::kVarTopology, false, "T",
     "an hwloc XML file or synthetic:DESC instead of this machine"},
    {"--export", config::kVarExport, false, "E",
     "none or a comma list of " NUMABIND_EXPORT_PROSE " (CMD's variables)"},
    {"--log", config::kVarLog, false, "L", "info: say where CMD or PID was bound, on standard error"},
    {"--pid", kNoVar, false, "PID", "rebind the live process PID (every thread) instead of running CMD"},
    {"--move", config::kVarMove, false, "SIZE", "with --pid: move at most SIZE of its pages"},
    {"--no-move", kNoVar, true, "", "with --pid: leave its pages where they are"},
};

const char* const kBindAbout[] = {
    "Runs CMD bound as local rank R of N (0 of 1 unless --rank and --ranks say) to the CPUs and memory\n"
    "policy numabind plan shows for that rank, with its NUMABIND_EXPORT variables, as numactl and\n"
    "hwloc-bind do. CMD needs no library (a static binary is bound too) and no numactl binary. A plan\n"
    "that needs CPUs or nodes this process may not use is refused with the numbers; CMD does not run.",
    "With --pid PID, rebinds that live process instead: every thread's CPUs, and its private pages\n"
    "off the rank's nodes moved to them (--no-move leaves them; --move SIZE or NUMABIND_MOVE bounds\n"
    "them, 4 GiB by default). Linux sets no memory policy for another process (set_mempolicy is a\n"
    "thread's own): moving the pages is what repairs its memory. Another user's process needs\n"
    "CAP_SYS_NICE. A plan it cannot take whole is refused, and the process is left as it was.",
    nullptr};

/// The CPUs this process may use: its cgroup's online CPUs, found by asking for every CPU (the kernel clips
/// the mask) and reading back; its own affinity is put back.
planner::CpuSet AllowedCpus() {
  uint64_t was[config::kMaxCpuWords] = {0}, all[config::kMaxCpuWords];
  long got = base::Sys6(SYS_sched_getaffinity, 0, sizeof(was), reinterpret_cast<long>(was));
  for (uint64_t& w : all) w = ~uint64_t{0};
  if (got <= 0 || base::Sys6(SYS_sched_setaffinity, 0, sizeof(all), reinterpret_cast<long>(all)) != 0)
    return planner::CpuSet::FromWords(was, config::kMaxCpuWords);
  for (uint64_t& w : all) w = 0;  // the kernel writes nr_cpu_ids bits' bytes only
  base::Sys6(SYS_sched_getaffinity, 0, sizeof(all), reinterpret_cast<long>(all));
  base::Sys6(SYS_sched_setaffinity, 0, got, reinterpret_cast<long>(was));
  return planner::CpuSet::FromWords(all, config::kMaxCpuWords);
}

/// This process's Mems_allowed_list (its cpuset's nodes).
planner::CpuSet AllowedNodes() {
  std::string status, list;
  planner::CpuSet nodes;
  std::string ignored;
  if (ReadProcFile("/proc/self/status", 1 << 20, &status) == 0 &&
      StatusValue(status, "Mems_allowed_list", &list))
    planner::CpuSet::ParseList(list.c_str(), &nodes, &ignored);
  return nodes;
}

/// CMD's environment: the caller's, with NUMABIND_BOUND (the rank and the proof a launcher inside CMD
/// plans within, shim/child/bound_marker.h) and the rank's exports; the options' variables stay out (a
/// preloaded library in CMD's tree reads the caller's configuration, not bind's).
std::vector<std::string> RankEnvironment(const BindTarget& t, const config::Config& cfg,
                                         const char* const* env, std::string* note) {
  plan::RankEnv built;
  size_t need = plan::BuildRankEnv(*t.basis, t.plan, cfg.exports, env, nullptr, 0, &built);
  std::vector<char> buf(std::min(need, plan::kRankEnvMax) + 1);
  plan::BuildRankEnv(*t.basis, t.plan, cfg.exports, env, buf.data(), std::min(need, plan::kRankEnvMax),
                     &built);
  *note = built.note;
  std::vector<std::string> out;
  out.push_back(std::string(config::kBoundEntry) + config::kBoundByBind + "=" + std::to_string(t.rank) +
                " cpus=" + PlanCpus(t).ToList() + " by=" + std::to_string(getpid()));
  for (int i = 0; i < built.count; ++i) out.emplace_back(built.entries[i]);
  for (const char* const* e = env; *e != nullptr; ++e) {
    if (strncmp(*e, config::kBoundEntry, strlen(config::kBoundEntry)) != 0 &&
        !plan::RankEnvReplaces(built, *e))
      out.emplace_back(*e);
  }
  return out;
}

/// Binds this process to t's plan and execs CMD; returns only on failure.
int BindAndExec(const BindTarget& t, const config::Config& cfg, const ParsedArgs& parsed,
                const char* const* env, FILE* err) {
  planner::CpuSet cpus = PlanCpus(t), allowed = AllowedCpus();
  if (!cpus.Minus(allowed).Empty()) {
    fprintf(err, "numabind bind: %s\n", NotAllowed(t, "CPU", cpus, allowed, "this process").c_str());
    return kExitFailure;
  }
  planner::CpuSet nodes = PlanNodes(t), mems = AllowedNodes();
  if (!mems.Empty() && !nodes.Minus(mems).Empty()) {
    fprintf(err, "numabind bind: %s\n", NotAllowed(t, "node", nodes, mems, "this process").c_str());
    return kExitFailure;
  }
  long r = base::Sys6(SYS_sched_setaffinity, 0, static_cast<long>(t.basis->cpu_words) * 8,
                      reinterpret_cast<long>(t.plan.cpus));
  if (r != 0) {
    fprintf(err, "numabind bind: %s: sched_setaffinity: %s\n", RankName(t).c_str(),
            strerror(static_cast<int>(-r)));
    return kExitFailure;
  }
  plan::MemoryOutcome memory;
  r = plan::ApplyMemory(t.plan, *t.basis, &memory);
  if (memory.why != nullptr)
    fprintf(err, "numabind bind: --memory %s: %s\n", config::MemoryName(t.plan.memory), memory.why);
  if (r != 0) {
    fprintf(err, "numabind bind: %s: memory %s refused (set_mempolicy: %s)%s\n", RankName(t).c_str(),
            config::MemoryName(t.plan.memory), base::ErrnoName(static_cast<int>(-r)),
            cfg.strict ? "; not run (NUMABIND_STRICT)" : "; CMD runs with the policy it had");
    if (cfg.strict) return kExitFailure;
  }
  std::string note;
  std::vector<std::string> strings = RankEnvironment(t, cfg, env, &note);
  if (!note.empty()) fprintf(err, "numabind bind: %s: not exported: %s\n", RankName(t).c_str(), note.c_str());
  if (cfg.log >= config::LogLevel::kInfo)
    fprintf(err, "numabind bind: %s: CPUs %s, nodes %s, memory %s\n", RankName(t).c_str(),
            cpus.ToList().c_str(), nodes.ToList().c_str(),
            config::MemoryName(r == 0 ? memory.applied : config::MemoryKind::kLocal));
  std::vector<char*> envp, argv;
  for (std::string& s : strings) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  for (const std::string& a : parsed.positionals) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  fflush(nullptr);
  execvpe(argv[0], argv.data(), envp.data());
  int e = errno;
  fprintf(err, "numabind bind: %s: %s\n", argv[0], strerror(e));
  return (e == ENOENT || e == ENOTDIR) ? 127 : 126;
}

}  // namespace

const HelpText kBindHelp = {
    kBindAbout,
    "CMD's; 1 when the rank cannot be placed or bound, or PID is gone or refuses; 2 for bad usage or\n"
    "configuration; 126 when CMD cannot be executed, 127 when it is not found. With --pid: 0 when bound."};

OptionList BindOptions() { return {kBindOptions, sizeof(kBindOptions) / sizeof(kBindOptions[0])}; }

int BindMain(const Invocation& call) {
  FILE* err = call.err;
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  bool by_pid = parsed.Has("--pid");
  if (by_pid == !parsed.positionals.empty()) {
    fprintf(err, "numabind bind: %s (numabind bind [OPTIONS] -- CMD [ARGS...], or --pid PID)\n",
            by_pid ? "--pid and a command: choose one" : "no command to run");
    return kExitUsage;
  }
  for (const char* o : {"--no-move", "--move"}) {
    if (!by_pid && parsed.Has(o)) {
      fprintf(err, "numabind bind: %s goes with --pid\n", o);
      return kExitUsage;
    }
  }
  Environment merged;
  config::Config cfg;
  if (int status = ConfigOfOptions("bind", call, parsed, &merged, &cfg); status >= 0) return status;
  BindTarget t;
  t.nranks = cfg.nranks != 0 ? cfg.nranks : 1;
  if (const std::string* r = parsed.Value("--rank")) {
    char* end = nullptr;
    unsigned long v = strtoul(r->c_str(), &end, 10);
    if (r->empty() || *end != '\0' || (*r)[0] == '-' || v >= t.nranks) {
      fprintf(err, "numabind bind: --rank %s: expected a rank from 0 to %u (of --ranks %u)\n", r->c_str(),
              t.nranks - 1, t.nranks);
      return kExitUsage;
    }
    t.rank = static_cast<uint32_t>(v);
  }
  planner::PrepareRequest request = RequestOf(&cfg, merged.get());
  t.topology = cfg.topology == nullptr || cfg.topology[0] == '\0' ? "this machine" : cfg.topology;
  std::string why;
  plan::PlanBasis* basis = planner::Prepare(request, &why);
  if (basis == nullptr) {
    fprintf(err, "numabind bind: %s\n", !why.empty() ? why.c_str() : "cannot prepare a plan");
    return kExitFailure;
  }
  t.basis = basis;
  std::vector<uint64_t> cpus(basis->cpu_words), nodes(basis->node_words);
  t.plan.cpus = cpus.data();
  t.plan.nodes = nodes.data();
  int status;
  if (!plan::ComputeRankPlan(*basis, t.rank, t.nranks, &t.plan)) {
    fprintf(err, "numabind bind: %s: %s\n", RankName(t).c_str(),
            t.plan.error[0] != '\0' ? t.plan.error : "cannot be placed");
    status = kExitFailure;
  } else if (by_pid) {
    uint64_t budget = parsed.Has("--no-move") ? 0 : cfg.move_bytes;
    status = RebindPid(*parsed.Value("--pid"), t, budget, call.out, err);
  } else {
    status = BindAndExec(t, cfg, parsed, call.env, err);
  }
  free(basis);
  return status;
}

}  // namespace numabind::cli
