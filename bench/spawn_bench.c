// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// spawn_bench: `spawn_bench run ...` is what scripts/bench.sh starts; the other modes are the processes the
// driver starts itself (see bench.h).

#include <stdio.h>
#include <string.h>

#include "bench.h"

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "run") == 0) return RunDriver(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "spawn") == 0) return RunSpawner(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "affinity") == 0) return RunAffinityBench(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "affinity-loop") == 0) return RunAffinityLoop(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "herd") == 0) return RunHerd(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "herd-rank") == 0) return RunHerdRank();
  fprintf(stderr,
          "usage: spawn_bench run [--build DIR] [--out FILE] [--topology FILE]\n"
          "       spawn_bench spawn serve|verify:N METHOD RANKS CPUMAP PROG ARG0 [ARG...]\n"
          "       spawn_bench affinity --build DIR\n"
          "       spawn_bench affinity-loop CALLS\n"
          "       spawn_bench herd --build DIR [--ranks 64] [--policy node] [--runs 1]\n");
  return 2;
}
