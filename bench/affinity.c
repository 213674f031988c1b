// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `spawn_bench affinity --build DIR`: what NUMABIND_GUARD costs a call of sched_setaffinity, in ns per call
// (scripts/bench.sh runs it after the spawn table). Each variant is a process of its own (`spawn_bench
// affinity-loop N`, with the variant's preload and variables) that asks for the whole machine N times and
// reports the CPU time per call (its thread's) and where it ended; the variants are taken in turn,
// BENCH_AFFINITY_ROUNDS times (default 15), and the table shows each one's median. Knob: BENCH_AFFINITY_CALLS
// (per process, 20000).

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"

enum { kMaxCpus = 8192, kAffinityVariants = 5 };

static uint64_t ThreadCpuNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void ListOf(const cpu_set_t* set, size_t size, char* buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int c = 0; c < kMaxCpus && len + 24 < cap; ++c) {
    if (!CPU_ISSET_S((size_t)c, size, set)) continue;
    int e = c;
    while (e + 1 < kMaxCpus && CPU_ISSET_S((size_t)e + 1, size, set)) ++e;
    len += (size_t)snprintf(buf + len, cap - len, e > c ? "%s%d-%d" : "%s%d", len ? "," : "", c, e);
    c = e;
  }
}

int RunAffinityLoop(int argc, char** argv) {
  long calls = argc > 1 ? atol(argv[1]) : 20000;
  size_t size = CPU_ALLOC_SIZE(kMaxCpus);
  cpu_set_t* all = CPU_ALLOC(kMaxCpus);
  CPU_ZERO_S(size, all);
  for (int c = 0; c < get_nprocs_conf() && c < kMaxCpus; ++c) CPU_SET_S((size_t)c, size, all);
  for (int i = 0; i < 1000; ++i) sched_setaffinity(0, size, all);  // warm up; the guard's line is said here
  // CPU time of this thread, not wall time: a rank bound to one CPU of a busy machine waits for it more
  // often than an unbound process, and that is not the call's cost.
  uint64_t t0 = ThreadCpuNs();
  for (long i = 0; i < calls; ++i) sched_setaffinity(0, size, all);
  double ns = (double)(ThreadCpuNs() - t0) / (double)calls;
  char cpus[256];
  sched_getaffinity(0, size, all);
  ListOf(all, size, cpus, sizeof(cpus));
  printf("%.1f %s\n", ns, cpus);
  return 0;
}

int RunAffinityBench(int argc, char** argv) {
  Paths p;
  memset(&p, 0, sizeof(p));
  for (int i = 1; i + 1 < argc; i += 2)
    if (strcmp(argv[i], "--build") == 0) snprintf(p.build, sizeof(p.build), "%s", argv[i + 1]);
  ssize_t n = readlink("/proc/self/exe", p.self, sizeof(p.self) - 1);
  p.self[n > 0 ? n : 0] = '\0';
  snprintf(p.errlog, sizeof(p.errlog), "%s/bench/affinity-stderr.log", p.build);
  // The ranks are planned on the last CPU the bench may use (cpus:N), so that a widened rank shows.
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof(allowed), &allowed);
  int last = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) last = c;
  char lib[600], policy[64], rank_policy[64];
  snprintf(lib, sizeof(lib), "LD_PRELOAD=%s/libnumabind.so", p.build);
  snprintf(policy, sizeof(policy), "NUMABIND_POLICY=cpus:%d", last);
  snprintf(rank_policy, sizeof(rank_policy), "%d", last);
  static const char* const kNames[kAffinityVariants] = {"no preload", "shim loaded, guard off",
                                                        "rank, guard off", "guard on, not a rank",
                                                        "guard on, rank (narrowed)"};
  // Extra variables of each variant (NULL-terminated).
  const char* extra[kAffinityVariants][6] = {
      {NULL},
      {lib, NULL},
      {lib, policy, "LOCAL_RANK=0", NULL},
      {lib, policy, "NUMABIND_GUARD=1", NULL},
      {lib, policy, "LOCAL_RANK=0", "NUMABIND_GUARD=1", "NUMABIND_LOG=off", NULL},
  };
  long calls = getenv("BENCH_AFFINITY_CALLS") ? atol(getenv("BENCH_AFFINITY_CALLS")) : 20000;
  int rounds = getenv("BENCH_AFFINITY_ROUNDS") ? atoi(getenv("BENCH_AFFINITY_ROUNDS")) : 15;
  if (rounds < 1 || rounds > 1000) rounds = 15;
  char calls_arg[24];
  snprintf(calls_arg, sizeof(calls_arg), "%ld", calls);
  char* loop_argv[] = {p.self, "affinity-loop", calls_arg, NULL};
  double ns[kAffinityVariants][1000];
  char ended[kAffinityVariants][256] = {{0}};
  int failed = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int v = 0; v < kAffinityVariants; ++v) {
      char** env = BaseEnv();
      size_t k = 0;
      while (env[k]) k++;
      for (int e = 0; extra[v][e] != NULL; ++e) env[k++] = (char*)extra[v][e];
      env[k] = NULL;
      char* out;
      size_t len;
      int rc = RunCaptured(&p, loop_argv, env, &out, &len);
      ns[v][r] = 0;
      if (rc != 0 || sscanf(out, "%lf %255s", &ns[v][r], ended[v]) != 2) failed = 1;
      free(out);
      free(env);
    }
  }
  printf(
      "\nsched_setaffinity(0, the whole machine), CPU ns per call: median of %d processes x %ld calls "
      "(ranks planned on cpu %d)\n",
      rounds, calls, last);
  printf("  %-28s %10s  %s\n", "variant", "ns/call", "cpus after");
  for (int v = 0; v < kAffinityVariants; ++v)
    printf("  %-28s %10.1f  %s\n", kNames[v], MedianOf(ns[v], (size_t)rounds), ended[v]);
  int ok = strcmp(ended[4], rank_policy) == 0 && strcmp(ended[2], ended[0]) == 0;
  if (!ok)
    printf("  CHECK FAILED: the guarded rank should end on cpu %s, the unguarded one widen\n", rank_policy);
  if (failed) printf("  some runs failed: see %s\n", p.errlog);
  return ok && !failed ? 0 : 1;
}
