// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The driver's variants and results, shared by driver.c (measuring) and report.c (table and JSON).

#ifndef NUMABIND_BENCH_DRIVER_H_
#define NUMABIND_BENCH_DRIVER_H_

#include "bench.h"

enum { kPosixSpawn, kForkExec, kMethods };
/// Per spawn: wall time from spawn until waitpid returns, and CPU time (the launcher thread's during the
/// spawn plus the child's, from wait4): the second is what the spawn costs and is far less noisy on a busy
/// machine.
enum { kWall, kCpu, kMetrics };
enum { kPlanCount = 3, kPrepareCount = 3 };
extern const char* const kMetricKey[kMetrics];   ///< "wall", "cpu"
extern const char* const kMethodName[kMethods];  ///< "posix_spawn", "fork+exec"
extern const char* const kMethodKey[kMethods];   ///< JSON keys: "posix_spawn", "fork_exec"

/// kPreloadShimB: a second build of the shim (BENCH_SHIM_B), timed in the same rounds as the first so that
/// a change to the shim can be judged on a busy machine.
typedef enum { kPreloadNone, kPreloadEmpty, kPreloadShim, kPreloadShimB } Preload;

/// Where the check before timing expects the children to run.
typedef enum {
  kExpectAllowed,    ///< everywhere the driver may run: not bound
  kExpectRankCpu,    ///< child i on CPU cpu[i mod 2]
  kExpectUnchecked,  ///< the node's CPUs, which the bench does not compute: reported, not checked
} Expect;

/// One way of starting /bin/true, measured with both methods.
typedef struct {
  const char* name;
  const char* what;  ///< one line for the report
  Preload preload;   ///< what the spawner and its children have in LD_PRELOAD
  char policy[64];   ///< NUMABIND_POLICY for the spawner and its children; "" = unset
  int ranks;         ///< > 0: child i gets LOCAL_RANK=i mod ranks, LOCAL_WORLD_SIZE=ranks
  int numactl;       ///< the child is `numactl --physcpubind=CPU /bin/true`
  int raw_bind;      ///< the spawner binds child i to cpu[i mod 2] itself, no library (spawner.c)
  Expect expect;

  Samples samples[kMethods][kMetrics];
  Samples first[kMethods];  ///< wall time of each round's first spawn: one-time launcher work shows here
  double* round_median[kMethods][kMetrics];
  uint64_t failures[kMethods];
  int verified;    ///< the check before timing passed
  char note[640];  ///< what the check saw
} Variant;

/// A ratio of two variants' medians, with its target.
typedef struct {
  const char* num;
  const char* den;
  double target;  ///< 0: informational
  int at_least;   ///< the target is a lower bound (the alternative must be slower than the shim)
} RatioSpec;

/// Repeated runs of one command or call, in nanoseconds.
typedef struct {
  char what[160];
  Samples wall;
  int rc;          ///< exit status of the last run
  char note[256];  ///< first line of stderr or the error, when there was one
} Timing;

typedef struct {
  Machine machine;
  long spawns;  ///< per variant and method
  int rounds;
  int warmup;       ///< spawns discarded per spawner (one spawner per variant, method and round)
  int cpu[2];       ///< the CPUs of ranks 0 and 1 in the bound variants
  char cpumap[32];  ///< the same, "A,B", for the spawner
  char topology[512];
  char shim_b[512];  ///< BENCH_SHIM_B's library, "" when not set
  double seconds;    ///< total wall time of the run
  double load1_end;  ///< 1-minute load average when the run ended

  Variant* variants;
  int nvariants;
  const RatioSpec* ratios;
  int nratios;
  Timing plans[kPlanCount];  ///< `numabind plan` on the topology file, large rank counts
  /// `numabind prepare-basis --policy node`, what the shim runs once per launcher: live machine with
  /// devices auto and none, and the topology file.
  Timing prepares[kPrepareCount];
} Results;

const Variant* FindVariant(const Results* r, const char* name);

/// Where things are.
typedef struct {
  char build[512];   ///< absolute $BUILD
  char self[512];    ///< this binary, re-run as spawner
  char errlog[600];  ///< stderr of everything the driver starts
  char numactl[64];
  char shim_b[512];  ///< absolute BENCH_SHIM_B; "" leaves the -b variants out
} Paths;

// procs.c: starting the processes the driver measures.

/// The environment every measured process starts from: ours without preloads, NUMABIND_* variables or
/// any launcher's rank variables (the bench may itself run under a launcher). Room for 6 more entries.
char** BaseEnv(void);
/// BaseEnv plus v's LD_PRELOAD and NUMABIND_POLICY.
char** VariantEnv(const Paths* p, const Variant* v);
/// Runs argv with envp; stdout is captured into *out (malloc'd, NUL-terminated, *outlen bytes), stderr
/// appended to p->errlog. Returns the exit status, 128+signal, or -1 when it could not start.
int RunCaptured(const Paths* p, char* const argv[], char* const envp[], char** out, size_t* outlen);
/// The first line of a file ("" when empty or missing).
void FirstLine(const char* path, char* buf, size_t cap);

/// A spawner in serve mode.
typedef struct {
  int pid;
  int cmd_fd;     ///< write one byte: one spawn
  int record_fd;  ///< read one SpawnRecord
} Server;
/// `spawn_bench spawn MODE ...` for v and method m, with v's environment; mode "serve" or "verify:N".
/// For verify, runs it to the end with its output in *out; for serve, starts it into *server.
int RunSpawnerFor(const Paths* p, const Results* res, const Variant* v, int m, const char* mode, char** out,
                  size_t* outlen);
int StartServer(const Paths* p, const Results* res, const Variant* v, int m, Server* server);
/// Closes its input (the spawner ends) and reaps it; returns its exit status.
int StopServer(Server* server);

// rounds.c

/// Checks, before any timing, that v does what it claims: children exit 0, run where v->expect says, and
/// the spawner (a launcher) stays as it was. Sets v->verified and v->note.
void Verify(const Paths* p, const Results* res, Variant* v);
/// The timing: res->rounds rounds; each starts one spawner per variant and method and asks them for one
/// spawn each in turn, res->spawns / res->rounds times.
void TimeRounds(const Paths* p, Results* res);

/// Prints the table to stdout.
void PrintReport(const Results* r);
/// Writes the JSON file; returns 0 on failure.
int WriteJson(const Results* r, const char* path);

#endif  // NUMABIND_BENCH_DRIVER_H_
