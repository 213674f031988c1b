// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// LD_PRELOAD entries (base/preload.h): which one is numabind's, and the value without it, split as the
// dynamic loader splits it (spaces and colons).

#include <criterion/criterion.h>
#include <string.h>

#include <string>

#include "base/preload.h"

using numabind::base::IsShimEntry;
using numabind::base::PreloadsShim;
using numabind::base::WithoutShim;

namespace {
bool Entry(const char* s) { return IsShimEntry(s, strlen(s)); }
std::string Without(const char* value) {
  std::string out(strlen(value) + 1, 'x');
  size_t n = WithoutShim(value, &out[0]);
  cr_expect_eq(out[n], '\0');
  return out.substr(0, n);
}
}  // namespace

Test(preload, entry_is_the_library_by_its_file_name) {
  cr_expect(Entry("libnumabind.so"));
  cr_expect(Entry("/usr/lib/x86_64-linux-gnu/libnumabind.so"));
  cr_expect(Entry("/usr/$LIB/libnumabind.so"));  // the package's profile.d entry, for the loader to expand
  cr_expect_not(Entry("/usr/lib/libnumabind.so.1"));
  cr_expect_not(Entry("/usr/lib/xlibnumabind.so"));
  cr_expect_not(Entry("/usr/lib/libnumabind.so/x"));
  cr_expect_not(Entry(""));
}

Test(preload, value_is_searched_at_spaces_and_colons) {
  cr_expect(PreloadsShim("/a/libnumabind.so"));
  cr_expect(PreloadsShim("/a/libfoo.so:/a/libnumabind.so"));
  cr_expect(PreloadsShim("/a/libnumabind.so /a/libfoo.so"));
  cr_expect(PreloadsShim("::/a/libnumabind.so::"));
  cr_expect_not(PreloadsShim("/a/libfoo.so:/a/libbar.so"));
  cr_expect_not(PreloadsShim(""));
}

Test(preload, without_the_library_keeps_the_others_in_order) {
  cr_expect_eq(Without("/a/libnumabind.so"), "");
  cr_expect_eq(Without("/a/libfoo.so:/a/libnumabind.so"), "/a/libfoo.so");
  cr_expect_eq(Without("/a/libnumabind.so /a/libfoo.so  /b/libbar.so"), "/a/libfoo.so:/b/libbar.so");
  cr_expect_eq(Without(":/a/libfoo.so::libnumabind.so:/usr/$LIB/libnumabind.so:"), "/a/libfoo.so");
  cr_expect_eq(Without("/a/libfoo.so"), "/a/libfoo.so");
  cr_expect_eq(Without(""), "");
}
