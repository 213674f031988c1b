// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The table of the JSON log's keys (config/log_keys.def): each key spelled once, found again by its exact
// spelling only (a key of a newer library, a prefix or a longer word is none of them).

#include "config/log_keys.h"

#include <criterion/criterion.h>
#include <string.h>

#include <set>
#include <string>

using numabind::config::FindLogKey;
using numabind::config::kLogKeyCount;
using numabind::config::LogKey;
using numabind::config::LogKeyName;

Test(log_keys, each_key_is_found_by_its_spelling_only) {
  std::set<std::string> names;
  for (size_t k = 0; k < kLogKeyCount; ++k) {
    const char* name = LogKeyName(static_cast<LogKey>(k));
    cr_expect(names.insert(name).second, "%s twice", name);
    LogKey found = LogKey::kTime;
    cr_expect(FindLogKey(name, strlen(name), &found) && found == static_cast<LogKey>(k), "%s", name);
    cr_expect(!FindLogKey(name, strlen(name) - 1, &found), "a prefix of %s", name);
    std::string longer = std::string(name) + "s";
    cr_expect(!FindLogKey(longer.data(), longer.size(), &found), "%s", longer.c_str());
  }
  cr_expect_eq(std::string(LogKeyName(LogKey::kLauncherCpus)), "launcher_cpus");
  LogKey found;
  cr_expect(!FindLogKey("", 0, &found));
  cr_expect(!FindLogKey("a_key_longer_than_any_row", 25, &found));
  cr_expect(!FindLogKey("cpus\0", 5, &found), "a NUL inside is no key's");
}
