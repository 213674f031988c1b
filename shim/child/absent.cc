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

/// What TakeOut found of a set on this machine.
enum class Missing : uint8_t { kNone, kSome, kAll };

/// Child-safe: takes `absent` out of set (words words), naming what it took in l ("CPUs 2-3") and adding
/// their count to *count. With nothing left (kAll) the set is kept: the kernel refuses it, and says so.
Missing TakeOut(Line* l, const char* noun, uint64_t* set, const uint64_t* absent, uint32_t words,
                uint32_t* count) {
  uint64_t missing[words];  // NOLINT: the basis's words, 1 or 2 on most machines
  bool any = false, left = false;
  for (uint32_t w = 0; w < words; ++w) {
    missing[w] = set[w] & absent[w];
    any = any || missing[w] != 0;
    left = left || (set[w] & ~absent[w]) != 0;
  }
  if (!any) return Missing::kNone;
  uint32_t n = plan::CountBits(missing, words);
  *count += n;
  l->Str(noun).Str(n == 1 ? " " : "s ").Bits(missing, words);
  for (uint32_t w = 0; w < words && left; ++w) set[w] &= ~absent[w];
  return left ? Missing::kSome : Missing::kAll;
}

}  // namespace

// Child-safe: a line on the stack only on the paths that write one.
__attribute__((noinline)) bool TakeOutAbsent(const ChildArgs& a, const char* path, const RankMatch& m,
                                             const plan::PlanBasis& basis, plan::RankPlan* plan, int* err,
                                             BindResult* result) {
  const uint64_t* cpus = a.prepared->absent;
  uint32_t cw = basis.cpu_words, nw = basis.node_words;
  bool none = true;
  for (uint32_t w = 0; w < cw; ++w) none = none && (plan->cpus[w] & ~cpus[w]) == 0;
  if (none) {
    *result = FailAbsent(a, path, m, *plan, cw, err);
    return true;
  }
  Line l;
  RankHeading(&l.Str("numabind: "), m.rank, m.nranks, m.var).Str(" ").Str(path).Str(": ");
  uint32_t count = 0;
  bool took = TakeOut(&l, "CPU", plan->cpus, cpus, cw, &count) != Missing::kNone;
  size_t before_and = l.size();
  if (took) l.Str(" and ");
  Missing nodes = TakeOut(&l, "node", plan->nodes, cpus + cw, nw, &count);
  if (nodes == Missing::kNone) l.Rewind(before_and);
  if (count > 0 && g_startup.config.log >= config::LogLevel::kWarn) {
    l.Str(" of its plan ").Str(count == 1 ? "is" : "are").Str(" not on this machine (NUMABIND_TOPOLOGY=");
    l.Str(g_startup.config.topology).Str("): ");
    l.Str(nodes == Missing::kAll ? "no memory policy can name its nodes" : "bound to the rest");
    WriteLog(config::LogLevel::kWarn, &l);
  }
  return false;
}

}  // namespace numabind::shim
