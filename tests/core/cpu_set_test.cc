// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// CpuSet: membership, set algebra, the list syntax and the kernel's hex masks, including sets of more
// than 1024 CPUs (glibc's cpu_set_t stops at 1024).

#include <criterion/criterion.h>

#include <string>

#include "core/cpu_set.h"
#include "core/plan_basis.h"

using numabind::core::CpuSet;

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
  cr_assert_str_eq(s.ToList().c_str(), "");
  cr_assert_str_eq(s.ToHex().c_str(), "0");
  cr_assert(s.Members().empty());
}

Test(cpu_set, set_test_clear) {
  CpuSet s;
  s.Set(3);
  s.Set(64);
  s.Set(200);
  cr_assert(s.Test(3) && s.Test(64) && s.Test(200));
  cr_assert(!s.Test(4) && !s.Test(63) && !s.Test(100000));
  cr_assert_eq(s.Count(), 3u);
  cr_assert_eq(s.First(), 3);
  cr_assert_eq(s.Last(), 200);
  cr_assert_eq(s.Next(3), 64);
  cr_assert_eq(s.Next(64), 200);
  cr_assert_eq(s.Next(200), -1);
  s.Clear(64);
  cr_assert(!s.Test(64));
  cr_assert_str_eq(s.ToList().c_str(), "3,200");
  s.Clear(5000);  // beyond the storage: nothing happens
  cr_assert_eq(s.Count(), 2u);
}

Test(cpu_set, ranges) {
  cr_assert_str_eq(CpuSet::Range(0, 3).ToList().c_str(), "0-3");
  cr_assert_str_eq(CpuSet::Range(60, 130).ToList().c_str(), "60-130");
  cr_assert_eq(CpuSet::Range(60, 130).Count(), 71u);
  cr_assert_str_eq(CpuSet::Range(0, 127).ToList().c_str(), "0-127");
  cr_assert(CpuSet::Range(5, 4).Empty());
  cr_assert_str_eq(CpuSet::Range(7, 7).ToList().c_str(), "7");
}

Test(cpu_set, parse_and_format_list) {
  cr_assert_str_eq(List("0-3,8,10-11").ToList().c_str(), "0-3,8,10-11");
  cr_assert_str_eq(List("0-3,8,10-11\n").ToList().c_str(), "0-3,8,10-11");  // sysfs' trailing newline
  cr_assert_str_eq(List(" 1 , 2 , 3 ").ToList().c_str(), "1-3");
  cr_assert_str_eq(List("5,1,3,2,4").ToList().c_str(), "1-5");           // any order, merged
  cr_assert_str_eq(List("0-7,4-12").ToList().c_str(), "0-12");           // overlaps
  cr_assert_str_eq(List("63-64").ToList().c_str(), "63-64");             // across a word boundary
  cr_assert_str_eq(List("").ToList().c_str(), "");
  cr_assert(List("").Empty());
  cr_assert_eq(List("0-3,8,10-11").Count(), 7u);
}

Test(cpu_set, parse_list_errors) {
  CpuSet s;
  std::string err;
  const char* bad[] = {"a", "1-", "-1", "3-1", "1,,2", "1,", "1 2", "0x3", "1-2-3", "99999999999", "0-4194304"};
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
  cr_assert_str_eq(Hex("ff,ffffffff").ToList().c_str(), "0-39");
  cr_assert_str_eq(Hex("3").ToList().c_str(), "0-1");
  cr_assert_str_eq(Hex("00000000,00000001").ToList().c_str(), "0");
  cr_assert_str_eq(Hex("80000000,00000000").ToList().c_str(), "63");
  cr_assert_str_eq(Hex("f0f0").ToList().c_str(), "4-7,12-15");
  cr_assert_str_eq(Hex("0").ToList().c_str(), "");
  cr_assert_str_eq(Hex("ff\n").ToList().c_str(), "0-7");
  // One long group without commas.
  cr_assert_str_eq(Hex("10000000000000000").ToList().c_str(), "64");
  // Formatting: minimal first group, or the width /proc uses for nr_cpu_ids bits.
  cr_assert_str_eq(List("0-39").ToHex().c_str(), "ff,ffffffff");
  cr_assert_str_eq(List("0-1").ToHex().c_str(), "3");
  cr_assert_str_eq(List("0-1").ToHex(2).c_str(), "3");
  cr_assert_str_eq(List("0").ToHex(64).c_str(), "00000000,00000001");
  cr_assert_str_eq(List("0-3").ToHex(40).c_str(), "00,0000000f");
  cr_assert_str_eq(List("32").ToHex().c_str(), "1,00000000");
  cr_assert_str_eq(CpuSet().ToHex(8).c_str(), "00");
}

Test(cpu_set, hex_masks_like_hwloc) {
  // hwloc XML attributes: "0x"-prefixed groups, empty groups for zero (power8gpudistances.xml).
  cr_assert_str_eq(Hex("0x00000303,0x03030000,,0x03030303").ToList().c_str(),
                   "0-1,8-9,16-17,24-25,80-81,88-89,96-97,104-105");
  cr_assert_str_eq(Hex("0x0000f06f").ToList().c_str(), "0-3,5-6,12-15");
  cr_assert_str_eq(Hex("0x000f000f,0x000f000f").ToList().c_str(), "0-3,16-19,32-35,48-51");
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
    cr_assert_str_eq(a.ToList().c_str(), l);
    cr_assert(Hex(a.ToHex().c_str()) == a, "hex round trip of %s via %s", l, a.ToHex().c_str());
  }
}

Test(cpu_set, algebra) {
  CpuSet a = List("0-7"), b = List("4-11");
  cr_assert_str_eq(a.Union(b).ToList().c_str(), "0-11");
  cr_assert_str_eq(a.Intersect(b).ToList().c_str(), "4-7");
  cr_assert_str_eq(a.Minus(b).ToList().c_str(), "0-3");
  cr_assert(a.Intersects(b));
  cr_assert(!a.Intersects(List("8-9")));
  cr_assert(List("1-2").IsSubsetOf(a));
  cr_assert(!b.IsSubsetOf(a));
  cr_assert(CpuSet().IsSubsetOf(a));
  // Sets of different storage sizes.
  CpuSet big = List("3,2000");
  cr_assert_str_eq(a.Intersect(big).ToList().c_str(), "3");
  cr_assert_str_eq(big.Intersect(a).ToList().c_str(), "3");
  cr_assert_str_eq(a.Union(big).ToList().c_str(), "0-7,2000");
  cr_assert_str_eq(big.Minus(a).ToList().c_str(), "2000");
  // Equality ignores trailing zero words.
  CpuSet c = List("3,2000");
  c.Clear(2000);
  cr_assert(c == List("3"));
  cr_assert(c != List("4"));
  // In place.
  CpuSet d = List("0-3");
  d.UnionWith(List("10")).IntersectWith(List("1-10")).Subtract(List("2"));
  cr_assert_str_eq(d.ToList().c_str(), "1,3,10");
}

Test(cpu_set, more_than_1024_cpus) {
  CpuSet s = List("0-2047");
  cr_assert_eq(s.Count(), 2048u);
  cr_assert_eq(s.WordCount(), 32u);
  cr_assert_eq(s.Last(), 2047);
  cr_assert_str_eq(s.ToList().c_str(), "0-2047");
  std::string hex = s.ToHex();
  cr_assert_eq(hex.size(), 64u * 8 + 63u);  // 64 groups of 8 digits and 63 commas
  cr_assert(Hex(hex.c_str()) == s);
  CpuSet odd;
  for (uint32_t i = 1; i < 4096; i += 2) odd.Set(i);
  cr_assert_eq(odd.Count(), 2048u);
  cr_assert_str_eq(odd.Intersect(List("1024-1031,4095")).ToList().c_str(), "1025,1027,1029,1031,4095");
  cr_assert_str_eq(List("1500,2047,3000-3001").ToList().c_str(), "1500,2047,3000-3001");
  cr_assert_str_eq(List("1500,2047,3000-3001").ToHex(4096).substr(0, 9).c_str(), "00000000,");
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
