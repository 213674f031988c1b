// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The one JSON writer (base/json_writer.h): each output's escaping (strict UTF-8 for the log, a terminal's
// for the command), nesting and layout, and the two ways of using the buffer. A fixed buffer of any size
// gives strict JSON that leaves members out whole, cuts strings between characters, never writes past the
// buffer, and says "truncated":true exactly when something is missing (checked for every size by Python's
// json module); a flushing writer gives the same text as an unlimited buffer, whatever its buffer's size.

#include "base/json_writer.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

using numabind::base::JsonEscape;
using numabind::base::JsonWriter;

namespace {

#define EXPECT_TEXT(actual, expected)                                                               \
  do {                                                                                              \
    const std::string actual_ = (actual), expected_ = (expected);                                   \
    cr_expect(actual_ == expected_, "%s\n  actual:   %s\n  expected: %s", #actual, actual_.c_str(), \
              expected_.c_str());                                                                   \
  } while (0)

/// One string value under `escape`.
std::string Quote(const std::string& s, JsonEscape escape = JsonEscape::kStrictUtf8) {
  char buf[1024];
  JsonWriter j(buf, sizeof(buf), escape);
  j.String(s.data(), s.size());
  return std::string(j.data(), j.size());
}

bool Append(void* context, const char* data, size_t n) {
  static_cast<std::string*>(context)->append(data, n);
  return true;
}

/// A fill for Verbatim: the text `data` points to, when it fits.
size_t FillText(const void* data, char* at, size_t room) {
  const std::string* text = static_cast<const std::string*>(data);
  if (text->size() <= room) text->copy(at, text->size());
  return text->size();
}

const std::string kList = "0-3,8,10-11";

/// A log-like document: numbers, literals, strings with escapes and 3-byte characters, nesting, Verbatim.
void Document(JsonWriter* j) {
  j->TruncatedKey("truncated");
  j->BeginObject().Key("time").String("2026-12-02T17:30:00.123Z").Key("pid").Int(-4242);
  j->Key("rank").Uint(18446744073709551615ULL).Key("ok").Bool(true).Key("device").Null();
  j->Key("command").String("./tr\"ain \xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\t\x01 \xff end");
  j->Key("cpus").Verbatim(FillText, &kList);
  j->Key("list").BeginArray().Uint(1).String("two").BeginObject().Key("x").Bool(false).EndObject();
  j->BeginArray().EndArray().Uint(123456789).EndArray();
  j->Key("nested").BeginObject().Key("a").BeginArray().Uint(7).Uint(8).EndArray().EndObject();
  j->Key("last").Uint(5).EndObject();
}

std::string FullDocument() {
  char buf[4096];
  JsonWriter j(buf, sizeof(buf), JsonEscape::kStrictUtf8);
  Document(&j);
  size_t n = j.Finish();
  cr_assert(!j.truncated());
  return std::string(j.data(), n);
}

}  // namespace

Test(json_writer, strict_utf8_escapes_controls_and_replaces_what_is_not_utf8) {
  // Quotes, backslashes, control characters, DEL, and bytes that are not UTF-8: a lone 0xff, a lead byte
  // without its continuation, an encoded surrogate, an overlong '/', a 3-byte character missing its last
  // byte; each maximal invalid subpart becomes one U+FFFD (shim/json_log_test.cc's hostile name).
  EXPECT_TEXT(
      Quote("q\"b\\s\x01t\te\nd\r\x7f \xff|\xc3 |\xed\xa0\x80|\xc0\xaf|\xe2\x82|\xe2\x82\xac|\xc3\xa9."),
      "\"q\\\"b\\\\s\\u0001t\\te\\nd\\r\\u007f \xef\xbf\xbd|\xef\xbf\xbd |\xef\xbf\xbd\xef\xbf\xbd"
      "\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd|\xe2\x82\xac|\xc3\xa9.\"");
  // C1 written as UTF-8 is a character like another in the log (report escapes it when it prints it).
  EXPECT_TEXT(Quote("\xc2\x85 \xf0\x9f\x98\x80"), "\"\xc2\x85 \xf0\x9f\x98\x80\"");
  EXPECT_TEXT(Quote(std::string("a\0b", 3)), "\"a\\u0000b\"");
  EXPECT_TEXT(Quote("\xf4\x90\x80\x80"),
              "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // > U+10FFFF
}

Test(json_writer, terminal_escapes_c1_too_and_keeps_other_bytes) {
  JsonEscape t = JsonEscape::kTerminal;
  EXPECT_TEXT(Quote("\x1b[31m\x7f\xc2\x9b"
                    "2J\t\r\"\\",
                    t),
              "\"\\u001b[31m\\u007f\\u009b2J\\t\\r\\\"\\\\\"");
  EXPECT_TEXT(Quote("caf\xc3\xa9 \xc2\xa0 \xff \xc2", t), "\"caf\xc3\xa9 \xc2\xa0 \xff \xc2\"");
  // A C1 character after a byte that is not UTF-8 is still one.
  EXPECT_TEXT(Quote("\xe2\xc2\x85", t), "\"\xe2\\u0085\"");
}

Test(json_writer, nests_with_commas_and_lays_out_lines) {
  char buf[512];
  JsonWriter j(buf, sizeof(buf), JsonEscape::kStrictUtf8);
  j.BeginObject().Key("a").Int(INT64_MIN).Key("b").Uint(UINT64_MAX).Key("c").BeginArray();
  j.Bool(true).Bool(false).Null().BeginObject().EndObject().BeginArray().EndArray().EndArray();
  j.Key("k\"ey").String(std::string("x")).EndObject();
  size_t n = j.Finish();
  EXPECT_TEXT(std::string(j.data(), n),
              "{\"a\":-9223372036854775808,\"b\":18446744073709551615,\"c\":[true,false,null,{},[]],"
              "\"k\\\"ey\":\"x\"}\n");
  // The command's arrays: one object per line, indented.
  for (int count : {0, 2}) {
    JsonWriter k(buf, sizeof(buf), JsonEscape::kTerminal);
    k.BeginArray();
    for (int i = 0; i < count; ++i) k.Break(2).BeginObject().Key("i").Int(i).EndObject();
    n = k.Break(0).EndArray().Finish();
    EXPECT_TEXT(std::string(k.data(), n), count == 0 ? "[\n]\n" : "[\n  {\"i\":0},\n  {\"i\":1}\n]\n");
  }
  // Too deep: the container is null, what it holds is left out, and the text stays JSON.
  JsonWriter d(buf, sizeof(buf), JsonEscape::kStrictUtf8);
  for (size_t i = 0; i <= JsonWriter::kMaxDepth; ++i) d.BeginArray();
  d.Uint(1);
  for (size_t i = 0; i <= JsonWriter::kMaxDepth; ++i) d.EndArray();
  n = d.Finish();
  EXPECT_TEXT(std::string(d.data(), n), std::string(16, '[') + "null" + std::string(16, ']') + "\n");
  cr_expect(d.truncated());
}

Test(json_writer, a_full_buffer_leaves_members_out_whole_and_says_truncated) {
  // Room for 12 bytes of members: the number that does not fit goes, the one after it stays.
  char buf[64];
  JsonWriter j(buf, 32, JsonEscape::kStrictUtf8);
  j.TruncatedKey("truncated");
  j.BeginObject().Key("a").Uint(1).Key("big").Uint(123456789012345).Key("b").Uint(2).EndObject();
  EXPECT_TEXT(std::string(j.data(), j.Finish()), "{\"a\":1,\"b\":2,\"truncated\":true}\n");
  cr_expect(j.truncated() && !j.left_out_whole());
  // A string is cut between two characters, its quote closed.
  JsonWriter s(buf, 32, JsonEscape::kStrictUtf8);
  s.TruncatedKey("truncated");
  s.BeginObject().Key("s").String("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac").EndObject();
  EXPECT_TEXT(std::string(s.data(), s.Finish()), "{\"s\":\"\xe2\x82\xac\",\"truncated\":true}\n");
  // And after `max` bytes of output whatever the room (the log's command: 512).
  JsonWriter m(buf, sizeof(buf), JsonEscape::kStrictUtf8);
  m.TruncatedKey("truncated");
  m.BeginObject().Key("c").String("abcdef", 6, 5).EndObject();
  EXPECT_TEXT(std::string(m.data(), m.Finish()), "{\"c\":\"abc\",\"truncated\":true}\n");
  // A Verbatim text is whole or not there, and left_out_whole says a larger buffer would hold it.
  JsonWriter v(buf, 32, JsonEscape::kStrictUtf8);
  v.TruncatedKey("truncated");
  std::string list = "0,2,4,6,8,10,12,14";
  v.BeginObject().Key("cpus").Verbatim(FillText, &list).Key("n").Uint(3).EndObject();
  EXPECT_TEXT(std::string(v.data(), v.Finish()), "{\"n\":3,\"truncated\":true}\n");
  cr_expect(v.left_out_whole());
  // Containers close whatever is left out of them.
  JsonWriter a(buf, 32, JsonEscape::kStrictUtf8);
  a.TruncatedKey("truncated");
  a.BeginObject().Key("a").BeginArray();
  for (int i = 0; i < 10; ++i) a.Uint(1000 + i);
  a.EndArray().EndObject();
  EXPECT_TEXT(std::string(a.data(), a.Finish()), "{\"a\":[1000],\"truncated\":true}\n");
  // The caller's own cut is said too; without a truncated key, only truncated() says it.
  JsonWriter c(buf, sizeof(buf), JsonEscape::kStrictUtf8);
  c.TruncatedKey("truncated");
  c.SayTruncated();
  c.BeginObject().EndObject();
  EXPECT_TEXT(std::string(c.data(), c.Finish()), "{\"truncated\":true}\n");
  JsonWriter q(buf, 16, JsonEscape::kStrictUtf8);
  q.BeginObject().Key("a").Uint(1).Key("b").Uint(123456789).EndObject();
  EXPECT_TEXT(std::string(q.data(), q.Finish()), "{\"a\":1}\n");
  cr_expect(q.truncated());
}

// Every size from 1 byte to more than the text: strict UTF-8, one JSON object (or nothing), within the
// buffer, each member whole or, for a string, a prefix cut between characters, "truncated":true exactly
// when something is missing.
Test(json_writer, every_buffer_size_gives_strict_json_that_says_what_it_left_out, .timeout = 30) {
  std::string full = FullDocument();
  char dir[] = "/tmp/numabind-json-writer-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  std::string path = std::string(dir) + "/outputs";
  FILE* f = fopen(path.c_str(), "w");
  cr_assert_not_null(f);
  fputs(full.c_str(), f);
  constexpr size_t kGuard = 32;
  for (size_t cap = 1; cap <= full.size() + 24; ++cap) {
    std::vector<char> buf(cap + kGuard, '\x5a');
    JsonWriter j(buf.data(), cap, JsonEscape::kStrictUtf8);
    Document(&j);
    size_t n = j.Finish();
    cr_assert_leq(n, cap - (cap > 0 ? 1 : 0), "cap %zu: %zu bytes", cap, n);
    cr_assert_eq(buf[n], '\0', "cap %zu: not NUL-terminated", cap);
    for (size_t k = cap; k < cap + kGuard; ++k) cr_assert_eq(buf[k], '\x5a', "cap %zu: wrote past it", cap);
    cr_assert_eq(j.truncated(), std::string(buf.data(), n) != full, "cap %zu: %s", cap, buf.data());
    if (cap >= full.size() + 1 + sizeof(",\"truncated\":true") - 1) cr_assert(!j.truncated(), "cap %zu", cap);
    fprintf(f, "%zu %s", cap, n > 0 ? buf.data() : "\n");
  }
  fclose(f);
  std::string check = std::string(dir) + "/check.py";
  f = fopen(check.c_str(), "w");
  cr_assert_not_null(f);
  fputs(
      "import json, sys\n"
      "lines = open(sys.argv[1], 'rb').read().split(b'\\n')[:-1]\n"
      "full = json.loads(lines[0].decode('utf-8'))\n"
      "def part(a, b):\n"
      "    if isinstance(b, str): return isinstance(a, str) and b.startswith(a)\n"
      "    if isinstance(b, dict):\n"
      "        keys = [k for k in b if k in a]\n"
      "        return list(a) == keys and all(part(a[k], b[k]) for k in a)\n"
      "    if isinstance(b, list):\n"
      "        i = 0\n"
      "        for x in a:\n"
      "            while i < len(b) and not part(x, b[i]): i += 1\n"
      "            if i == len(b): return False\n"
      "            i += 1\n"
      "        return True\n"
      "    return a == b and type(a) == type(b)\n"
      "bad = []\n"
      "for raw in lines[1:]:\n"
      "    cap, _, text = raw.partition(b' ')\n"
      "    if not text: continue\n"
      "    try:\n"
      "        o = json.loads(text.decode('utf-8', 'strict'))\n"
      "        cut = o.pop('truncated', False)\n"
      "        assert cut is (o != full), 'truncated is %s' % cut\n"
      "        assert part(o, full), 'not a part of the whole'\n"
      "    except Exception as e:\n"
      "        bad.append('%s: %s: %r' % (cap.decode(), e, text[:200]))\n"
      "print('\\n'.join(bad) if bad else 'ok')\n",
      f);
  fclose(f);
  std::string cmd = "/usr/bin/python3 " + check + " " + path;
  FILE* p = popen(cmd.c_str(), "r");
  cr_assert_not_null(p);
  std::string said;
  char line[4096];
  while (fgets(line, sizeof(line), p) != nullptr) said += line;
  pclose(p);
  unlink(path.c_str());
  unlink(check.c_str());
  rmdir(dir);
  EXPECT_TEXT(said, "ok\n");
}

Test(json_writer, a_flushing_writer_has_no_size_limit) {
  std::string full = FullDocument();
  for (size_t cap : {16, 17, 23, 64, 4096}) {
    std::string out;
    std::vector<char> buf(cap);
    JsonWriter j(buf.data(), cap, JsonEscape::kStrictUtf8, Append, &out);
    Document(&j);
    size_t n = j.Finish();
    cr_expect(!j.truncated() && !j.left_out_whole() && !j.failed(), "cap %zu", cap);
    cr_expect_eq(n, full.size(), "cap %zu", cap);
    EXPECT_TEXT(out, full);
  }
  // A string far larger than the buffer.
  std::string big(100000, 'x'), out;
  char small[32];
  JsonWriter j(small, sizeof(small), JsonEscape::kTerminal, Append, &out);
  j.BeginArray().String(big).EndArray().Finish();
  EXPECT_TEXT(out, "[\"" + big + "\"]\n");
}
