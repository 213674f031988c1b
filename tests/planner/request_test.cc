// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The planner's inputs travel from the library's configuration to the helper's request through one list
// (config/planner_inputs.h): the helper's argv and the shared basis's name are made from the same pairs, and
// RequestFromArgs reads them back. Each input changed alone must change the pairs (so the basis's name) and
// the request the helper builds; an input that reached one but not the other fails here.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "config/planner_inputs.h"
#include "planner/planner.h"

using namespace numabind;

namespace {

config::Config Parsed(const std::vector<std::pair<const char*, const char*>>& vars) {
  config::Config c;
  config::Error error;
  for (const auto& [name, value] : vars) {
    cr_assert(config::ParseVar(name, value, &c, &error), "%s=%s: %s", name, value, error.text);
  }
  return c;
}

std::vector<std::string> Args(const config::Config& c) {
  const char* texts[config::kPlannerInputCount];
  config::PlannerInputTexts(c, texts);
  const char* argv[2 * config::kPlannerInputCount];
  int n = config::PlannerInputArgs(texts, argv);
  return std::vector<std::string>(argv, argv + n);
}

struct Read {
  std::vector<std::string> args;  // the request points into them
  planner::PrepareRequest request;
};

void ReadBack(const config::Config& c, Read* out) {
  out->args = Args(c);
  std::string err;
  cr_assert(planner::RequestFromArgs(out->args, nullptr, &out->request, &err) == planner::ArgsResult::kOk,
            "%s", err.c_str());
}

/// Whether the requests differ in what input `input` sets.
bool Differs(int input, const planner::PrepareRequest& a, const planner::PrepareRequest& b) {
  static_assert(config::kPlannerInputCount == 7, "compare every planner input");
  switch (input) {
    case config::kInputPolicy: return a.policy.kind != b.policy.kind;
    case config::kInputMemory: return a.memory != b.memory;
    case config::kInputDevices: return a.devices.mode != b.devices.mode;
    case config::kInputTopology: return (a.topology == nullptr) != (b.topology == nullptr);
    case config::kInputNics: return a.want_nics != b.want_nics;
    case config::kInputSmt: return a.smt != b.smt;
    case config::kInputCoreKinds: return a.all_kinds != b.all_kinds;
  }
  return false;
}

}  // namespace

Test(request, each_input_changes_the_helpers_args_and_its_request) {
  const std::pair<const char*, const char*> base_var = {"NUMABIND_POLICY", "node"};
  // One variable per input, set to something other than its default.
  const std::pair<const char*, const char*> changed[config::kPlannerInputCount] = {
      {"NUMABIND_POLICY", "socket"},  {"NUMABIND_MEMORY", "interleave"},
      {"NUMABIND_DEVICES", "none"},   {"NUMABIND_TOPOLOGY", "synthetic:numa:2 pu:2"},
      {"NUMABIND_EXPORT", "nic"},     {"NUMABIND_SMT", "1"},
      {"NUMABIND_CORE_KINDS", "all"},
  };
  Read base;
  ReadBack(Parsed({base_var}), &base);
  for (int i = 0; i < config::kPlannerInputCount; ++i) {
    Read other;
    ReadBack(Parsed({base_var, changed[i]}), &other);
    cr_expect(other.args != base.args, "%s=%s leaves the helper's args (and the basis's name) as they were",
              changed[i].first, changed[i].second);
    cr_expect(Differs(i, base.request, other.request), "%s=%s does not reach the helper's request (%s)",
              changed[i].first, changed[i].second, config::kPlannerInputOptions[i]);
  }
}

Test(request, every_option_the_args_carry_is_read) {
  config::Config c = Parsed({{"NUMABIND_POLICY", "socket"},
                             {"NUMABIND_TOPOLOGY", "synthetic:numa:2 pu:2"},
                             {"NUMABIND_EXPORT", "nic"},
                             {"NUMABIND_SMT", "2"},
                             {"NUMABIND_CORE_KINDS", "all"}});
  std::vector<std::string> args = Args(c);
  cr_assert_eq(args.size(), 2u * config::kPlannerInputCount);
  for (int i = 0; i < config::kPlannerInputCount; ++i) {
    cr_expect_eq(config::PlannerInputOf(config::kPlannerInputOptions[i]), i);
  }
}

Test(request, an_option_that_is_no_input_is_refused) {
  std::string err;
  planner::PrepareRequest request;
  std::vector<std::string> args = {"--policy", "node", "--colour", "blue"};
  cr_assert(planner::RequestFromArgs(args, nullptr, &request, &err) == planner::ArgsResult::kBadArgument);
  cr_expect(err.find("--colour") != std::string::npos, "%s", err.c_str());
  args = {"--policy", "nodez"};
  cr_assert(planner::RequestFromArgs(args, nullptr, &request, &err) == planner::ArgsResult::kBadValue);
  args = {"--policy"};
  cr_assert(planner::RequestFromArgs(args, nullptr, &request, &err) == planner::ArgsResult::kBadArgument);
}
