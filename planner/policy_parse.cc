// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_POLICY and NUMABIND_MEMORY texts, parsed for the planner (planner/planner.h) with the grammar the
// library checks them with (config/grammar.h): `numabind plan` accepts exactly what a launch does.

#include <string>
#include <vector>

#include "config/grammar.h"
#include "planner/planner.h"

namespace numabind::core {

bool ParsePolicy(const char* text, Policy* out, std::string* err) {
  *out = Policy();
  const char* value = text != nullptr ? text : "";
  if (*value == '\0') {
    *err =
        "NUMABIND_POLICY is empty: use node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or "
        "nodes:LIST|LIST...";
    return false;
  }
  config::PolicyText syntax;
  char why[192];
  if (!config::ParsePolicyText(value, &syntax, why, sizeof(why))) {
    *err = "NUMABIND_POLICY=" + std::string(value) + ": " + why;
    return false;
  }
  out->text = value;
  switch (syntax.form) {
    case config::PolicyForm::kNode: out->kind = PolicyKind::kNode; return true;
    case config::PolicyForm::kSocket: out->kind = PolicyKind::kSocket; return true;
    case config::PolicyForm::kExclusive: out->kind = PolicyKind::kExclusive; return true;
    case config::PolicyForm::kCoreComplex: out->kind = PolicyKind::kCoreComplex; return true;
    case config::PolicyForm::kAuto: out->kind = PolicyKind::kAuto; return true;
    case config::PolicyForm::kCpuMap: out->kind = PolicyKind::kCpuMap; break;
    case config::PolicyForm::kNodeMap: out->kind = PolicyKind::kNodeMap; break;
  }
  out->entries.reserve(syntax.entries);
  config::MapEntries entries(syntax);
  const char *list, *end;
  uint32_t repeat;
  while (entries.Next(&list, &end, &repeat)) {
    CpuSet set;
    config::Ranges ranges(list, end);
    uint32_t lo, hi;
    while (ranges.Next(&lo, &hi)) set.SetRange(lo, hi);
    out->entries.insert(out->entries.end(), repeat, set);
  }
  return true;
}

bool ParseMemory(const char* text, MemoryKind* out, std::string* err) {
  std::string s = text ? text : "";
  if (s.empty() || s == "local") {
    *out = MemoryKind::kLocal;
  } else if (s == "preferred") {
    *out = MemoryKind::kPreferred;
  } else if (s == "bind") {
    *out = MemoryKind::kBind;
  } else if (s == "interleave") {
    *out = MemoryKind::kInterleave;
  } else {
    *err = "NUMABIND_MEMORY=" + s + ": expected local, preferred, bind or interleave";
    return false;
  }
  return true;
}

}  // namespace numabind::core
