// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// CpuSet: membership, set algebra, the list syntax and the kernel's hex masks, including sets of more
// than 1024 CPUs (glibc's cpu_set_t stops at 1024).

#include <criterion/criterion.h>

#include <string>

#include "plan/plan_basis.h"
#include "planner/cpu_set.h"
#include "tests/planner/planner_test_util.h"

using numabind::planner::CpuSet;

static CpuSet List(const char* text) {
  CpuSet s;
  std::string err;
  cr_assert(CpuSet::ParseList(text, &s, &err), "ParseList(\"%s\"): %s", text, err.c_str());
  return s;
}

static CpuSet Hex(const char* text) {
  CpuSet s;
  std::string err;
  cr_assert(CpuSet::ParseHex(text, &s, &err), "ParseHex(\"%s\"): %s", text, err.c_str());
  return s;
}

Test(cpu_set, empty_set) {
  CpuSet s;
  cr_assert(s.Empty());
  cr_assert_eq(s.Count(), 0u);
  cr_assert_eq(s.First(), -1);
  cr_assert_eq(s.Last(), -1);
  STR_EQ(s.ToList(), "");
  STR_EQ(s.ToHex(), "0");
  cr_assert(s.Members().empty());
}

Test(cpu_set, set_test_clear) {
  CpuSet s;
  s.Set(3);
  s.Set(64);
  s.Set(200);
  cr_assert(s.Has(3) && s.Has(64) && s.Has(200));
  cr_assert(!s.Has(4) && !s.Has(63) && !s.Has(100000));
  cr_assert_eq(s.Count(), 3u);
  cr_assert_eq(s.First(), 3);
  cr_assert_eq(s.Last(), 200);
  cr_assert_eq(s.Next(3), 64);
  cr_assert_eq(s.Next(64), 200);
  cr_assert_eq(s.Next(200), -1);
  s.Clear(64);
  cr_assert(!s.Has(64));
  STR_EQ(s.ToList(), "3,200");
  s.Clear(5000);  // beyond the storage: nothing happens
  cr_assert_eq(s.Count(), 2u);
}

Test(cpu_set, ranges) {
  STR_EQ(CpuSet::Range(0, 3).ToList(), "0-3");
  STR_EQ(CpuSet::Range(60, 130).ToList(), "60-130");
  cr_assert_eq(CpuSet::Range(60, 130).Count(), 71u);
  STR_EQ(CpuSet::Range(0, 127).ToList(), "0-127");
  cr_assert(CpuSet::Range(5, 4).Empty());
  STR_EQ(CpuSet::Range(7, 7).ToList(), "7");
}

Test(cpu_set, parse_and_format_list) {
  STR_EQ(List("0-3,8,10-11").ToList(), "0-3,8,10-11");
  STR_EQ(List("0-3,8,10-11\n").ToList(), "0-3,8,10-11");  // sysfs' trailing newline
  STR_EQ(List(" 1 , 2 , 3 ").ToList(), "1-3");
  STR_EQ(List("5,1,3,2,4").ToList(), "1-5");  // any order, merged
  STR_EQ(List("0-7,4-12").ToList(), "0-12");  // overlaps
  STR_EQ(List("63-64").ToList(), "63-64");    // across a word boundary
  STR_EQ(List("").ToList(), "");
  cr_assert(List("").Empty());
  cr_assert_eq(List("0-3,8,10-11").Count(), 7u);
}

Test(cpu_set, parse_list_errors) {
  CpuSet s;
  std::string err;
  const char* bad[] = {"a",   "1-",  "-1",    "3-1",         "1,,2",     "1,",
                       "1 2", "0x3", "1-2-3", "99999999999", "0-4194304"};
  for (const char* text : bad) {
    err.clear();
    cr_assert(!CpuSet::ParseList(text, &s, &err), "\"%s\" should not parse", text);
    cr_assert(err.find(text) != std::string::npos, "the error names the text: %s", err.c_str());
  }
  cr_assert(CpuSet::ParseList("1-2", &s, &err));
  cr_assert(CpuSet::ParseList("3-1", &s, &err) == false && err.find("decreasing") != std::string::npos);
}

Test(cpu_set, hex_masks_like_proc_status) {
  // /proc/self/status: Cpus_allowed on a machine with 40 CPUs, all allowed.
  STR_EQ(Hex("ff,ffffffff").ToList(), "0-39");
  STR_EQ(Hex("3").ToList(), "0-1");
  STR_EQ(Hex("00000000,00000001").ToList(), "0");
  STR_EQ(Hex("80000000,00000000").ToList(), "63");
  STR_EQ(Hex("f0f0").ToList(), "4-7,12-15");
  STR_EQ(Hex("0").ToList(), "");
  STR_EQ(Hex("ff\n").ToList(), "0-7");
  // One long group without commas.
  STR_EQ(Hex("10000000000000000").ToList(), "64");
  // Formatting: minimal first group, or the width /proc uses for nr_cpu_ids bits.
  STR_EQ(List("0-39").ToHex(), "ff,ffffffff");
  STR_EQ(List("0-1").ToHex(), "3");
  STR_EQ(List("0-1").ToHex(2), "3");
  STR_EQ(List("0").ToHex(64), "00000000,00000001");
  STR_EQ(List("0-3").ToHex(40), "00,0000000f");
  STR_EQ(List("32").ToHex(), "1,00000000");
  STR_EQ(CpuSet().ToHex(8), "00");
}

Test(cpu_set, hex_masks_like_hwloc) {
  // hwloc XML attributes: "0x"-prefixed groups, empty groups for zero (power8gpudistances.xml).
  STR_EQ(Hex("0x00000303,0x03030000,,0x03030303").ToList(), "0-1,8-9,16-17,24-25,80-81,88-89,96-97,104-105");
  STR_EQ(Hex("0x0000f06f").ToList(), "0-3,5-6,12-15");
  STR_EQ(Hex("0x000f000f,0x000f000f").ToList(), "0-3,16-19,32-35,48-51");
}

Test(cpu_set, hex_errors) {
  CpuSet s;
  std::string err;
  const char* bad[] = {"", "xyz", "0x", "123456789,0", "f,g"};
  for (const char* text : bad) cr_assert(!CpuSet::ParseHex(text, &s, &err), "\"%s\" should not parse", text);
}

Test(cpu_set, round_trips) {
  const char* lists[] = {"0", "1-3,5", "0-1023", "1023-1024", "7,100-200,4000"};
  for (const char* l : lists) {
    CpuSet a = List(l);
    STR_EQ(a.ToList(), l);
    cr_assert(Hex(a.ToHex().c_str()) == a, "hex round trip of %s via %s", l, a.ToHex().c_str());
  }
}

Test(cpu_set, algebra) {
  CpuSet a = List("0-7"), b = List("4-11");
  STR_EQ(a.Union(b).ToList(), "0-11");
  STR_EQ(a.Intersect(b).ToList(), "4-7");
  STR_EQ(a.Minus(b).ToList(), "0-3");
  cr_assert(a.Intersects(b));
  cr_assert(!a.Intersects(List("8-9")));
  cr_assert(List("1-2").IsSubsetOf(a));
  cr_assert(!b.IsSubsetOf(a));
  cr_assert(CpuSet().IsSubsetOf(a));
  // Sets of different storage sizes.
  CpuSet big = List("3,2000");
  STR_EQ(a.Intersect(big).ToList(), "3");
  STR_EQ(big.Intersect(a).ToList(), "3");
  STR_EQ(a.Union(big).ToList(), "0-7,2000");
  STR_EQ(big.Minus(a).ToList(), "2000");
  // Equality ignores trailing zero words.
  CpuSet c = List("3,2000");
  c.Clear(2000);
  cr_assert(c == List("3"));
  cr_assert(c != List("4"));
  // In place.
  CpuSet d = List("0-3");
  d.UnionWith(List("10")).IntersectWith(List("1-10")).Subtract(List("2"));
  STR_EQ(d.ToList(), "1,3,10");
}

Test(cpu_set, more_than_1024_cpus) {
  CpuSet s = List("0-2047");
  cr_assert_eq(s.Count(), 2048u);
  cr_assert_eq(s.WordCount(), 32u);
  cr_assert_eq(s.Last(), 2047);
  STR_EQ(s.ToList(), "0-2047");
  std::string hex = s.ToHex();
  cr_assert_eq(hex.size(), 64u * 8 + 63u);  // 64 groups of 8 digits and 63 commas
  cr_assert(Hex(hex.c_str()) == s);
  CpuSet odd;
  for (uint32_t i = 1; i < 4096; i += 2) odd.Set(i);
  cr_assert_eq(odd.Count(), 2048u);
  STR_EQ(odd.Intersect(List("1024-1031,4095")).ToList(), "1025,1027,1029,1031,4095");
  STR_EQ(List("1500,2047,3000-3001").ToList(), "1500,2047,3000-3001");
  STR_EQ(List("1500,2047,3000-3001").ToHex(4096).substr(0, 9), "00000000,");
}

Test(cpu_set, words_for_the_kernel) {
  CpuSet s = List("0,63,64,130");
  uint64_t words[4] = {9, 9, 9, 9};
  s.CopyTo(words, 4);
  cr_assert_eq(words[0], (uint64_t{1} << 63) | 1);
  cr_assert_eq(words[1], 1u);
  cr_assert_eq(words[2], 4u);
  cr_assert_eq(words[3], 0u);
  cr_assert_eq(s.UsedWords(), 3u);
  uint64_t small[1];
  s.CopyTo(small, 1);  // truncates
  cr_assert_eq(small[0], (uint64_t{1} << 63) | 1);
  cr_assert(CpuSet::FromWords(words, 4) == s);
}
