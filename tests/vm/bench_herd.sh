#!/usr/bin/env bash
# `make bench`'s figure from the 16-CPU guest (layout A), run by init.sh in place of guest_suite.sh
# (VM_SCRIPT, scripts/bench.sh): 64 self-binding ranks started at once, cold, 3 times (`spawn_bench herd`,
# bench/herd.c): helper runs and the wall time to the last rank's main. Usage: bench_herd.sh LAYOUT REPO BUILD.
set -u
layout=$1 build=$3
case $build in *[[:space:]:]*) ln -sfn "$build" /tmp/numabind-build && build=/tmp/numabind-build ;; esac
echo "herd: guest layout $layout, $(nproc) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) NUMA nodes"
if "$build/bench/spawn_bench" herd --build "$build" --ranks 64 --runs 3; then
  echo "PASS bench/herd"
  echo "vm-guest $layout: 1 passed, 0 failed"
else
  echo "FAIL bench/herd: spawn_bench herd exited $?"
  echo "vm-guest $layout: 0 passed, 1 failed"
fi
