// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The driver: checks the variants, times them, times planning, reports.
// Knobs (environment): BENCH_SPAWNS (per variant and method, default 3000), BENCH_ROUNDS (default 10),
// BENCH_WARMUP (spawns discarded per spawner, default 2), BENCH_PLAN_RUNS (default 5),
// BENCH_PREPARE_RUNS (default 10), BENCH_VARIANTS (a comma-separated subset of the variants).

#include "driver.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char* const kMethodName[kMethods] = {"posix_spawn", "fork+exec"};
const char* const kMethodKey[kMethods] = {"posix_spawn", "fork_exec"};
const char* const kMetricKey[kMetrics] = {"wall", "cpu"};

static const RatioSpec kRatios[] = {
    {"empty-again", "empty", 0, 0},   {"empty", "none", 0, 0},         {"inert", "empty", 1.02, 0},
    {"configured", "inert", 1.03, 0}, {"bound", "inert", 1.10, 0},     {"bound-node", "inert", 1.10, 0},
    {"numactl", "bound", 1.0, 1},     {"none-prepared", "none", 0, 0}, {"none-closed", "none", 0, 0},
};

static long EnvLong(const char* name, long def) {
  const char* v = getenv(name);
  return v && *v ? atol(v) : def;
}

// Runs argv `runs` times (stdout discarded) and records wall times; for `spawn_bench prepare` also parses
// the three figures it prints.
static void TimeCommand(const Paths* p, Timing* t, char* const argv[], int runs, int is_prepare) {
  char** env = BaseEnv();
  if (truncate(p->errlog, 0) != 0 && errno != ENOENT) perror("bench: truncate");
  for (int i = 0; i < runs; i++) {
    char* out;
    size_t len;
    uint64_t t0 = NowNs();
    t->rc = RunCaptured(p, argv, env, &out, &len);
    SamplesAdd(&t->wall, NowNs() - t0);
    const char* error = strstr(out, "error:");
    if (t->rc != 0 && !t->note[0] && error)
      snprintf(t->note, sizeof(t->note), "%.*s", (int)strcspn(error, "\n"), error);
    if (is_prepare) {
      unsigned long long dl = 0, first = 0, second = 0;
      char status[16] = "", msg[200] = "";
      if (sscanf(out, "%llu %llu %llu %15s %199[^\n]", &dl, &first, &second, status, msg) >= 4) {
        t->wall.v[t->wall.n - 1] = first;  // the figure: discovery and basis, not process start
        SamplesAdd(&t->dlopen_ns, dl);
        SamplesAdd(&t->second_ns, second);
      }
      if (strcmp(status, "ok") != 0) snprintf(t->note, sizeof(t->note), "%s", msg[0] ? msg : out);
    }
    free(out);
  }
  if (!t->note[0]) FirstLine(p->errlog, t->note, sizeof(t->note));
  free(env);
}

static void TimePlanning(const Paths* p, Results* res) {
  // Exclusive gives each rank whole cores: 1024 ranks do not fit the 192 cores of the default topology (every
  // rank is an error, exit 1), 192 do.
  static const char* const kPlans[kPlanCount][2] = {
      {"node", "1024"}, {"exclusive", "1024"}, {"exclusive", "192"}};
  int runs = (int)EnvLong("BENCH_PLAN_RUNS", 5);
  char cli[600], corelib[600];
  snprintf(cli, sizeof(cli), "%s/numabind", p->build);
  snprintf(corelib, sizeof(corelib), "%s/libnumabind_core.so", p->build);
  for (int i = 0; i < kPlanCount; i++) {
    Timing* t = &res->plans[i];
    snprintf(t->what, sizeof(t->what), "numabind plan --ranks %s --policy %s", kPlans[i][1], kPlans[i][0]);
    char* argv[] = {cli,          "plan",        "--ranks",  (char*)kPlans[i][1],
                    "--topology", res->topology, "--policy", (char*)kPlans[i][0],
                    NULL};
    TimeCommand(p, t, argv, runs, 0);
  }
  runs = (int)EnvLong("BENCH_PREPARE_RUNS", 10);
  for (int i = 0; i < 2; i++) {
    Timing* t = &res->prepares[i];
    snprintf(t->what, sizeof(t->what), "numabind_prepare, policy node, %s",
             i ? "topology file" : "live machine");
    char* argv[] = {(char*)p->self, "prepare", corelib, "node", i ? res->topology : "-", NULL};
    TimeCommand(p, t, argv, runs, 1);
  }
}

const Variant* FindVariant(const Results* r, const char* name) {
  for (int i = 0; i < r->nvariants; i++)
    if (strcmp(r->variants[i].name, name) == 0) return &r->variants[i];
  return NULL;
}

static int FindTool(const char* name, char* out, size_t cap) {
  static const char* const kDirs[] = {"/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin"};
  for (size_t i = 0; i < sizeof(kDirs) / sizeof(kDirs[0]); i++) {
    snprintf(out, cap, "%s/%s", kDirs[i], name);
    if (access(out, X_OK) == 0) return 1;
  }
  return 0;
}

// run [--build DIR] [--out FILE] [--topology FILE]
int RunDriver(int argc, char** argv) {
  static Variant variants[] = {
      {.name = "none", .what = "no preload", .preload = kPreloadNone},
      {.name = "empty", .what = "libempty.so preloaded: the floor", .preload = kPreloadEmpty},
      {.name = "empty-again",
       .what = "libempty.so again: an A/A control, its ratio to empty is noise alone",
       .preload = kPreloadEmpty},
      {.name = "inert", .what = "shim preloaded, no NUMABIND_*", .preload = kPreloadShim},
      {.name = "configured",
       .what = "shim, NUMABIND_POLICY=node, children not ranks",
       .preload = kPreloadShim,
       .policy = "node"},
      {.name = "bound",
       .what = "shim, every child a rank, NUMABIND_POLICY=cpus:A|B",
       .preload = kPreloadShim,
       .ranks = 2,
       .expect = kExpectRankCpu},
      {.name = "bound-node",
       .what = "shim, every child a rank, NUMABIND_POLICY=node",
       .preload = kPreloadShim,
       .policy = "node",
       .ranks = 2,
       .expect = kExpectUnchecked},
      {.name = "none-prepared",
       .what = "no preload; the spawner has dlopened the core and prepared a plan (a launcher's state)",
       .preload = kPreloadNone,
       .load_core = 1},
      {.name = "none-closed",
       .what = "as none-prepared, then dlclose of the core (only libstdc++ and the plan stay)",
       .preload = kPreloadNone,
       .load_core = 2},
      {.name = "numactl",
       .what = "no preload, numactl --physcpubind=CPU /bin/true",
       .preload = kPreloadNone,
       .ranks = 2,
       .numactl = 1,
       .expect = kExpectRankCpu},
  };
  static Results res;
  Paths p;
  const char* out_path = NULL;
  snprintf(p.build, sizeof(p.build), "build");
  snprintf(res.topology, sizeof(res.topology), "../shared/topologies/192em64t-12gr2n8c2t.xml");
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--build") == 0)
      snprintf(p.build, sizeof(p.build), "%s", argv[i + 1]);
    else if (strcmp(argv[i], "--out") == 0)
      out_path = argv[i + 1];
    else if (strcmp(argv[i], "--topology") == 0)
      snprintf(res.topology, sizeof(res.topology), "%s", argv[i + 1]);
  }
  char* abs = realpath(p.build, NULL);
  if (!abs) {
    fprintf(stderr, "bench: build directory %s: %s\n", p.build, strerror(errno));
    return 1;
  }
  snprintf(p.build, sizeof(p.build), "%s", abs);
  free(abs);
  ssize_t n = readlink("/proc/self/exe", p.self, sizeof(p.self) - 1);
  p.self[n > 0 ? n : 0] = '\0';
  snprintf(p.errlog, sizeof(p.errlog), "%s/bench/stderr.log", p.build);
  if (!FindTool("numactl", p.numactl, sizeof(p.numactl))) {
    fprintf(stderr, "bench: numactl not found (apt-get install numactl)\n");
    return 1;
  }

  ReadMachine(&res.machine);
  // The two CPUs the bound variants use: the first two this process may run on.
  cpu_set_t set;
  int cpus[2] = {0, 0}, found = 0;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
      if (CPU_ISSET(c, &set)) cpus[found++] = c;
  if (found < 2) cpus[1] = cpus[0];
  res.cpu[0] = cpus[0];
  res.cpu[1] = cpus[1];
  snprintf(res.cpumap, sizeof(res.cpumap), "%d,%d", cpus[0], cpus[1]);
  res.variants = variants;
  res.nvariants = 0;
  // BENCH_VARIANTS=a,b,c keeps those variants alone (quicker runs while investigating one cost).
  const char* only = getenv("BENCH_VARIANTS");
  for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
    char key[40];
    snprintf(key, sizeof(key), ",%s,", variants[i].name);
    char list[512];
    snprintf(list, sizeof(list), ",%s,", only ? only : "");
    if (only && *only && !strstr(list, key)) continue;
    variants[res.nvariants++] = variants[i];
  }
  Variant* bound = (Variant*)FindVariant(&res, "bound");
  if (bound) snprintf(bound->policy, sizeof(bound->policy), "cpus:%d|%d", cpus[0], cpus[1]);
  res.ratios = kRatios;
  res.nratios = (int)(sizeof(kRatios) / sizeof(kRatios[0]));
  res.spawns = EnvLong("BENCH_SPAWNS", 3000);
  res.rounds = (int)EnvLong("BENCH_ROUNDS", 10);
  res.warmup = (int)EnvLong("BENCH_WARMUP", 2);
  if (res.rounds < 1) res.rounds = 1;
  if (res.spawns < res.rounds) res.spawns = res.rounds;

  uint64_t start = NowNs();
  for (int i = 0; i < res.nvariants; i++) Verify(&p, &res, &variants[i]);
  TimeRounds(&p, &res);
  TimePlanning(&p, &res);
  res.seconds = (NowNs() - start) / 1e9;
  double load[1];
  if (getloadavg(load, 1) == 1) res.load1_end = load[0];
  PrintReport(&res);
  if (out_path && !WriteJson(&res, out_path)) {
    fprintf(stderr, "bench: cannot write %s: %s\n", out_path, strerror(errno));
    return 1;
  }
  if (out_path) printf("\nJSON: %s\n", out_path);
  return 0;
}
