#!/usr/bin/env bash
# order_launch.sh loop|xargs ITERATIONS BARRIER DIR: launches 4 workers (BARRIER, which stay alive until all
# 4 have started) ITERATIONS times, with a `&` loop or `xargs -P 4` (each under `sh -c`), and prints "launch K" after each.
set -u
mode=$1 iterations=$2 barrier=$3 dir=$4
for ((k = 0; k < iterations; k++)); do
  mkdir "$dir/$k"
  if [[ $mode == loop ]]; then
    for i in 1 2 3 4; do "$barrier" "$dir/$k" 4 & done
    wait
  else
    # Each worker under a shell of its own, as GNU parallel runs its jobs: siblings have different parents.
    printf '%s\n' 1 2 3 4 | xargs -P 4 -I{} sh -c '"$0" "$1" 4; true' "$barrier" "$dir/$k"
  fi
  echo "launch $k"
done
