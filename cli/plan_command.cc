// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind plan`: where each local rank goes, computed by the same two functions as the shim uses
// (planner::Prepare once, then ComputeRankPlan per rank).

#include <stdlib.h>

#include <algorithm>

#include "cli/cli.h"
#include "cli/draw.h"
#include "config/config.h"
#include "config/grammar.h"
#include "config/rank_count.h"
#include "plan/plan_auto.h"
#include "plan/plan_basis.h"
#include "plan/rank_env.h"
#include "planner/plan_auto_describe.h"
#include "planner/planner.h"

namespace numabind::cli {
namespace {

const OptionSpec kPlanOptions[] = {
    {"--topology", "NUMABIND_TOPOLOGY", false, "FILE|synthetic:DESC",
     "plan on an hwloc XML file or synthetic topology instead of this machine"},
    {"--policy", "NUMABIND_POLICY", false, "P", "default node"},
    {"--ranks", "NUMABIND_NRANKS", false, "N",
     "number of local ranks (default: the launcher's local size, else one per device or NUMA node)"},
    {"--devices", "NUMABIND_DEVICES", false, "D", ""},
    {"--memory", "NUMABIND_MEMORY", false, "M", ""},
    {"--export", "NUMABIND_EXPORT", false, "E",
     "none or a comma list of omp, omp-cpus, gpu, nic: show the variables each rank would get"},
    {"--json", nullptr, true, "", "print a JSON array, one object per rank"},
    {"--draw", nullptr, true, "",
     "draw the machine (packages, NUMA nodes with their CPUs, memory and devices) with a mark per rank "
     "on its CPUs, and a legend"},
};
constexpr size_t kPlanOptionCount = sizeof(kPlanOptions) / sizeof(kPlanOptions[0]);

std::string FormatBits(const std::vector<uint64_t>& words) {
  std::string s(64, '\0');
  size_t need = plan::FormatBitList(words.data(), static_cast<uint32_t>(words.size()), s.data(), s.size());
  if (need >= s.size()) {
    s.assign(need + 1, '\0');
    plan::FormatBitList(words.data(), static_cast<uint32_t>(words.size()), s.data(), s.size());
  }
  s.resize(need);
  return s;
}

struct RankRow {
  uint32_t rank;
  bool ok;
  std::string device, nodes, cpus, memory, nics, error;
  uint32_t more_devices = 0;         ///< auto with fewer ranks than devices: the block's other devices
  std::vector<std::string> devices;  ///< every device the rank drives (its block under auto), first first
  std::string share;                 ///< auto: what share of its group the rank got
  std::vector<std::string> exports;  ///< NUMABIND_EXPORT's "NAME=value" entries
  std::string note;                  ///< what was asked for and not exported, and why
};

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

std::string JoinExports(const RankRow& row) {
  std::string s;
  for (const std::string& e : row.exports) s += (s.empty() ? "" : " ") + e;
  if (!row.note.empty()) s += (s.empty() ? "(" : " (") + row.note + ")";
  return s.empty() ? "-" : s;
}

}  // namespace

OptionList PlanOptions() { return {kPlanOptions, kPlanOptionCount}; }

void PrintPlanHelp(FILE* out) {
  fprintf(
      out,
      "Usage: numabind plan [OPTIONS]\n"
      "\n"
      "Prints where each local rank goes: its device, NUMA nodes, CPUs and memory policy, as the preloaded\n"
      "library would bind it. Options default to the NUMABIND_* variables. With --policy auto, a first line\n"
      "says what auto decided and why, and a column each rank's share.\n"
      "\n");
  PrintOptions(out, kPlanOptions, kPlanOptionCount);
  fprintf(
      out,
      "\nExit status: 0, 1 when a rank cannot be placed or the topology cannot be read, 2 for bad usage.\n");
}

namespace {

/// Every rank's row, and what the printers need to know about them.
struct PlanRows {
  std::vector<RankRow> rows;
  bool all_ok = true, any_nics = false, is_auto = false;
  std::string decision;  ///< auto: what it decided and why (docs/policies.md)
};

/// How many ranks: the option or NUMABIND_NRANKS, the launcher's local size (config::LocalRankCount, as
/// the library reads it), else one per slot.
uint32_t RankCount(const config::Config& cfg, const char* const* env, const plan::PlanBasis& basis) {
  uint32_t nranks = cfg.nranks;
  for (int i = 0; nranks == 0 && i < config::kRankVarCount; ++i) nranks = config::LocalRankCount(env, i);
  if (nranks == 0) nranks = basis.slot_count > 0 ? basis.slot_count : 1;
  return nranks;
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
      row.nodes = FormatBits(nodes);
      row.cpus = FormatBits(cpus);
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
  return out;
}

/// --draw: the machine with a mark per rank. False with *error when the topology cannot be drawn.
bool DrawRows(const PlanRows& plan, const config::Config& cfg, uint32_t nranks, FILE* out,
              std::string* error) {
  Drawing drawing;
  std::string where = cfg.topology != nullptr && *cfg.topology != '\0' ? cfg.topology : "this machine";
  if (where.compare(0, 10, "synthetic:") != 0) where = where.substr(where.rfind('/') + 1);  // a file's name
  drawing.title = "numabind plan: " + std::to_string(nranks) + (nranks == 1 ? " rank" : " ranks") +
                  ", policy " + cfg.policy.text + ", memory " + config::MemoryName(cfg.memory) + ", on " +
                  where;
  drawing.item_word = "rank";
  drawing.items_word = "ranks";
  std::string ignored;  // the lists are FormatBits' own output
  for (const RankRow& row : plan.rows) {
    DrawItem item;
    item.id = std::to_string(row.rank);
    planner::CpuSet::ParseList(row.cpus.c_str(), &item.cpus, &ignored);
    planner::CpuSet::ParseList(row.nodes.c_str(), &item.nodes, &ignored);
    item.device = row.device;
    item.error = row.error;
    drawing.items.push_back(std::move(item));
  }
  std::string text;
  if (!DrawOn(cfg.topology, drawing, &text, error)) return false;
  fputs(text.c_str(), out);
  return true;
}

/// --json: one object per rank.
void PrintJson(const PlanRows& plan, const config::Config& cfg, FILE* out) {
  fprintf(out, "[\n");
  for (size_t i = 0; i < plan.rows.size(); ++i) {
    const RankRow& row = plan.rows[i];
    if (row.ok) {
      fprintf(out, "  {\"rank\":%u,\"device\":%s,\"devices\":[", row.rank, JsonString(row.device).c_str());
      for (size_t d = 0; d < row.devices.size(); ++d)
        fprintf(out, "%s%s", d > 0 ? "," : "", JsonString(row.devices[d]).c_str());
      fprintf(out, "],\"nodes\":%s,\"cpus\":%s,\"memory\":%s", JsonString(row.nodes).c_str(),
              JsonString(row.cpus).c_str(), JsonString(row.memory).c_str());
      if ((cfg.exports & config::kExportNic) != 0) fprintf(out, ",\"nics\":%s", JsonString(row.nics).c_str());
      if (plan.is_auto)
        fprintf(out, ",\"auto\":{\"decision\":%s,\"share\":%s}", JsonString(plan.decision).c_str(),
                JsonString(row.share).c_str());
      if (cfg.exports != 0) {
        fprintf(out, ",\"exports\":{");
        for (size_t e = 0; e < row.exports.size(); ++e) {
          size_t eq = row.exports[e].find('=');
          fprintf(out, "%s%s:%s", e > 0 ? "," : "", JsonString(row.exports[e].substr(0, eq)).c_str(),
                  JsonString(row.exports[e].substr(eq + 1)).c_str());
        }
        fprintf(out, "},\"export_note\":%s", row.note.empty() ? "null" : JsonString(row.note).c_str());
      }
      fprintf(out, "}");
    } else {
      fprintf(out, "  {\"rank\":%u,\"error\":%s}", row.rank, JsonString(row.error).c_str());
    }
    fprintf(out, "%s\n", i + 1 < plan.rows.size() ? "," : "");
  }
  fprintf(out, "]\n");
}

/// The default output: auto's decision, then a table with a row per rank.
void PrintRows(const PlanRows& plan, const config::Config& cfg, FILE* out) {
  std::vector<std::vector<std::string>> table;
  table.push_back({"rank", "device", "nodes", "cpus", "memory"});
  if (plan.is_auto) {
    fprintf(out, "%s\n", plan.decision.c_str());
    table[0].push_back("auto share");
  }
  if (plan.any_nics) table[0].push_back("nics");
  if (cfg.exports != 0) table[0].push_back("exports");
  for (const RankRow& row : plan.rows) {
    if (row.ok) {
      table.push_back({std::to_string(row.rank),
                       row.device.empty()      ? "-"
                       : row.more_devices == 0 ? row.device
                                               : row.device + "+" + std::to_string(row.more_devices),
                       row.nodes, row.cpus, row.memory});
      if (plan.is_auto) table.back().push_back(row.share);
      if (plan.any_nics) table.back().push_back(row.nics.empty() ? "-" : row.nics);
      if (cfg.exports != 0) table.back().push_back(JoinExports(row));
    } else {
      table.push_back({std::to_string(row.rank), "error: " + row.error});
    }
  }
  PrintTable(out, table);
}

/// The command line, checked: kExitUsage (said on err) when it is bad, 0 with --help (help printed), else
/// -1 with *parsed filled.
int CheckPlanArgs(const Args& args, FILE* out, FILE* err, ParsedArgs* parsed) {
  std::string error;
  if (!ParseArgs("plan", args, kPlanOptions, kPlanOptionCount, false, parsed, &error)) {
    fprintf(err, "%s\n", error.c_str());
    return kExitUsage;
  }
  if (parsed->help) {
    PrintPlanHelp(out);
    return 0;
  }
  if (!parsed->positionals.empty()) {
    fprintf(err, "numabind plan: unexpected argument %s (numabind plan --help lists the options)\n",
            parsed->positionals[0].c_str());
    return kExitUsage;
  }
  if (parsed->Has("--json") && parsed->Has("--draw")) {
    fprintf(err, "numabind plan: --json and --draw do not go together\n");
    return kExitUsage;
  }
  return -1;
}

/// The request config's typed values make (the policy node when unset).
planner::PrepareRequest RequestOf(config::Config* cfg, const char* const* env) {
  if (cfg->policy.text == nullptr) config::ParseVar("NUMABIND_POLICY", "node", cfg, nullptr);
  planner::PrepareRequest request;
  request.topology = cfg->topology;
  request.policy = cfg->policy;
  request.memory = cfg->memory;
  request.devices = cfg->devices;
  request.env = env;
  request.want_nics = (cfg->exports & config::kExportNic) != 0;
  return request;
}

}  // namespace

int PlanCommand(const Args& args, const char* const* env, FILE* out, FILE* err) {
  ParsedArgs parsed;
  int status = CheckPlanArgs(args, out, err, &parsed);
  if (status >= 0) return status;
  Environment merged = MergeOptions(env, parsed);
  merged.Unset("NUMABIND_DISABLE");  // the plan is shown whether or not the library is switched off
  config::Config cfg;
  std::string error = ValidateConfig(merged, parsed, &cfg);
  if (!error.empty()) {
    fprintf(err, "numabind plan: %s\n", error.c_str());
    return kExitUsage;
  }

  planner::PrepareRequest request = RequestOf(&cfg, merged.get());
  std::string why;
  plan::PlanBasis* basis = planner::Prepare(request, &why);
  if (basis == nullptr) {
    fprintf(err, "numabind plan: %s\n", !why.empty() ? why.c_str() : "cannot prepare a plan");
    return kExitFailure;
  }
  uint32_t nranks = RankCount(cfg, merged.get(), *basis);
  PlanRows plan = PlaceRanks(*basis, nranks, cfg, merged.get());
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

}  // namespace numabind::cli
