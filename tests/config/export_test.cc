// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_EXPORT: the grammar (config::ParseExportText, the one parser the library and `numabind plan`
// use) and its reading by config::Parse.

#include <criterion/criterion.h>
#include <string.h>

#include <string>

#include "config/config.h"
#include "config/grammar.h"
#include "tests/config/config_test_util.h"

using numabind::config::kExportGpu;
using numabind::config::kExportNic;
using numabind::config::kExportOmp;
using numabind::config::kExportOmpCpus;
using numabind::config::ParseExportText;
using numabind::config::testing::Env;

namespace {

uint8_t Bits(const char* text) {
  uint8_t bits = 0xff;
  char why[160] = "untouched";
  cr_assert(ParseExportText(text, &bits, why, sizeof why), "%s: %s", text, why);
  return bits;
}

void ExpectWhy(const char* text, const char* expected) {
  uint8_t bits = 0;
  char why[160] = {0};
  cr_assert_not(ParseExportText(text, &bits, why, sizeof why), "%s parsed", text);
  cr_expect_str_eq(why, expected, "%s", text);
}

}  // namespace

Test(export_grammar, items) {
  cr_expect_eq(Bits("omp"), kExportOmp);
  cr_expect_eq(Bits("omp-cpus"), kExportOmp | kExportOmpCpus);  // implies omp
  cr_expect_eq(Bits("gpu"), kExportGpu);
  cr_expect_eq(Bits("nic"), kExportNic);
  cr_expect_eq(Bits("nic,omp,gpu"), kExportOmp | kExportGpu | kExportNic);
  cr_expect_eq(Bits("omp,omp-cpus"), kExportOmp | kExportOmpCpus);
}

Test(export_grammar, none_and_empty) {
  cr_expect_eq(Bits("none"), 0);
  cr_expect_eq(Bits(""), 0);
  cr_expect_eq(Bits(nullptr), 0);
}

Test(export_grammar, bad) {
  ExpectWhy(
      "ompp",
      "unknown item ompp: expected none or a comma list of omp, omp-cpus, gpu, nic (did you mean omp?)");
  ExpectWhy("omp,,gpu", "an empty item: expected none or a comma list of omp, omp-cpus, gpu, nic");
  ExpectWhy("omp,", "an empty item: expected none or a comma list of omp, omp-cpus, gpu, nic");
  ExpectWhy("gpu,gpu", "item gpu given twice");
  ExpectWhy("OMP",
            "unknown item OMP: expected none or a comma list of omp, omp-cpus, gpu, nic (did you mean omp?)");
  ExpectWhy(
      " omp",
      "unknown item  omp: expected none or a comma list of omp, omp-cpus, gpu, nic (did you mean omp?)");
  ExpectWhy("none,omp", "unknown item none: expected none or a comma list of omp, omp-cpus, gpu, nic");
}

Test(export_grammar, reason_is_cut_to_the_buffer) {
  uint8_t bits = 0;
  char why[8];
  cr_assert_not(ParseExportText("bogus", &bits, why, sizeof why));
  cr_expect_str_eq(why, "unknown");
  std::string long_item(300, 'x');
  char big[160];
  cr_assert_not(ParseExportText(long_item.c_str(), &bits, big, sizeof big));
  cr_expect_lt(strlen(big), sizeof big);
}

Test(export_config, parsed_into_the_config) {
  Env env({"NUMABIND_EXPORT=omp,nic"});
  numabind::config::Config c;
  numabind::config::Error err;
  cr_assert(numabind::config::Parse(env.get(), &c, &err), "%s", err.text);
  cr_expect_eq(c.exports, kExportOmp | kExportNic);
  Env none({});
  cr_assert(numabind::config::Parse(none.get(), &c, &err));
  cr_expect_eq(c.exports, 0);
}

Test(export_config, bad_value_names_the_variable) {
  Env env({"NUMABIND_POLICY=node", "NUMABIND_EXPORT=omp,cuda"});
  numabind::config::Config c;
  numabind::config::Error err;
  cr_assert_not(numabind::config::Parse(env.get(), &c, &err));
  cr_expect_str_eq(
      err.text,
      "NUMABIND_EXPORT=omp,cuda: unknown item cuda: expected none or a comma list of omp, omp-cpus, "
      "gpu, nic");
  cr_expect_str_eq(c.policy.text, "node");  // the rest is still read
}
