// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The planner's request from config's typed values. Nothing here parses a variable: config::ParseVar reads
// each text with the parser config::Parse uses, so `numabind plan` accepts exactly what a launch does.

#include <string>
#include <vector>

#include "config/config.h"
#include "planner/planner.h"

namespace numabind::planner {

bool RequestFromText(const char* policy, const char* memory, const char* devices, PrepareRequest* out,
                     std::string* err) {
  *out = PrepareRequest();
  if (policy == nullptr) {
    *err = "NUMABIND_POLICY is not set";
    return false;
  }
  if (*policy == '\0') {
    *err =
        "NUMABIND_POLICY is empty: use node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or "
        "nodes:LIST|LIST...";
    return false;
  }
  config::Config cfg;
  config::Error error;
  if (!config::ParseVar("NUMABIND_POLICY", policy, &cfg, &error) ||
      !config::ParseVar("NUMABIND_MEMORY", memory != nullptr ? memory : "", &cfg, &error) ||
      !config::ParseVar("NUMABIND_DEVICES", devices != nullptr ? devices : "", &cfg, &error)) {
    *err = error.text;
    return false;
  }
  out->policy = cfg.policy;
  out->memory = cfg.memory;
  out->devices = cfg.devices;
  return true;
}

Policy ExpandPolicy(const config::Policy& policy) {
  Policy out;
  out.kind = policy.kind;
  out.text = policy.text != nullptr ? policy.text : "";
  if (policy.kind != config::PolicyKind::kCpuMap && policy.kind != config::PolicyKind::kNodeMap) return out;
  out.entries.reserve(policy.entries);
  config::MapEntries entries(policy);
  const char *list, *end;
  uint32_t repeat;
  while (entries.Next(&list, &end, &repeat)) {
    CpuSet set;
    config::Ranges ranges(list, end);
    uint32_t lo, hi;
    while (ranges.Next(&lo, &hi)) set.SetRange(lo, hi);
    out.entries.insert(out.entries.end(), repeat, set);
  }
  return out;
}

}  // namespace numabind::planner
