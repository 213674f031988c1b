// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one filter between text the command did not write (logs, /proc) and a terminal (cli/printable.h):
// C0, DEL and C1 escaped, in text and in JSON; everything else, UTF-8 included, as it is.

#include "cli/printable.h"

#include "tests/cli/cli_util.h"

using numabind::cli::JsonString;
using numabind::cli::Printable;

Test(printable, text_escapes_c0_del_and_c1) {
  EXPECT_STREQ(Printable("a\x1b[2Jb\x07\x7f\n"), "a\\x1b[2Jb\\x07\\x7f\\x0a");
  EXPECT_STREQ(Printable("\xc2\x9b"
                         "2J \xc2\x80\xc2\x9f"),
               "\\u009b2J \\u0080\\u009f");
  // UTF-8 that is no control stays, and so does a 0xc2 that begins none (or ends the text).
  EXPECT_STREQ(Printable("caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xc2"), "caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xc2");
  EXPECT_STREQ(Printable(std::string("a\0b", 3)), "a\\x00b");
}

Test(printable, json_escapes_c0_del_and_c1) {
  EXPECT_STREQ(JsonString("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_STREQ(JsonString("\x1b[31m\x7f\xc2\x9b"
                          "2J\t\r"),
               "\"\\u001b[31m\\u007f\\u009b2J\\t\\r\"");
  EXPECT_STREQ(JsonString("caf\xc3\xa9 \xc2\xa0 \xc2"), "\"caf\xc3\xa9 \xc2\xa0 \xc2\"");
  cr_assert_eq(numabind::test::FirstControl(JsonString("\x1b\x7f\xc2\x85")), std::string::npos);
}
