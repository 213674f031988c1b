// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The spawner: the launcher being measured, run by the driver as a separate process per variant and method.

#include <errno.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char** environ;

enum { kMaxRanks = 64, kMaxArgs = 32 };

// Writes all of buf to fd 1; the driver reads it through a pipe.
static int WriteAll(const void* buf, size_t len) {
  const char* p = buf;
  while (len) {
    ssize_t w = write(1, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    p += w;
    len -= (size_t)w;
  }
  return 1;
}

// Per rank: the child's argv (ARGs with "@CPU@" replaced by the rank's CPU from CPUMAP) and environment
// (ours plus LOCAL_RANK and LOCAL_WORLD_SIZE when RANKS > 0), built before timing starts.
typedef struct {
  char* argv[kMaxArgs + 1];
  char** envp;
  int cpu;  ///< the rank's CPU, for a raw binding
} Launch;

static void BuildLaunch(Launch* l, int rank, int ranks, const char* cpumap, int argc, char** args) {
  char cpu[16] = "0";
  int field = 0;
  for (const char* p = cpumap; *p; field++) {  // the rank-th comma-separated entry, else the first
    size_t len = strcspn(p, ",");
    if (field == 0 || field == (ranks ? rank % ranks : 0)) snprintf(cpu, sizeof(cpu), "%.*s", (int)len, p);
    p += len + (p[len] == ',');
  }
  l->cpu = atoi(cpu);
  for (int i = 0; i < argc && i < kMaxArgs; i++) {
    const char* at = strstr(args[i], "@CPU@");
    if (!at) {
      l->argv[i] = args[i];
      continue;
    }
    size_t cap = strlen(args[i]) + sizeof(cpu);
    l->argv[i] = malloc(cap);
    snprintf(l->argv[i], cap, "%.*s%s%s", (int)(at - args[i]), args[i], cpu, at + 5);
  }
  l->argv[argc < kMaxArgs ? argc : kMaxArgs] = NULL;
  if (ranks == 0) {
    l->envp = environ;
    return;
  }
  size_t n = 0;
  while (environ[n]) n++;
  l->envp = calloc(n + 3, sizeof(char*));
  memcpy(l->envp, environ, n * sizeof(char*));
  l->envp[n] = malloc(48);
  snprintf(l->envp[n], 48, "LOCAL_RANK=%d", rank);
  l->envp[n + 1] = malloc(48);
  snprintf(l->envp[n + 1], 48, "LOCAL_WORLD_SIZE=%d", ranks);
}

// Binds the calling thread to cpu (raw_bind) or to `was` (restore); the floor of any binding spawn.
static void BindTo(int cpu, const cpu_set_t* was) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof(cpu_set_t), was ? was : &set);
}

// Starts one child; returns its pid or -1. raw_bind: the child runs on l->cpu, bound the cheapest way a
// launcher can, without any library: the fork child binds itself before execve; posix_spawn's child
// inherits the binding of the thread that calls it, which then takes its own back (as the shim does).
static pid_t Start(int use_fork, int raw_bind, const char* prog, const Launch* l) {
  pid_t pid = -1;
  if (!use_fork) {
    cpu_set_t was;
    if (raw_bind) {
      sched_getaffinity(0, sizeof(was), &was);
      BindTo(l->cpu, NULL);
    }
    int e = posix_spawn(&pid, prog, NULL, NULL, l->argv, l->envp);
    if (raw_bind) BindTo(0, &was);
    return e ? -1 : pid;
  }
  pid = fork();
  if (pid == 0) {
    if (raw_bind) BindTo(l->cpu, NULL);
    execve(prog, l->argv, l->envp);
    _exit(127);
  }
  return pid;
}

// Waits for pid; returns its exit status (128+signal when killed, -1 on error) and, when cpu_ns is given, the
// CPU time it used (user + system: the kernel's precise runtime, split by ticks but summing exactly).
static int Reap(pid_t pid, uint64_t* cpu_ns) {
  int status = 0;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) return -1;
  }
  if (cpu_ns)
    *cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
              ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static uint64_t ThreadCpuNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// Starts one child with l's argv and environment, reaps it and fills rec.
static void SpawnOne(int use_fork, int raw_bind, const char* prog, const Launch* l, SpawnRecord* rec) {
  uint64_t t0 = NowNs(), c0 = ThreadCpuNs(), child = 0;
  pid_t pid = Start(use_fork, raw_bind, prog, l);
  rec->status = pid < 0 ? -1 : Reap(pid, &child);
  uint64_t c1 = ThreadCpuNs();
  rec->wall_ns = NowNs() - t0;
  rec->cpu_ns = c1 - c0 + child;
}

// spawn serve|verify:N METHOD RANKS CPUMAP PROG [ARG...]
//   METHOD posix_spawn|fork_exec (fork, then execve in the child), with ":bind" the child bound to its
//   rank's CPU without any library (Start's raw_bind). RANKS 0: children are not ranks; otherwise
//   child i gets LOCAL_RANK=i mod RANKS and LOCAL_WORLD_SIZE=RANKS. "@CPU@" in an ARG becomes the rank's
//   entry of CPUMAP ("0,1"). ARG... starts with the child's argv[0].
//   serve: one spawn per byte read from stdin, answered by a SpawnRecord on stdout; ends at end of input.
//   verify:N: N spawns, printing "child I STATUS CPUS" for each (Cpus_allowed_list read while the child is a
//   zombie, after any binding took effect) and "self BEFORE AFTER" (a launcher must stay as it was).
int RunSpawner(int argc, char** argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: spawn_bench spawn serve|verify:N METHOD RANKS CPUMAP PROG ARG0 [ARG...]\n");
    return 2;
  }
  long verify = strncmp(argv[1], "verify:", 7) == 0 ? atol(argv[1] + 7) : -1;
  int use_fork = strncmp(argv[2], "fork_exec", 9) == 0;
  int raw_bind = strstr(argv[2], ":bind") != NULL;
  int ranks = atoi(argv[3]);
  const char* cpumap = argv[4];
  const char* prog = argv[5];
  if (ranks < 0 || ranks > kMaxRanks) return 2;

  static Launch launches[kMaxRanks];
  int nlaunch = ranks ? ranks : 1;
  for (int r = 0; r < nlaunch; r++) BuildLaunch(&launches[r], r, ranks, cpumap, argc - 6, argv + 6);

  if (verify >= 0) {
    char before[64] = "?", after[64] = "?", cpus[64];
    ReadCpusAllowed(0, before, sizeof(before));
    for (long i = 0; i < verify; i++) {
      pid_t pid = Start(use_fork, raw_bind, prog, &launches[ranks ? i % ranks : 0]);
      if (pid < 0) {
        printf("child %ld -1 start-failed:%s\n", i, strerror(errno));
        continue;
      }
      siginfo_t si;
      while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
      }
      if (!ReadCpusAllowed(pid, cpus, sizeof(cpus))) snprintf(cpus, sizeof(cpus), "?");
      printf("child %ld %d %s\n", i, Reap(pid, NULL), cpus);
    }
    ReadCpusAllowed(0, after, sizeof(after));
    printf("self %s %s\n", before, after);
    return 0;
  }

  char cmd;
  for (long i = 0;; i++) {
    ssize_t r = read(0, &cmd, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    SpawnRecord rec;
    SpawnOne(use_fork, raw_bind, prog, &launches[ranks ? i % ranks : 0], &rec);
    if (!WriteAll(&rec, sizeof(rec))) return 1;
  }
}
