// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one reading of lists of numbers and ranges (config/number_list.cc, config::Ranges): a range goes up
// or is one number; one that goes down, by any amount, is an error, in the variables and the kernel's lists
// alike.

#include <criterion/criterion.h>

#include <string>

#include "config/grammar.h"

using numabind::config::ListFault;
using numabind::config::Ranges;

namespace {

/// The fault of reading `text` whole (strict, or with blanks as in the kernel's lists).
ListFault FaultOf(const std::string& text, bool spaces = false) {
  Ranges r(text.data(), text.data() + text.size(), 0xffffffffu, spaces);
  uint32_t lo = 0, hi = 0;
  while (r.Next(&lo, &hi)) cr_expect_leq(lo, hi, "'%s' gave %u-%u", text.c_str(), lo, hi);
  return r.fault();
}

}  // namespace

// Issue 38: cpus:1-0 was accepted by a rule that only tested ranges going down by more than one.
Test(number_list, a_range_that_goes_down_is_an_error) {
  for (uint32_t a = 0; a < 5; ++a) {
    for (uint32_t b = 0; b < 5; ++b) {
      std::string range = std::to_string(a) + "-" + std::to_string(b);
      ListFault want = b < a ? ListFault::kGoesDown : ListFault::kNone;
      for (const std::string& text : {range, "7," + range, range + ",9"}) {
        cr_expect(FaultOf(text) == want, "'%s': fault %d", text.c_str(), static_cast<int>(FaultOf(text)));
        cr_expect(FaultOf(" " + text + "\n", true) == want, "'%s' as a kernel list", text.c_str());
      }
    }
  }
  cr_expect(FaultOf("4294967295-0") == ListFault::kGoesDown);
  cr_expect(FaultOf("4294967295-4294967294") == ListFault::kGoesDown);
}

// The ranges a list gives, in order.
Test(number_list, ranges_in_order) {
  std::string text = "0-3,8,10-11";
  Ranges r(text.data(), text.data() + text.size());
  uint32_t lo = 0, hi = 0;
  std::string got;
  while (r.Next(&lo, &hi)) got += std::to_string(lo) + ":" + std::to_string(hi) + " ";
  cr_expect_eq(got, "0:3 8:8 10:11 ");
  cr_expect(r.fault() == ListFault::kNone);
}
