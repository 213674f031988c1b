// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_MOVE (config/grammar.h's ParseMoveBudget): auto, off, a size; a bad value is a warning and the
// default, never an error that would leave a rank unbound (issue 37).

#include <criterion/criterion.h>

#include "config/config.h"
#include "config/grammar.h"
#include "tests/config/config_test_util.h"

using numabind::config::Config;
using numabind::config::Error;
using numabind::config::kMoveAuto;
using numabind::config::ParseMoveBudget;

Test(move_budget, auto_off_and_sizes) {
  uint64_t b = 1;
  cr_assert(ParseMoveBudget("auto", &b));
  cr_expect_eq(b, kMoveAuto);
  cr_expect_eq(kMoveAuto, 4ull << 30);
  cr_assert(ParseMoveBudget("off", &b));
  cr_expect_eq(b, 0u);
  cr_assert(ParseMoveBudget("4096", &b));
  cr_expect_eq(b, 4096u);
  cr_assert(ParseMoveBudget("512M", &b));
  cr_expect_eq(b, 512ull << 20);
  cr_assert(ParseMoveBudget("2g", &b));
  cr_expect_eq(b, 2ull << 30);
  cr_assert(ParseMoveBudget("64K", &b));
  cr_expect_eq(b, 64ull << 10);
  for (const char* bad : {"", "0", "-1", "2T", "1.5G", "G", "auto ", "99999999999999999999", "2000000G"})
    cr_expect_not(ParseMoveBudget(bad, &b), "%s", bad);
}

Test(move_budget, a_bad_value_warns_and_keeps_auto) {
  numabind::config::testing::Env env({"NUMABIND_POLICY=node", "NUMABIND_MOVE=lots"});
  Config c;
  Error err;
  cr_assert(numabind::config::Parse(env.get(), &c, &err), "an error: %s", err.text);
  cr_expect_eq(c.move_bytes, kMoveAuto);
  cr_expect_str_eq(err.warning,
                   "NUMABIND_MOVE=lots: expected auto, off or a size such as 512M or 2G (bytes, or K, M, G); "
                   "auto (4 GiB) is used");
  numabind::config::testing::Env off({"NUMABIND_POLICY=node", "NUMABIND_MOVE=off"});
  cr_assert(numabind::config::Parse(off.get(), &c, &err));
  cr_expect_eq(c.move_bytes, 0u);
}
