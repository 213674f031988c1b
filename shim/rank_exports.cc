// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every function in this file may run between fork/vfork and exec: arithmetic on the prepared basis and
// the caller's stack, one raw write for the log.

#include "shim/rank_exports.h"

#include "config/config.h"

namespace numabind::shim {
namespace {

/// Child-safe: the rank's plan into the caller's arrays (basis->cpu_words and node_words words); false when
/// there is no plan.
bool PlanOf(const RankMatch& m, uint64_t* cpus, uint64_t* nodes, core::RankPlan* plan) {
  plan->cpus = cpus;
  plan->nodes = nodes;
  return core::ComputeRankPlan(*g_state.basis, m.rank, m.nranks, plan);
}

/// Child-safe: whether a basis is there and fits the stack arrays BindRank uses too.
bool Usable() {
  const core::PlanBasis* b = g_state.basis;
  return b != nullptr && b->cpu_words <= kMaxCpuWords && b->node_words <= kMaxNodeWords;
}

}  // namespace

// Child-safe: arithmetic on the basis, arrays on this stack.
size_t ExportBytes(const RankMatch& m, char* const* envp) {
  if (g_state.config.exports == 0 || !Usable()) return 0;
  uint64_t cpus[g_state.basis->cpu_words], nodes[g_state.basis->node_words];
  core::RankPlan plan;
  if (!PlanOf(m, cpus, nodes, &plan)) return 0;
  core::RankEnv env;
  size_t need = core::BuildRankEnv(*g_state.basis, plan, g_state.config.exports,
                                   const_cast<const char* const*>(envp), nullptr, 0, &env);
  // At least 1: with nothing to export, BuildExports still has to say why.
  return need == 0 ? 1 : need < core::kRankEnvMax ? need : core::kRankEnvMax;
}

// Child-safe: arithmetic on the basis, writes into buf and *out, one raw write for the log.
void BuildExports(const RankMatch& m, char* const* envp, const char* path, char* buf, size_t cap,
                  core::RankEnv* out) {
  out->count = 0;
  out->note[0] = '\0';
  if (g_state.config.exports == 0 || !Usable()) return;
  uint64_t cpus[g_state.basis->cpu_words], nodes[g_state.basis->node_words];
  core::RankPlan plan;
  if (!PlanOf(m, cpus, nodes, &plan)) return;
  core::BuildRankEnv(*g_state.basis, plan, g_state.config.exports, const_cast<const char* const*>(envp), buf,
                     cap, out);
  if (out->note[0] == '\0') return;
  Line l;
  l.Str("numabind: rank ").Num(m.rank).Str(" (").Str(m.var ? m.var : "NUMABIND_MATCH").Str(") ").Str(path);
  l.Str(": NUMABIND_EXPORT: ").Str(out->note).Str(" (the rank is bound as planned)");
  WriteLog(config::LogLevel::kWarn, &l);
}

// Child-safe: copies pointers into the caller's stack array.
char* const* RankEnvironment(char* const* envp, const RankMatch& m, bool mark, char* marker,
                             const core::RankEnv& exports, char** out) {
  size_t n = 0;
  if (mark) {
    char* two[2];
    MarkEnvironment(nullptr, m, marker, two);  // writes the marker only: envp is empty
    out[n++] = marker;
  }
  for (int i = 0; i < exports.count; ++i) out[n++] = const_cast<char*>(exports.entries[i]);
  for (size_t i = 0; envp != nullptr && envp[i] != nullptr; ++i) {
    if (mark && config::ValueOf(envp[i], "NUMABIND_BOUND") != nullptr) continue;
    if (core::RankEnvReplaces(exports, envp[i])) continue;
    out[n++] = envp[i];
  }
  out[n] = nullptr;
  return out;
}

}  // namespace numabind::shim
