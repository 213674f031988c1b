// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// What auto says a rank got (plan_auto.h): FormatAutoShare and CacheName. Compiled into the shim like
// plan_auto.cc: no allocation, no libc calls.

#include "base/text_writer.h"
#include "plan/plan_auto.h"

namespace numabind::plan {

// Child-safe: returns a string literal.
const char* CacheName(const PlanBasis& basis) {
  switch (basis.llc_level) {
    case 1: return "L1";
    case 2: return "L2";
    case 3: return "L3";
    case 4: return "L4";
    default: return "cache domain";
  }
}

namespace {

// " of node N", or " outside every node" for CPUs that have none (kNoNode in AddAutoUnits). Child-safe.
void OfNode(base::TextWriter* w, uint32_t node) {
  if (node == 0xffffffffu) {
    w->Str(" outside every node");
    return;
  }
  w->Str(" of node "), w->Uint(node);
}

}  // namespace

// Child-safe: writes only into buf.
size_t FormatAutoShare(const PlanBasis& basis, const AutoShare& s, char* buf, size_t cap) {
  base::TextWriter w{buf, cap, 0};
  if (cap > 0) buf[0] = '\0';
  switch (s.grain) {
    case AutoGrain::kNodes:
      if (s.taken == 1 && s.node == 0xffffffffu) return w.Str("every CPU outside the nodes"), w.len;
      if (s.taken == 1) return w.Str("whole node "), w.Uint(s.node), w.len;
      if (s.taken == s.of) return w.Str("all "), w.Uint(s.of), w.Str(" nodes"), w.len;
      w.Uint(s.taken), w.Str(" of "), w.Uint(s.of), w.Str(" nodes");
      return w.len;
    case AutoGrain::kCaches:
      w.Uint(s.taken), w.Str(" of "), w.Uint(s.of), w.Put(' '), w.Str(CacheName(basis));
      OfNode(&w, s.node);
      return w.len;
    case AutoGrain::kCores:
      w.Uint(s.taken), w.Str(" of "), w.Uint(s.of), w.Str(" cores");
      OfNode(&w, s.node);
      return w.len;
    case AutoGrain::kThreads:
      w.Uint(s.taken), w.Str(" of "), w.Uint(s.of), w.Str(" threads of one core"), OfNode(&w, s.node);
      return w.len;
    case AutoGrain::kShared:
      w.Str("1 thread shared by "), w.Uint(s.sharers), w.Str(" ranks (");
      if (s.node == 0xffffffffu) w.Str("no node");
      if (s.node != 0xffffffffu) w.Str("node "), w.Uint(s.node);
      w.Put(')');
      return w.len;
  }
  return w.len;
}

}  // namespace numabind::plan
