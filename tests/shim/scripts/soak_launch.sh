#!/usr/bin/env bash
# soak_launch.sh loop|xargs|burst BUILD DIR: one launch of 4 workers found by order, for the order soak
# (order_soak.py). Each worker is BUILD/helpers/barrier DIR/w 5 DIR/times, started by a `&` loop, by xargs
# under `sh -c` each, or by posix_spawn (helpers/hostile burst); they all stay alive until the soak makes
# the fifth entry in DIR/w. Exit statuses go to DIR/status: "PID N"
# (loop), "- N" (xargs: the worker's, as its shell saw it), "burst N" (hostile's; its own lines, one per
# worker that did not exit 0, are in its output).
set -u
mode=$1 build=$2 dir=$3
barrier=$build/helpers/barrier
mkdir -p "$dir/w"
case $mode in
  loop)
    pids=()
    for i in 1 2 3 4; do
      "$barrier" "$dir/w" 5 "$dir/times" &
      pids+=($!)
    done
    for p in "${pids[@]}"; do
      wait "$p"
      echo "$p $?" >>"$dir/status"
    done
    ;;
  xargs)
    printf '%s\n' 1 2 3 4 | xargs -P 4 -I{} sh -c '"$0" "$1" 5 "$2"; echo "- $?" >>"$3"' \
      "$barrier" "$dir/w" "$dir/times" "$dir/status"
    ;;
  burst)
    "$build/helpers/hostile" burst 4 "$barrier" "$dir/w" 5 "$dir/times"
    echo "burst $?" >>"$dir/status"
    ;;
esac
true
