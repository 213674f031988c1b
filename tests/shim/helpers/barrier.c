// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// barrier DIR N [TIMES]: a worker that stays alive until N workers have started. It makes DIR/<pid>, holding
// its own CPUs (Cpus_allowed_list of /proc/self/status) and, on a second line, when it started
// (CLOCK_MONOTONIC nanoseconds), then waits (up to 10 s) until DIR holds N entries, so that the N workers of
// one launch all run at once: ranks found by order are then all held together, and two with one number are a
// duplicate, not a reuse. With TIMES, it appends "PID START END" to that file as it ends, for the order
// soak's overlaps.

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int Count(const char* dir) {
  DIR* d = opendir(dir);
  if (d == NULL) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static long long Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) return 2;
  long long start = Now();
  char path[4096];
  snprintf(path, sizeof(path), "%s/%d", argv[1], (int)getpid());
  char cpus[4096] = "";
  FILE* status = fopen("/proc/self/status", "r");
  if (status != NULL) {
    char line[4096];
    while (fgets(line, sizeof(line), status) != NULL) {
      if (sscanf(line, "Cpus_allowed_list: %4095s", cpus) == 1) break;
    }
    fclose(status);
  }
  FILE* entry = fopen(path, "we");
  if (entry != NULL) {
    fprintf(entry, "%s\n%lld\n", cpus, start);
    fclose(entry);
  }
  int want = atoi(argv[2]);
  struct timespec ms = {0, 1000000};
  for (int i = 0; i < 10000 && Count(argv[1]) < want; ++i) nanosleep(&ms, NULL);
  if (argc == 4) {
    FILE* times = fopen(argv[3], "ae");
    if (times != NULL) {
      fprintf(times, "%d %lld %lld\n", (int)getpid(), start, Now());
      fclose(times);
    }
  }
  return 0;
}
