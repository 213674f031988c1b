// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `spawn_bench herd`: N self-binding ranks started at once, cold (a fresh NUMABIND_SHARED directory, so
// there is no basis yet): how many of them ran the planner helper, how many prepared nothing (left
// unbound), and the wall time from their start until the last rank's main. The ranks are forked first and
// held at a barrier (a pipe whose write end the driver closes), then exec `spawn_bench herd-rank`
// preloaded, which writes its CLOCK_MONOTONIC time at main to the driver's pipe. Helper runs are counted
// from NUMABIND_LOG=debug's "prepared ... ms by HELPER" lines, the others' "ms from the shared basis".

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

int RunHerdRank(void) {
  uint64_t now = NowNs();
  return write(1, &now, sizeof(now)) == (ssize_t)sizeof(now) ? 0 : 1;
}

/// Lines of `path` that contain `needle`.
static int CountLines(const char* path, const char* needle) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof(line), f) != NULL) n += strstr(line, needle) != NULL;
  fclose(f);
  return n;
}

/// The first line of `path` that contains `needle`, with its newline, into out ("" when none).
static void FirstLine(const char* path, const char* needle, char* out, size_t cap) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return;
  while (fgets(out, (int)cap, f) != NULL) {
    if (strstr(out, needle) != NULL) break;
    out[0] = '\0';
  }
  fclose(f);
}

/// One cold start of `ranks` ranks; prints one line. False when it could not be run.
static int HerdOnce(const char* build, const char* self, int ranks, const char* policy, int run) {
  char shared[] = "/tmp/numabind-herd.XXXXXX";
  if (mkdtemp(shared) == NULL) return 0;
  char log[256], preload[4096], env_policy[512], env_shared[256], env_log[300];
  snprintf(log, sizeof(log), "%s/log", shared);
  snprintf(preload, sizeof(preload), "LD_PRELOAD=%s/libnumabind.so", build);
  snprintf(env_policy, sizeof(env_policy), "NUMABIND_POLICY=%s", policy);
  snprintf(env_shared, sizeof(env_shared), "NUMABIND_SHARED=%s", shared);
  snprintf(env_log, sizeof(env_log), "NUMABIND_LOG_FILE=%s", log);
  int barrier[2], stamps[2];
  if (pipe2(barrier, O_CLOEXEC) != 0 || pipe2(stamps, O_CLOEXEC) != 0) return 0;
  pid_t* pids = calloc((size_t)ranks, sizeof(pid_t));
  for (int i = 0; i < ranks; ++i) {
    char rank[32];
    snprintf(rank, sizeof(rank), "LOCAL_RANK=%d", i);
    char* argv[] = {(char*)self, "herd-rank", NULL};
    char* envp[] = {"PATH=/usr/bin:/bin", preload, env_policy, env_shared,
                    "NUMABIND_LOG=debug", env_log, rank,       NULL};
    pids[i] = fork();
    if (pids[i] == 0) {
      close(barrier[1]);
      char c;
      while (read(barrier[0], &c, 1) < 0 && errno == EINTR) {
      }
      dup2(stamps[1], 1);
      execve(self, argv, envp);
      _exit(127);
    }
  }
  close(stamps[1]);
  close(barrier[0]);
  uint64_t start = NowNs(), last = 0, stamp;
  close(barrier[1]);  // every rank goes
  int mains = 0;
  while (read(stamps[0], &stamp, sizeof(stamp)) == (ssize_t)sizeof(stamp)) {
    ++mains;
    if (stamp > last) last = stamp;
  }
  close(stamps[0]);
  int failed = 0;
  for (int i = 0; i < ranks; ++i) {
    int status = 0;
    if (pids[i] > 0) waitpid(pids[i], &status, 0);
    failed += pids[i] <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  free(pids);
  int helper = CountLines(log, "ms by "), shared_basis = CountLines(log, "ms from the shared basis");
  char why[512] = "";
  FirstLine(log, "failed", why, sizeof(why));
  printf(
      "herd: run %d: %d ranks started at once, cold, NUMABIND_POLICY=%s: helper runs %d, from the shared "
      "basis %d, prepared nothing (unbound) %d, failed %d; last rank's main after %.1f ms (%d mains)\n",
      run, ranks, policy, helper, shared_basis, ranks - helper - shared_basis, failed,
      last > start ? (double)(last - start) / 1e6 : 0.0, mains);
  if (why[0] != '\0') printf("herd: run %d: the first failure: %s", run, why);
  fflush(stdout);
  char rm[300];
  snprintf(rm, sizeof(rm), "rm -rf '%s'", shared);
  if (system(rm) != 0) fprintf(stderr, "herd: could not remove %s\n", shared);
  return 1;
}

int RunHerd(int argc, char** argv) {
  const char* build = NULL;
  const char* policy = "node";
  int ranks = 64, runs = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--build") == 0)
      build = argv[i + 1];
    else if (strcmp(argv[i], "--ranks") == 0)
      ranks = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--policy") == 0)
      policy = argv[i + 1];
    else if (strcmp(argv[i], "--runs") == 0)
      runs = atoi(argv[i + 1]);
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (build == NULL || ranks <= 0 || n <= 0) {
    fprintf(stderr, "usage: spawn_bench herd --build DIR [--ranks 64] [--policy node] [--runs 1]\n");
    return 2;
  }
  self[n] = '\0';
  for (int r = 1; r <= runs; ++r) {
    if (!HerdOnce(build, self, ranks, policy, r)) return 1;
  }
  return 0;
}
