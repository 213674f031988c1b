// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Samples, order statistics and the machine description.

#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

void SamplesAdd(Samples* s, uint64_t ns) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 1024;
    s->v = realloc(s->v, s->cap * sizeof(*s->v));
    if (!s->v) {
      perror("spawn_bench: realloc");
      exit(2);
    }
  }
  s->v[s->n++] = ns;
}

static int CompareU64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static int CompareDouble(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

// Linear interpolation between closest ranks (the usual "type 7" quantile).
static double Quantile(const uint64_t* sorted, size_t n, double q) {
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)pos;
  if (lo + 1 >= n) return (double)sorted[n - 1];
  double frac = pos - (double)lo;
  return (double)sorted[lo] * (1.0 - frac) + (double)sorted[lo + 1] * frac;
}

Summary Summarize(Samples* s) {
  Summary r;
  memset(&r, 0, sizeof(r));
  if (s->n == 0) return r;
  qsort(s->v, s->n, sizeof(*s->v), CompareU64);
  double sum = 0;
  for (size_t i = 0; i < s->n; i++) sum += (double)s->v[i];
  r.n = s->n;
  r.mean = sum / (double)s->n;
  r.min = (double)s->v[0];
  r.max = (double)s->v[s->n - 1];
  r.p10 = Quantile(s->v, s->n, 0.10);
  r.p25 = Quantile(s->v, s->n, 0.25);
  r.median = Quantile(s->v, s->n, 0.50);
  r.p75 = Quantile(s->v, s->n, 0.75);
  r.p90 = Quantile(s->v, s->n, 0.90);
  return r;
}

double MedianOf(double* v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof(*v), CompareDouble);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t NowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// Copies the value of the first "key<spaces/tabs>: value" line of path into buf.
static int ReadKeyedLine(const char* path, const char* key, char* buf, size_t cap) {
  FILE* f = fopen(path, "re");
  if (!f) return 0;
  char line[512];
  size_t klen = strlen(key);
  int found = 0;
  while (!found && fgets(line, sizeof(line), f)) {
    if (strncmp(line, key, klen) != 0) continue;
    char* p = line + klen;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != ':') continue;
    p++;
    while (*p == ' ' || *p == '\t') p++;
    p[strcspn(p, "\n")] = '\0';
    snprintf(buf, cap, "%s", p);
    found = 1;
  }
  fclose(f);
  return found;
}

int ReadCpusAllowed(int pid, char* buf, size_t cap) {
  char path[64];
  if (pid)
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
  else
    snprintf(path, sizeof(path), "/proc/self/status");
  return ReadKeyedLine(path, "Cpus_allowed_list", buf, cap);
}

void ReadMachine(Machine* m) {
  memset(m, 0, sizeof(*m));
  if (!ReadKeyedLine("/proc/cpuinfo", "model name", m->cpu, sizeof(m->cpu)))
    snprintf(m->cpu, sizeof(m->cpu), "unknown");
  m->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  struct utsname u;
  if (uname(&u) == 0) snprintf(m->kernel, sizeof(m->kernel), "%s %s %s", u.sysname, u.release, u.machine);
  snprintf(m->libc, sizeof(m->libc), "glibc %s", gnu_get_libc_version());
  ReadCpusAllowed(0, m->allowed, sizeof(m->allowed));
  double load[1];
  if (getloadavg(load, 1) == 1) m->load1 = load[0];
}

void JsonString(FILE* f, const char* s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}
