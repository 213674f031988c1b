// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The NUMABIND_* variables as a whole environment (config::Parse), one "NAME=value" entry per input line.
// Beyond not crashing: the error is one NUL-terminated line naming a NUMABIND_ variable; every string in the
// result points at the value of its variable in the environment (first occurrence, as getenv); the shim
// acts (enabled) exactly when a policy parsed and NUMABIND_DISABLE is not 1; parsing twice gives the same
// result.

#include <string.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "fuzz/fuzz_util.h"

namespace {

using numabind::config::Config;
using numabind::config::Lookup;
using numabind::config::MemoryName;

// A string field is either its default (equal text: each file has its own copy of a literal), or the value
// of its variable in env.
void CheckField(const char* const* env, const char* name, const char* field, const char* dflt) {
  const char* v = Lookup(env, name);
  bool is_default = dflt == nullptr ? field == nullptr : field != nullptr && strcmp(field, dflt) == 0;
  FUZZ_CHECK(is_default || field == v, "%s: field \"%s\", value \"%s\"", name, field ? field : "(null)",
             v ? v : "(null)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> lines = numabind::fuzz::Lines(data, size);
  std::vector<const char*> env;
  for (const std::string& l : lines) env.push_back(l.c_str());
  env.push_back(nullptr);

  Config c;
  numabind::config::Error err;
  bool ok = numabind::config::Parse(env.data(), &c, &err);
  size_t len = strnlen(err.text, sizeof(err.text));
  FUZZ_CHECK(len < sizeof(err.text), "error not terminated");
  if (ok) {
    FUZZ_CHECK(len == 0, "accepted with error \"%s\"", err.text);
  } else {
    FUZZ_CHECK(strncmp(err.text, "NUMABIND_", 9) == 0 && strchr(err.text, '\n') == nullptr, "error \"%s\"",
               err.text);
  }

  const char* const* e = env.data();
  FUZZ_CHECK(c.match != nullptr, "no NUMABIND_MATCH");
  if (c.disabled) {
    FUZZ_CHECK(ok && !c.enabled && c.policy.text == nullptr, "NUMABIND_DISABLE=1 yet enabled or failed");
  } else {
    FUZZ_CHECK(c.enabled == (c.policy.text != nullptr), "enabled %d, policy %s", c.enabled, c.policy.text);
    CheckField(e, "NUMABIND_POLICY", c.policy.text, nullptr);
    // The memory policy is a value: the variable names it, or it is the default.
    const char* memory = Lookup(e, "NUMABIND_MEMORY");
    FUZZ_CHECK(c.memory == Config().memory ||
                   (memory != nullptr && strcmp(memory, MemoryName(c.memory)) == 0),
               "NUMABIND_MEMORY \"%s\" read as %s", memory ? memory : "(null)", MemoryName(c.memory));
    CheckField(e, "NUMABIND_DEVICES", c.devices.text, Config().devices.text);
    CheckField(e, "NUMABIND_RANK_VAR", c.rank_var, nullptr);
    CheckField(e, "NUMABIND_TOPOLOGY", c.topology, nullptr);
    CheckField(e, "NUMABIND_LOG_FILE", c.log_file, nullptr);
    const char* match = Lookup(e, "NUMABIND_MATCH");
    FUZZ_CHECK(match == nullptr || c.match == match, "NUMABIND_MATCH not taken");
    FUZZ_CHECK(c.policy.text == nullptr || *c.policy.text != '\0', "empty policy enables");
    FUZZ_CHECK(c.nranks <= (1u << 20), "NUMABIND_NRANKS %u", c.nranks);
  }

  Config again;
  bool ok2 = numabind::config::Parse(env.data(), &again, nullptr);
  FUZZ_CHECK(ok2 == ok && again.enabled == c.enabled && again.policy.text == c.policy.text &&
                 again.memory == c.memory && again.devices.text == c.devices.text &&
                 again.nranks == c.nranks && again.strict == c.strict && again.log == c.log &&
                 again.log_file == c.log_file,
             "a second parse differs");
  return 0;
}
