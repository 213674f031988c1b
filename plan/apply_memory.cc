// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank's memory policy on the calling thread (plan/apply_memory.h).

#include "plan/apply_memory.h"

#include <errno.h>
#include <linux/mempolicy.h>

#include "base/syscalls.h"

namespace numabind::plan {
namespace {

// From linux/mempolicy.h; older headers lack the last two.
constexpr int kMpolPreferredMany = 5;       // Linux 5.15
constexpr int kMpolWeightedInterleave = 6;  // Linux 6.9

/// Child-safe: set_mempolicy(mode, nodes); returns 0 or -errno.
long SetPolicy(int mode, const uint64_t* nodes, uint32_t node_words) {
  long maxnode = static_cast<long>(node_words) * 64 + 1;  // the kernel drops one bit of maxnode, historically
  return base::Sys6(SYS_set_mempolicy, mode, reinterpret_cast<long>(nodes), nodes != nullptr ? maxnode : 0);
}

/// Child-safe: MPOL_PREFERRED on the rank's own node (the first of its nodes that is not memory-only).
long PreferOwnNode(const RankPlan& plan, const PlanBasis& basis) {
  uint64_t first[config::kMaxNodeWords] = {0};
  int64_t n = FirstOwnNode(basis, plan.nodes);
  if (n < 0 || static_cast<uint64_t>(n) >= uint64_t{basis.node_words} * 64) return -EINVAL;
  first[n / 64] = uint64_t{1} << (n % 64);
  return SetPolicy(MPOL_PREFERRED, first, basis.node_words);
}

/// Child-safe: sets the calling thread's memory policy for `plan`; returns 0 or -errno. A kernel older
/// than the mode near or weighted asks for answers EINVAL: then *out says what it got instead.
long ApplyAsked(const RankPlan& plan, const PlanBasis& basis, MemoryOutcome* out) {
  uint32_t words = basis.node_words;
  switch (plan.memory) {
    case config::MemoryKind::kLocal: return base::Sys6(SYS_set_mempolicy, MPOL_DEFAULT, 0, 0);
    case config::MemoryKind::kBind: return SetPolicy(MPOL_BIND, plan.nodes, words);
    case config::MemoryKind::kInterleave: return SetPolicy(MPOL_INTERLEAVE, plan.nodes, words);
    case config::MemoryKind::kPreferred:
      if (CountBits(plan.nodes, words) > 1) {
        long r = SetPolicy(kMpolPreferredMany, plan.nodes, words);
        if (r != -EINVAL) return r;
      }
      return PreferOwnNode(plan, basis);
    case config::MemoryKind::kNear: {
      long r = SetPolicy(kMpolPreferredMany, plan.nodes, words);
      if (r != -EINVAL) return r;
      out->applied = config::MemoryKind::kPreferred;
      out->why = "the kernel lacks MPOL_PREFERRED_MANY (Linux 5.15): ranks prefer their own node";
      return PreferOwnNode(plan, basis);
    }
    case config::MemoryKind::kWeighted: {
      long r = SetPolicy(kMpolWeightedInterleave, plan.nodes, words);
      if (r != -EINVAL) return r;
      out->applied = config::MemoryKind::kInterleave;
      out->why =
          "the kernel lacks MPOL_WEIGHTED_INTERLEAVE (Linux 6.9): plain interleave over the same nodes";
      return SetPolicy(MPOL_INTERLEAVE, plan.nodes, words);
    }
  }
  return -EINVAL;
}

}  // namespace

long ApplyMemory(const RankPlan& plan, const PlanBasis& basis, MemoryOutcome* out) {
  out->applied = plan.memory;
  out->why = nullptr;
  long r = ApplyAsked(plan, basis, out);
  // local asks for no policy of the rank's own: nothing narrower to fall back to.
  if ((r != -EINVAL && r != -EPERM) || plan.memory == config::MemoryKind::kLocal) return r;
  out->refused = r;
  if (plan.memory != config::MemoryKind::kBind) {
    out->applied = config::MemoryKind::kBind;
    long b = SetPolicy(MPOL_BIND, plan.nodes, basis.node_words);
    if (b == 0) return 0;
  }
  out->applied = config::MemoryKind::kPreferred;
  return PreferOwnNode(plan, basis) == 0 ? 0 : r;
}

}  // namespace numabind::plan
