#!/usr/bin/env bash
# order_launch.sh loop|spaced|xargs ITERATIONS BARRIER DIR: launches 4 workers (BARRIER DIR/K 4, which make
# an entry in DIR/K and stay alive until all 4 have) ITERATIONS times, with a `&` loop, a `&` loop that
# starts each worker once the one before has made its entry (spaced), or `xargs -P 4` (each under `sh -c`),
# and prints "launch K" after each.
set -u
mode=$1 iterations=$2 barrier=$3 dir=$4
for ((k = 0; k < iterations; k++)); do
  mkdir "$dir/$k"
  if [[ $mode == loop ]]; then
    for i in 1 2 3 4; do "$barrier" "$dir/$k" 4 & done
    wait
  elif [[ $mode == spaced ]]; then
    for i in 1 2 3 4; do
      "$barrier" "$dir/$k" 4 &
      for ((t = 0; t < 1000; t++)); do
        entries=("$dir/$k"/*)
        [[ -e ${entries[0]} && ${#entries[@]} -ge $i ]] && break
        sleep 0.01
      done
    done
    wait
  else
    # Each worker under a shell of its own, as GNU parallel runs its jobs: siblings have different parents.
    printf '%s\n' 1 2 3 4 | xargs -P 4 -I{} sh -c '"$0" "$1" 4; true' "$barrier" "$dir/$k"
  fi
  echo "launch $k"
done
