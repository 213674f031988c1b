// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The planner's request from config's typed values. Nothing here parses a variable: config::ParseVar reads
// each text with the parser config::Parse uses, so `numabind plan` accepts exactly what a launch does.

#include <string.h>

#include <string>
#include <vector>

#include "config/choices.h"
#include "config/config.h"
#include "config/planner_inputs.h"
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
    char words[sizeof(config::kPolicyWords.words)];
    config::JoinChoices(config::kPolicyWords, ", ", " or ", words, sizeof(words));
    *err = std::string("NUMABIND_POLICY is empty: use ") + words;
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

ArgsResult RequestFromArgs(const std::vector<std::string>& args, const char* const* env, PrepareRequest* out,
                           std::string* err) {
  const char* texts[config::kPlannerInputCount] = {};
  for (size_t i = 0; i < args.size(); i += 2) {
    int input = config::PlannerInputOf(args[i].c_str());
    if (input < 0 || i + 1 >= args.size()) {
      *err = "unexpected argument " + args[i];
      return ArgsResult::kBadArgument;
    }
    texts[input] = args[i + 1].c_str();
  }
  // Each input of config::NUMABIND_PLANNER_INPUTS is read here: a new one needs its line.
  static_assert(config::kPlannerInputCount == 7, "read every planner input");
  if (!RequestFromText(texts[config::kInputPolicy], texts[config::kInputMemory], texts[config::kInputDevices],
                       out, err)) {
    return ArgsResult::kBadValue;
  }
  const char* topology = texts[config::kInputTopology];
  out->topology = topology != nullptr && *topology != '\0' ? topology : nullptr;
  out->want_nics = texts[config::kInputNics] != nullptr && strcmp(texts[config::kInputNics], "1") == 0;
  // The inputs that are one variable's value: read by config's parser of it.
  config::Config cfg;
  config::Error error;
  for (int input : {config::kInputSmt, config::kInputCoreKinds}) {
    const char* name = input == config::kInputSmt ? "NUMABIND_SMT" : "NUMABIND_CORE_KINDS";
    if (texts[input] != nullptr && !config::ParseVar(name, texts[input], &cfg, &error)) {
      *err = error.text;
      return ArgsResult::kBadValue;
    }
  }
  out->smt = cfg.smt;
  out->all_kinds = cfg.all_kinds;
  out->env = env;
  return ArgsResult::kOk;
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
