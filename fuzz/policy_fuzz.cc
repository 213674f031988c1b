// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_POLICY and NUMABIND_MEMORY as the planner gets them (planner/request.cc: config::ParseVar, the
// grammar of config/grammar.cc, then the map expanded). Beyond not crashing: a map has 1 to
// config::kMaxMapEntries entries, none empty, ids within config::kMaxCpuId or kMaxNodeId; a map formatted
// back ("cpus:" and each entry's list, joined by
// '|') parses to the same entries; a rejected value gets a reason naming the variable; and the library's
// own check (config::Parse, which the shim runs before it asks the helper to plan) and the planner accept
// exactly the same values, the grammar counting as many entries as the planner builds.

#include <string>

#include "config/config.h"
#include "config/grammar.h"
#include "fuzz/fuzz_util.h"
#include "planner/planner.h"

namespace {

using numabind::config::PolicyKind;
using numabind::planner::CpuSet;
using numabind::planner::Policy;

bool IsMap(PolicyKind k) { return k == PolicyKind::kCpuMap || k == PolicyKind::kNodeMap; }

bool ParsePolicy(const char* text, Policy* out, std::string* err) {
  numabind::planner::PrepareRequest request;
  if (!numabind::planner::RequestFromText(text, nullptr, nullptr, &request, err)) return false;
  *out = numabind::planner::ExpandPolicy(request.policy);
  return true;
}

bool ParseMemory(const char* text, numabind::config::MemoryKind* out, std::string* err) {
  numabind::planner::PrepareRequest request;
  if (!numabind::planner::RequestFromText("node", text, nullptr, &request, err)) return false;
  *out = request.memory;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = numabind::fuzz::AsText(data, size);
  const char* in = text.c_str();

  Policy policy;
  std::string err;
  bool ok = ParsePolicy(in, &policy, &err);
  if (!ok) {
    FUZZ_CHECK(err.compare(0, 15, "NUMABIND_POLICY") == 0, "input \"%s\": reason \"%s\"", in, err.c_str());
  } else if (IsMap(policy.kind)) {
    FUZZ_CHECK(!policy.entries.empty() && policy.entries.size() <= numabind::config::kMaxMapEntries,
               "input \"%s\": %zu entries", in, policy.entries.size());
    numabind::config::Policy syntax;
    char why[160];
    FUZZ_CHECK(numabind::config::ParsePolicyText(in, &syntax, why, sizeof(why)) &&
                   syntax.entries == policy.entries.size(),
               "input \"%s\": the grammar counts %u entries, the planner built %zu", in, syntax.entries,
               policy.entries.size());
    uint32_t max_id =
        policy.kind == PolicyKind::kCpuMap ? numabind::config::kMaxCpuId : numabind::config::kMaxNodeId;
    std::string again_text = policy.kind == PolicyKind::kCpuMap ? "cpus:" : "nodes:";
    for (size_t i = 0; i < policy.entries.size(); ++i) {
      FUZZ_CHECK(!policy.entries[i].Empty() && policy.entries[i].Last() <= max_id,
                 "input \"%s\": entry %zu is empty or past %u", in, i + 1, max_id);
      again_text += (i ? "|" : "") + policy.entries[i].ToList();
    }
    Policy again;
    FUZZ_CHECK(ParsePolicy(again_text.c_str(), &again, &err), "input \"%s\": \"%s\": %s", in,
               again_text.c_str(), err.c_str());
    FUZZ_CHECK(again.kind == policy.kind && again.entries.size() == policy.entries.size(),
               "input \"%s\": \"%s\"", in, again_text.c_str());
    for (size_t i = 0; i < again.entries.size(); ++i)
      FUZZ_CHECK(again.entries[i] == policy.entries[i], "input \"%s\": entry %zu", in, i + 1);
  } else {
    FUZZ_CHECK(policy.entries.empty(), "input \"%s\"", in);
  }

  // One grammar: what config accepts, the planner plans.
  std::string var = "NUMABIND_POLICY=" + text;
  const char* env[] = {var.c_str(), nullptr};
  numabind::config::Config config;
  numabind::config::Error config_err;
  bool config_ok = numabind::config::Parse(env, &config, &config_err);
  if (!text.empty())
    FUZZ_CHECK(config_ok == ok, "NUMABIND_POLICY=\"%s\": config says %s, core says %s", in,
               config_ok ? "ok" : config_err.text, ok ? "ok" : err.c_str());

  numabind::config::MemoryKind memory;
  err.clear();
  if (ParseMemory(in, &memory, &err)) {
    const char* name = numabind::config::MemoryName(memory);
    FUZZ_CHECK(text.find(name) != std::string::npos || text.find_first_not_of(" \t\n") == std::string::npos,
               "NUMABIND_MEMORY=\"%s\" parsed as %s", in, name);
  } else {
    FUZZ_CHECK(err.compare(0, 15, "NUMABIND_MEMORY") == 0, "input \"%s\": reason \"%s\"", in, err.c_str());
  }
  return 0;
}
