// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank's plan cut to what this machine has (shim/child/absent.h). May run between fork/vfork and exec:
// arithmetic on the prepared sets and a line on the stack.

#include "shim/child/absent.h"

#include <errno.h>

#include "plan/plan_basis.h"
#include "shim/log/log.h"

namespace numabind::shim {
namespace {

/// Child-safe: appends s to buf (cap bytes, NUL-terminated) at *len, cut to fit.
void Append(char* buf, size_t cap, size_t* len, const char* s) {
  while (*s != '\0' && *len + 1 < cap) buf[(*len)++] = *s++;
  buf[*len] = '\0';
}

/// Child-safe: rank m has none of its CPUs on this machine: Fail's line names them and the topology.
__attribute__((noinline)) BindResult FailAbsent(const ChildArgs& a, const char* path, const RankMatch& m,
                                                const plan::RankPlan& plan, uint32_t words, int* err) {
  char why[256];
  size_t len = 0;
  bool one = plan::CountBits(plan.cpus, words) == 1;
  Append(why, sizeof(why), &len, one ? "its CPU " : "its CPUs ");
  size_t need = plan::FormatBitList(plan.cpus, words, why + len, sizeof(why) - len);
  len = need < sizeof(why) - len ? len + need : sizeof(why) - 1;
  Append(why, sizeof(why), &len, one ? " is" : " are");
  Append(why, sizeof(why), &len, " not on this machine (NUMABIND_TOPOLOGY=");
  Append(why, sizeof(why), &len, g_startup.config.topology);
  Append(why, sizeof(why), &len, ")");
  return Fail(a, path, m, "", why, EINVAL, err);
}

/// Child-safe: none of set's bits (words words) but those of `absent`.
bool AllAbsent(const uint64_t* set, const uint64_t* absent, uint32_t words) {
  bool any = false;
  for (uint32_t w = 0; w < words; ++w) {
    if ((set[w] & ~absent[w]) != 0) return false;
    any = any || set[w] != 0;
  }
  return any;
}

/// Child-safe: rank m's nodes are none of this machine's: one warn line naming them (its memory policy
/// is then refused, and its line says memory unchanged).
__attribute__((noinline)) void WarnAbsentNodes(const RankMatch& m, const char* path, const uint64_t* nodes,
                                               uint32_t words) {
  Line l;
  RankHeading(&l.Str("numabind: "), m.rank, m.nranks, m.var).Str(" ").Str(path).Str(": ");
  l.Str(plan::CountBits(nodes, words) == 1 ? "its node " : "its nodes ").Bits(nodes, words);
  l.Str(plan::CountBits(nodes, words) == 1 ? " is" : " are").Str(" not on this machine (NUMABIND_TOPOLOGY=");
  l.Str(g_startup.config.topology).Str("): no memory policy can name them");
  WriteLog(config::LogLevel::kWarn, &l);
}

}  // namespace

// Child-safe: arithmetic on the prepared sets; a line on the stack only on the paths that write one.
bool TakeOutAbsent(const ChildArgs& a, const char* path, const RankMatch& m, const plan::PlanBasis& basis,
                   plan::RankPlan* plan, int* err, BindResult* result) {
  const uint64_t* cpus = a.prepared->absent;
  if (AllAbsent(plan->cpus, cpus, basis.cpu_words)) {
    *result = FailAbsent(a, path, m, *plan, basis.cpu_words, err);
    return true;
  }
  if (plan->memory != config::MemoryKind::kLocal && g_startup.config.log >= config::LogLevel::kWarn &&
      AllAbsent(plan->nodes, cpus + basis.cpu_words, basis.node_words))
    WarnAbsentNodes(m, path, plan->nodes, basis.node_words);
  return false;
}

}  // namespace numabind::shim
