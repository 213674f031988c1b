// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// spawn_bench: what the preloaded shim costs the programs a user starts (`make bench`, scripts/bench.sh).
// One binary, two modes:
//   run      the driver. Never preloaded itself. Checks each variant does what it claims (children bound or
//            not), then times the variants in alternating rounds, prints a table and writes JSON.
//   spawn    a spawner: one process per variant and method, started by the driver with that variant's
//            preload and variables, so a preloaded launcher's own cost (the shim around fork and
//            posix_spawn, its topology discovery) lands in its own variant and never in another's. Spawns
//            the program once per byte the driver sends and answers with the spawn's times: the driver
//            takes the variants in turn, one spawn each, so a busy machine's noise falls on all alike.
// The driver also times `numabind plan` and `numabind prepare-basis` (the helper the shim runs once per
// launcher to discover the topology) as whole commands.
//
// Written in C and built by scripts/bench.sh alone (not by the default `make`).

#ifndef NUMABIND_BENCH_BENCH_H_
#define NUMABIND_BENCH_BENCH_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// A growable array of nanosecond samples.
typedef struct {
  uint64_t* v;
  size_t n;
  size_t cap;
} Samples;

void SamplesAdd(Samples* s, uint64_t ns);

/// Order statistics in nanoseconds; all zero for no samples.
typedef struct {
  size_t n;
  double median, p10, p25, p75, p90, mean, min, max;
} Summary;

/// Sorts s->v in place and summarizes it.
Summary Summarize(Samples* s);

/// Median of v[0..n) (sorts v); 0 when n is 0.
double MedianOf(double* v, size_t n);

/// CLOCK_MONOTONIC in nanoseconds.
uint64_t NowNs(void);

/// What a serving spawner writes to stdout for each spawn it is asked for.
typedef struct {
  uint64_t wall_ns;  ///< spawn until waitpid returns
  uint64_t cpu_ns;   ///< the spawner thread's CPU time during the spawn plus the child's (wait4)
  int64_t status;    ///< the child's exit status; 128+signal; -1 when it could not be started
} SpawnRecord;

/// `spawn serve|verify:N METHOD RANKS CPUMAP PROG [ARG...]`; see spawner.c.
int RunSpawner(int argc, char** argv);
/// `run [--build DIR] [--out FILE] [--topology FILE]`; see driver.c.
int RunDriver(int argc, char** argv);
/// `affinity --build DIR` (NUMABIND_GUARD's cost per sched_setaffinity call) and the process it times,
/// `affinity-loop CALLS`; see affinity.c.
int RunAffinityBench(int argc, char** argv);
int RunAffinityLoop(int argc, char** argv);

/// The machine the figures came from.
typedef struct {
  char cpu[128];
  long ncpu;
  char kernel[256];
  char libc[32];
  char allowed[64];  ///< the driver's Cpus_allowed_list
  double load1;      ///< 1-minute load average when the run started: a busy machine's figures mean less
} Machine;

void ReadMachine(Machine* m);

/// Cpus_allowed_list of /proc/<pid>/status (pid 0: this process) into buf; returns 0 when unreadable.
int ReadCpusAllowed(int pid, char* buf, size_t cap);

/// Writes s to f as a JSON string literal, quotes included.
void JsonString(FILE* f, const char* s);

/// `herd --build DIR [--ranks N] [--policy P] [--runs R]`: N self-binding ranks started at once, cold;
/// see herd.c.
int RunHerd(int argc, char** argv);
/// `herd-rank`: what each of those ranks runs (writes its time at main to stdout).
int RunHerdRank(void);

#endif  // NUMABIND_BENCH_BENCH_H_
