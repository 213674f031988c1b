// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The driver: checks the variants, times them, times planning, reports.
// Knobs (environment): BENCH_SPAWNS (per variant and method, default 3000), BENCH_ROUNDS (default 10),
// BENCH_WARMUP (spawns discarded per spawner, default 2), BENCH_PLAN_RUNS (default 5),
// BENCH_PREPARE_RUNS (runs of `numabind prepare-basis`, default 10), BENCH_VARIANTS (a comma-separated
// subset of the variants), BENCH_SHIM_B (a second build of libnumabind.so: adds inert-b, configured-b,
// bound-b and bound-node-b, timed in the same rounds, to judge a change to the shim on a busy machine).

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
    {"empty-again", "empty", 0, 0},
    {"empty", "none", 0, 0},
    // Issue 16's targets: what every process on a machine pays, against the floor of any preloaded library.
    {"inert", "empty", 1.01, 0},
    {"configured", "empty", 1.02, 0},
    // Issue 29's targets: a configured process that is no rank, against an inert one; a rank started bound,
    // against the same binding done with no library at all (bind-floor: what binding itself costs here).
    {"configured", "inert", 1.01, 0},
    {"bound", "bind-floor", 1.03, 0},
    {"bind-floor", "inert", 0, 0},
    {"bound", "inert", 1.10, 0},
    {"bound-node", "inert", 1.10, 0},
    {"numactl", "bound", 1.0, 1},
    // BENCH_SHIM_B: the second build against the first, and against its own inert variant.
    {"inert-b", "inert", 0, 0},
    {"configured-b", "configured", 0, 0},
    {"bound-b", "bound", 0, 0},
    {"inert-b", "empty", 1.01, 0},
    {"configured-b", "empty", 1.02, 0},
    {"bound-b", "inert-b", 1.10, 0},
    {"bound-node-b", "inert-b", 1.10, 0},
};

static long EnvLong(const char* name, long def) {
  const char* v = getenv(name);
  return v && *v ? atol(v) : def;
}

// Runs argv `runs` times (stdout captured) and records wall times. For `numabind prepare-basis` (is_basis)
// the output must be a basis frame (plan/basis_frame.h: tag "NBBASIS" and the layout version, which this C
// program does not pin: any version is a frame); an error frame's text is the note.
static void TimeCommand(const Paths* p, Timing* t, char* const argv[], int runs, int is_basis) {
  char** env = BaseEnv();
  if (truncate(p->errlog, 0) != 0 && errno != ENOENT) perror("bench: truncate");
  for (int i = 0; i < runs; i++) {
    char* out;
    size_t len;
    uint64_t t0 = NowNs();
    t->rc = RunCaptured(p, argv, env, &out, &len);
    SamplesAdd(&t->wall, NowNs() - t0);
    if (is_basis && !t->note[0]) {
      if (len >= 16 && memcmp(out, "NBERROR1", 8) == 0)
        snprintf(t->note, sizeof(t->note), "error: %.*s", (int)(len - 16), out + 16);
      else if (len < 16 || memcmp(out, "NBBASIS", 7) != 0)
        snprintf(t->note, sizeof(t->note), "no basis frame in %zu bytes of output", len);
      else if (i == 0)
        snprintf(t->note, sizeof(t->note), "basis %zu bytes", len - 16);
    } else if (!is_basis) {
      const char* error = strstr(out, "error:");
      if (t->rc != 0 && !t->note[0] && error)
        snprintf(t->note, sizeof(t->note), "%.*s", (int)strcspn(error, "\n"), error);
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
  char cli[600];
  snprintf(cli, sizeof(cli), "%s/numabind", p->build);
  for (int i = 0; i < kPlanCount; i++) {
    Timing* t = &res->plans[i];
    snprintf(t->what, sizeof(t->what), "numabind plan --ranks %s --policy %s", kPlans[i][1], kPlans[i][0]);
    char* argv[] = {cli,          "plan",        "--ranks",  (char*)kPlans[i][1],
                    "--topology", res->topology, "--policy", (char*)kPlans[i][0],
                    NULL};
    TimeCommand(p, t, argv, runs, 0);
  }
  // What a launcher spends preparing once: the shim runs this command and reads the basis from a pipe.
  runs = (int)EnvLong("BENCH_PREPARE_RUNS", 10);
  static const char* const kPrepares[kPrepareCount][2] = {
      {"--devices", "auto"}, {"--devices", "none"}, {"--topology", NULL}};
  for (int i = 0; i < kPrepareCount; i++) {
    Timing* t = &res->prepares[i];
    const char* value = kPrepares[i][1] ? kPrepares[i][1] : res->topology;
    snprintf(t->what, sizeof(t->what), "numabind prepare-basis --policy node %s %s%s", kPrepares[i][0],
             kPrepares[i][1] ? value : "FILE", kPrepares[i][1] ? " (live)" : "");
    char* argv[] = {cli, "prepare-basis", "--policy", "node", (char*)kPrepares[i][0], (char*)value, NULL};
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
      {.name = "bind-floor",
       .what = "shim preloaded, inert; the spawner binds child i to its CPU itself, as a launcher could",
       .preload = kPreloadShim,
       .ranks = 2,
       .raw_bind = 1,
       .expect = kExpectRankCpu},
      {.name = "numactl",
       .what = "no preload, numactl --physcpubind=CPU /bin/true",
       .preload = kPreloadNone,
       .ranks = 2,
       .numactl = 1,
       .expect = kExpectRankCpu},
      {.name = "inert-b", .what = "as inert, with BENCH_SHIM_B", .preload = kPreloadShimB},
      {.name = "configured-b",
       .what = "as configured, with BENCH_SHIM_B",
       .preload = kPreloadShimB,
       .policy = "node"},
      {.name = "bound-b",
       .what = "as bound, with BENCH_SHIM_B",
       .preload = kPreloadShimB,
       .ranks = 2,
       .expect = kExpectRankCpu},
      {.name = "bound-node-b",
       .what = "as bound-node, with BENCH_SHIM_B",
       .preload = kPreloadShimB,
       .policy = "node",
       .ranks = 2,
       .expect = kExpectUnchecked},
  };
  static Results res;
  Paths p;
  const char* out_path = NULL;
  snprintf(p.build, sizeof(p.build), "build");
  snprintf(res.topology, sizeof(res.topology), "tests/data/topologies/192em64t-12gr2n8c2t.xml");
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
  // An absolute path is kept as given: scripts/bench.sh passes a link when the real path has a space,
  // which LD_PRELOAD cannot carry.
  if (p.build[0] != '/') snprintf(p.build, sizeof(p.build), "%s", abs);
  free(abs);
  ssize_t n = readlink("/proc/self/exe", p.self, sizeof(p.self) - 1);
  p.self[n > 0 ? n : 0] = '\0';
  snprintf(p.errlog, sizeof(p.errlog), "%s/bench/stderr.log", p.build);
  if (!FindTool("numactl", p.numactl, sizeof(p.numactl))) {
    fprintf(stderr, "bench: numactl not found (apt-get install numactl)\n");
    return 1;
  }

  p.shim_b[0] = '\0';
  const char* shim_b = getenv("BENCH_SHIM_B");
  if (shim_b && *shim_b) {
    char* b = realpath(shim_b, NULL);
    if (!b) {
      fprintf(stderr, "bench: BENCH_SHIM_B=%s: %s\n", shim_b, strerror(errno));
      return 1;
    }
    snprintf(p.shim_b, sizeof(p.shim_b), "%s", b);
    snprintf(res.shim_b, sizeof(res.shim_b), "%s", b);
    free(b);
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
    if (variants[i].preload == kPreloadShimB && !p.shim_b[0]) continue;
    variants[res.nvariants++] = variants[i];
  }
  static const char* const kCpuMapped[] = {"bound", "bound-b"};
  for (int i = 0; i < 2; i++) {
    Variant* bound = (Variant*)FindVariant(&res, kCpuMapped[i]);
    if (bound) snprintf(bound->policy, sizeof(bound->policy), "cpus:%d|%d", cpus[0], cpus[1]);
  }
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
