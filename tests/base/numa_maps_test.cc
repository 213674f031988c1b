// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// base/numa_maps.h: lines of /proc/PID/numa_maps as the kernel writes them, and this process's own.

#include "base/numa_maps.h"

#include <criterion/criterion.h>
#include <string.h>

using numabind::base::AddNumaMapsLine;
using numabind::base::NodeMemory;

namespace {

void Add(const char* line, NodeMemory* m) { AddNumaMapsLine(line, strlen(line), m); }

}  // namespace

// Anonymous lines (heap, stack, anon=) count per node as the rank's own; file lines apart; huge pages by
// their size; a node past the table in higher_kb.
Test(numa_maps, lines_count_per_node_by_kind_and_page_size) {
  NodeMemory m;
  Add("55d0c8a1e000 default heap anon=33 dirty=33 active=0 N0=30 N1=3 kernelpagesize_kB=4", &m);
  Add("7ffd3c1e9000 default stack anon=9 dirty=9 N1=9 kernelpagesize_kB=4", &m);
  Add("7f2a40000000 bind:1 anon=2 dirty=2 N1=2 kernelpagesize_kB=2048", &m);
  Add("7f2a5c3d1000 default file=/usr/lib/x86_64-linux-gnu/libc.so.6 mapped=40 mapmax=80 N0=40 "
      "kernelpagesize_kB=4",
      &m);
  Add("7f2a5c400000 default anon=1 N70=1 kernelpagesize_kB=4", &m);
  Add("7f2a5c500000 default", &m);  // nothing resident
  cr_expect_eq(m.anon_kb[0], 120u);
  cr_expect_eq(m.anon_kb[1], 12u + 36u + 4096u);
  cr_expect_eq(m.file_kb[0], 160u);
  cr_expect_eq(m.higher_kb, 4u);
  cr_expect_eq(m.AnonKb(), 120u + 4144u + 4u);
  cr_expect_eq(m.mappings, 6u);
}

// This process's own: a buffer smaller than a line cuts it (partial) and never overruns; a full read
// finds the 8 MiB it just touched among its anonymous memory.
Test(numa_maps, reads_its_own_and_cuts_at_its_bounds) {
  static char touched[8 << 20];
  memset(touched, 1, sizeof(touched));
  char buf[4096];
  NodeMemory whole;
  cr_assert(numabind::base::ReadNumaMaps("/proc/self/numa_maps", &whole, buf, sizeof(buf), 1 << 30));
  cr_expect_geq(whole.AnonKb(), 8u * 1024, "%llu", static_cast<unsigned long long>(whole.AnonKb()));
  cr_expect_not(whole.cut);
  NodeMemory small;
  char tiny[16];
  cr_assert(numabind::base::ReadNumaMaps("/proc/self/numa_maps", &small, tiny, sizeof(tiny), 1 << 30));
  cr_expect(small.cut);
  NodeMemory bounded;
  cr_assert(numabind::base::ReadNumaMaps("/proc/self/numa_maps", &bounded, buf, sizeof(buf), 10));
  cr_expect(bounded.cut);
  cr_expect_not(numabind::base::ReadNumaMaps("/nonexistent/numa_maps", &bounded, buf, sizeof(buf), 10));
}
