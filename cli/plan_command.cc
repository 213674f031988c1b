// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan`: where each local rank goes, computed by the same two functions as the shim uses
// (planner::Prepare once, then ComputeRankPlan per rank).

#include <stdlib.h>

#include <algorithm>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/plan_rows.h"
#include "config/config.h"
#include "config/grammar.h"
#include "config/rank_count.h"
#include "config/site_file.h"
#include "config/vars.h"
#include "plan/plan_auto.h"
#include "plan/plan_basis.h"
#include "plan/rank_env.h"
#include "planner/plan_auto_describe.h"
#include "planner/planner.h"

namespace numabind::cli {
namespace {

const OptionSpec kPlanOptions[] = {
    {"--topology", config::kVarTopology, false, "FILE|synthetic:DESC",
     "plan on an hwloc XML file or synthetic topology instead of this machine"},
    {"--policy", config::kVarPolicy, false, "P", "default node"},
    {"--ranks", config::kVarNranks, false, "N",
     "number of local ranks (default: the launcher's local size, else one per device or NUMA node)"},
    {"--devices", config::kVarDevices, false, "D", ""},
    {"--memory", config::kVarMemory, false, "M", ""},
    {"--smt", config::kVarSmt, false, "N", "at most N hardware threads of each core"},
    {"--core-kinds", config::kVarCoreKinds, false, "K", ""},
    {"--export", config::kVarExport, false, "E",
     "none or a comma list of " NUMABIND_EXPORT_PROSE ": show the variables each rank would get"},
    {"--json", kNoVar, true, "", "print a JSON array, one object per rank"},
    {"--draw", kNoVar, true, "",
     "draw the machine (packages, NUMA nodes with their CPUs, memory and devices) with a mark per rank "
     "on its CPUs, and a legend",
     true},
};

const char* const kPlanAbout[] = {
    "Prints where each local rank goes: its device, NUMA nodes, CPUs and memory policy, as the preloaded\n"
    "library would bind it. Options default to the NUMABIND_* variables. A heading names the number of\n"
    "ranks, the policy (and where it came from when --policy did not give it) and the memory policy.\n"
    "With --policy auto, a line says what auto decided and why, and a column each rank's share. With\n"
    "--export, each rank's variables follow the table, one per line.",
    nullptr};

/// The rank's NUMABIND_EXPORT entries, from the builder the library runs in the rank's exec.
void AddExports(const plan::PlanBasis& basis, const plan::RankPlan& plan, uint8_t exports,
                const char* const* env, RankRow* row) {
  plan::RankEnv built;
  size_t need = plan::BuildRankEnv(basis, plan, exports, env, nullptr, 0, &built);
  std::vector<char> buf(std::min(need, plan::kRankEnvMax) + 1);
  plan::BuildRankEnv(basis, plan, exports, env, buf.data(), std::min(need, plan::kRankEnvMax), &built);
  for (int i = 0; i < built.count; ++i) row->exports.emplace_back(built.entries[i]);
  row->note = built.note;
}

}  // namespace

const HelpText kPlanHelp = {
    kPlanAbout, "0, 1 when a rank cannot be placed or the topology cannot be read, 2 for bad usage."};

OptionList PlanOptions() { return {kPlanOptions, sizeof(kPlanOptions) / sizeof(kPlanOptions[0])}; }

namespace {

/// How many ranks: the option or NUMABIND_NRANKS, the launcher's local size (config::LocalRankCount, as
/// the library reads it), else one per slot.
uint32_t RankCount(const config::Config& cfg, const char* const* env, const plan::PlanBasis& basis) {
  uint32_t nranks = cfg.nranks;
  for (int i = 0; nranks == 0 && i < config::kRankVarCount; ++i) nranks = config::LocalRankCount(env, i);
  if (nranks == 0) nranks = basis.slot_count > 0 ? basis.slot_count : 1;
  return nranks;
}

/// Core kinds: the CPUs of the slots' fastest-kind units (PlanSlot::fast_units) and of the others; both empty
/// when the basis has one kind.
void CoreKinds(const plan::PlanBasis& basis, planner::CpuSet* fast, planner::CpuSet* other) {
  for (uint32_t s = 0; s < basis.slot_count; ++s) {
    const plan::PlanSlot& slot = basis.slots[s];
    for (uint32_t u = 0; u < slot.unit_count; ++u) {
      const uint64_t* words = basis.unit_cpus + (uint64_t{slot.first_unit} + u) * basis.cpu_words;
      planner::CpuSet cpus = planner::CpuSet::FromWords(words, basis.cpu_words);
      (u < slot.fast_units ? fast : other)->UnionWith(cpus);
    }
  }
  if (fast->Empty()) *other = planner::CpuSet();
  other->Subtract(*fast);
}

/// Places every rank with ComputeRankPlan, as the library does in each rank's exec.
PlanRows PlaceRanks(const plan::PlanBasis& basis, uint32_t nranks, const config::Config& cfg,
                    const char* const* env) {
  PlanRows out;
  std::vector<uint64_t> cpus(basis.cpu_words), nodes(basis.node_words);
  out.is_auto = basis.policy == config::PolicyKind::kAuto;
  std::vector<plan::AutoShare> shares;
  for (uint32_t r = 0; r < nranks; ++r) {
    plan::RankPlan plan{};
    std::fill(cpus.begin(), cpus.end(), 0);
    std::fill(nodes.begin(), nodes.end(), 0);
    plan.cpus = cpus.data();
    plan.nodes = nodes.data();
    RankRow row;
    row.rank = r;
    row.ok = plan::ComputeRankPlan(basis, r, nranks, &plan);
    if (row.ok) {
      row.device = plan.device != nullptr ? plan.device : "";
      row.more_devices = plan.device_count > 1 ? plan.device_count - 1 : 0;
      for (uint32_t d = 0; d < plan.device_count && plan.device_slot + d < basis.slot_count; ++d) {
        const char* id = basis.slots[plan.device_slot + d].device;
        if (id[0] != '\0') row.devices.emplace_back(id);
      }
      row.nodes = FormatBits(nodes.data(), static_cast<uint32_t>(nodes.size()));
      row.cpus = FormatBits(cpus.data(), static_cast<uint32_t>(cpus.size()));
      row.memory = config::MemoryName(plan.memory);
      row.nics = plan.nics != nullptr ? plan.nics : "";
      out.any_nics = out.any_nics || !row.nics.empty();
      if (out.is_auto) {
        char share[96];
        plan::FormatAutoShare(basis, plan.share, share, sizeof(share));
        row.share = share;
        shares.push_back(plan.share);
      }
      if (cfg.exports != 0) AddExports(basis, plan, cfg.exports, env, &row);
    } else {
      row.error = plan.error;
      if (row.error.empty()) row.error = "rank " + std::to_string(r) + ": cannot be placed";
      out.all_ok = false;
    }
    out.rows.push_back(std::move(row));
  }
  if (out.is_auto) out.decision = planner::DescribeAuto(basis, nranks, shares);
  planner::CpuSet fast, other;
  CoreKinds(basis, &fast, &other);
  if (!fast.Empty()) {
    out.kinds = "core kinds: CPUs " + fast.ToList() + " the fastest, " + other.ToList() +
                " the others; ranks take the fastest first (NUMABIND_CORE_KINDS=all: every core alike)";
    std::string ignored;
    for (RankRow& row : out.rows) {
      planner::CpuSet set;
      if (!row.ok || !planner::CpuSet::ParseList(row.cpus.c_str(), &set, &ignored)) continue;
      row.kind = set.Minus(fast).Empty() ? "fastest" : !set.Intersects(fast) ? "other" : "both";
    }
  }
  return out;
}

/// Where the policy came from, for the heading: nothing when the command line gave it, else the variable,
/// the site file's line or the default. Before RequestOf, which fills in the default.
std::string PolicySource(const config::Config& cfg, const ParsedArgs& parsed, const Environment& merged) {
  if (parsed.Has("--policy")) return "";
  if (cfg.policy.text == nullptr) return " (the default; --policy to choose)";
  if (config::EnvSets(merged.get(), config::kVarPolicy)) return " (from NUMABIND_POLICY)";
  uint32_t line = 0;
  const config::SiteFile& site = SiteDefaults(merged.get(), nullptr);
  if (config::SiteValue(site, config::kVarPolicy, &line) != nullptr)
    return " (from " + std::string(site.path) + ":" + std::to_string(line) + ")";
  return "";
}

}  // namespace

int PlanMain(const Invocation& call) {
  FILE* out = call.out;
  FILE* err = call.err;
  ParsedArgs parsed;
  int status = StartCommand(call, &parsed);
  if (status >= 0) return status;
  Environment merged;
  config::Config cfg;
  status = ConfigOfOptions("plan", call, parsed, &merged, &cfg);
  if (status >= 0) return status;

  std::string source = PolicySource(cfg, parsed, merged);
  planner::PrepareRequest request = RequestOf(&cfg, merged.get());
  std::string why, error;
  plan::PlanBasis* basis = planner::Prepare(request, &why);
  if (basis == nullptr) {
    fprintf(err, "numabind plan: %s\n", !why.empty() ? why.c_str() : "cannot prepare a plan");
    return kExitFailure;
  }
  uint32_t nranks = RankCount(cfg, merged.get(), *basis);
  PlanRows plan = PlaceRanks(*basis, nranks, cfg, merged.get());
  plan.heading = std::to_string(nranks) + (nranks == 1 ? " rank" : " ranks") + ", policy " + cfg.policy.text +
                 source + ", memory " + config::MemoryName(cfg.memory);
  if (cfg.smt != 0)
    plan.heading +=
        ", at most " + std::to_string(cfg.smt) + (cfg.smt == 1 ? " thread" : " threads") + " per core";
  if (cfg.all_kinds) plan.heading += ", every core kind alike";
  // near and weighted add memory-only nodes (plan/plan_tiers.cc): say when the machine has none.
  if ((cfg.memory == config::MemoryKind::kNear || cfg.memory == config::MemoryKind::kWeighted) &&
      !plan::HasTierNodes(*basis))
    plan.heading += " (no memory-only node on this machine: the ranks' own nodes)";
  // The rows hold copies of what they need; LeakSanitizer (make test's asan suites) checks the command.
  free(basis);

  if (parsed.Has("--draw")) {
    if (!DrawRows(plan, cfg, nranks, out, &error)) {
      fprintf(err, "numabind plan: %s\n", error.c_str());
      return kExitFailure;
    }
  } else if (parsed.Has("--json")) {
    PrintJson(plan, cfg, out);
  } else {
    PrintRows(plan, cfg, out);
  }
  return plan.all_ok ? 0 : kExitFailure;
}

std::string FormatBits(const uint64_t* words, uint32_t nwords) {
  std::string s(64, '\0');
  size_t need = plan::FormatBitList(words, nwords, s.data(), s.size());
  if (need >= s.size()) {
    s.assign(need + 1, '\0');
    plan::FormatBitList(words, nwords, s.data(), s.size());
  }
  s.resize(need);
  return s;
}

planner::PrepareRequest RequestOf(config::Config* cfg, const char* const* env) {
  if (cfg->policy.text == nullptr) config::ParseVar("NUMABIND_POLICY", "node", cfg, nullptr);
  planner::PrepareRequest request;
  request.topology = cfg->topology;
  request.policy = cfg->policy;
  request.memory = cfg->memory;
  request.devices = cfg->devices;
  request.env = env;
  request.want_nics = (cfg->exports & config::kExportNic) != 0;
  request.smt = cfg->smt;
  request.all_kinds = cfg->all_kinds;
  return request;
}

}  // namespace numabind::cli
