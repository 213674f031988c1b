// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The check before timing, and the timing itself.

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

static void Append(char* buf, size_t cap, const char* text) {
  size_t n = strlen(buf);
  snprintf(buf + n, cap - n, "%s", text);
}

void Verify(const Paths* p, const Results* res, Variant* v) {
  v->verified = 1;
  v->note[0] = '\0';
  if (truncate(p->errlog, 0) != 0 && errno != ENOENT) perror("bench: truncate");
  for (int m = 0; m < kMethods; m++) {
    char* out;
    size_t len;
    int ok = RunSpawnerFor(p, res, v, m, "verify:4", &out, &len) == 0;
    char seen[256] = "", part[160];
    char* save = NULL;
    for (char* line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      long i;
      int status;
      char cpus[64], before[64], after[64];
      if (sscanf(line, "child %ld %d %63s", &i, &status, cpus) == 3) {
        char want[16];
        snprintf(want, sizeof(want), "%d", res->cpu[i % 2]);
        const char* expected = v->expect == kExpectRankCpu ? want : res->machine.allowed;
        if (status != 0 || (v->expect != kExpectUnchecked && strcmp(cpus, expected) != 0)) ok = 0;
        snprintf(part, sizeof(part), "%s%s", seen[0] ? "," : "", cpus);
        Append(seen, sizeof(seen), part);
        if (status != 0) {
          snprintf(part, sizeof(part), "(exit %d)", status);
          Append(seen, sizeof(seen), part);
        }
      } else if (sscanf(line, "self %63s %63s", before, after) == 2 && strcmp(before, after) != 0) {
        ok = 0;
        snprintf(part, sizeof(part), " launcher moved from %.40s to %.40s", before, after);
        Append(seen, sizeof(seen), part);
      }
    }
    free(out);
    char line[400];
    snprintf(line, sizeof(line), "%s%s: children on cpus %s%s", m ? "; " : "", kMethodName[m],
             seen[0] ? seen : "?", ok ? "" : " (UNEXPECTED)");
    Append(v->note, sizeof(v->note), line);
    v->verified &= ok;
  }
  char err[160];
  FirstLine(p->errlog, err, sizeof(err));
  if (err[0]) {
    char line[200];
    snprintf(line, sizeof(line), "; stderr: %s", err);
    Append(v->note, sizeof(v->note), line);
  }
}

static int ReadFull(int fd, void* buf, size_t len) {
  char* b = buf;
  while (len) {
    ssize_t r = read(fd, b, len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    b += r;
    len -= (size_t)r;
  }
  return 1;
}

// One spawn from server s; returns 0 when the spawner is gone.
static int Ask(Server* s, SpawnRecord* rec) {
  char go = 's';
  ssize_t w;
  do w = write(s->cmd_fd, &go, 1);
  while (w < 0 && errno == EINTR);
  return w == 1 && ReadFull(s->record_fd, rec, sizeof(*rec));
}

// Fisher-Yates with xorshift64: reproducible and good enough to break up fixed neighbours.
static void Shuffle(int* v, int n, uint64_t* state) {
  for (int i = n - 1; i > 0; i--) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    int j = (int)(*state % (uint64_t)(i + 1));
    int t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

void TimeRounds(const Paths* p, Results* res) {
  int combos = res->nvariants * kMethods;
  long most = res->spawns / res->rounds + 1;
  Server* servers = calloc((size_t)combos, sizeof(Server));
  int* alive = calloc((size_t)combos, sizeof(int));
  double* chunk = calloc((size_t)combos * kMetrics * (size_t)most, sizeof(double));
  size_t* filled = calloc((size_t)combos, sizeof(size_t));
  for (int i = 0; i < res->nvariants; i++)
    for (int m = 0; m < kMethods; m++)
      for (int k = 0; k < kMetrics; k++)
        res->variants[i].round_median[m][k] = calloc(res->rounds, sizeof(double));

  int* order = calloc((size_t)combos, sizeof(int));
  for (int c = 0; c < combos; c++) order[c] = c;
  uint64_t rng = 0x9e3779b97f4a7c15ull;  // fixed: the same sequence of orders every run
  uint64_t start = NowNs();
  for (int r = 0; r < res->rounds; r++) {
    long count = res->spawns / res->rounds + (r < res->spawns % res->rounds);
    for (int c = 0; c < combos; c++) {
      Variant* v = &res->variants[c / kMethods];
      alive[c] = StartServer(p, res, v, c % kMethods, &servers[c]);
      filled[c] = 0;
      if (!alive[c]) {
        fprintf(stderr, "bench: cannot start the spawner for %s/%s\n", v->name, kMethodName[c % kMethods]);
        v->failures[c % kMethods] += (uint64_t)(res->warmup + count);
      }
    }
    // One spawn per variant and method in turn, in a new order each time: what a spawn leaves behind (a
    // child pinned to the other CPU, numactl's two execs) must not always fall on the same variant.
    for (long i = 0; i < res->warmup + count; i++) {
      Shuffle(order, combos, &rng);
      for (int k = 0; k < combos; k++) {
        int c = order[k];
        if (!alive[c]) continue;
        Variant* v = &res->variants[c / kMethods];
        int m = c % kMethods;
        SpawnRecord rec;
        if (!Ask(&servers[c], &rec)) {
          fprintf(stderr, "bench: the spawner for %s/%s died (status %d)\n", v->name, kMethodName[m],
                  StopServer(&servers[c]));
          alive[c] = 0;
          v->failures[m] += (uint64_t)(res->warmup + count - i);
          continue;
        }
        if (rec.status != 0) v->failures[m]++;
        if (i == 0) SamplesAdd(&v->first[m], rec.wall_ns);
        if (i < res->warmup) continue;
        SamplesAdd(&v->samples[m][kWall], rec.wall_ns);
        SamplesAdd(&v->samples[m][kCpu], rec.cpu_ns);
        double* mine = chunk + (size_t)c * kMetrics * (size_t)most;
        mine[filled[c]] = (double)rec.wall_ns;
        mine[(size_t)most + filled[c]] = (double)rec.cpu_ns;
        filled[c]++;
      }
    }
    for (int c = 0; c < combos; c++) {
      Variant* v = &res->variants[c / kMethods];
      int m = c % kMethods;
      if (alive[c]) {
        int rc = StopServer(&servers[c]);
        if (rc != 0)
          fprintf(stderr, "bench: the spawner for %s/%s ended with %d\n", v->name, kMethodName[m], rc);
      }
      double* mine = chunk + (size_t)c * kMetrics * (size_t)most;
      for (int k = 0; k < kMetrics; k++)
        v->round_median[m][k][r] = MedianOf(mine + (size_t)k * most, filled[c]);
    }
    fprintf(stderr, "bench: round %d/%d done, %.0f s\n", r + 1, res->rounds, (NowNs() - start) / 1e9);
  }
  free(order);
  free(servers);
  free(alive);
  free(chunk);
  free(filled);
}
