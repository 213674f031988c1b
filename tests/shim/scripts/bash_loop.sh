#!/usr/bin/env bash
# A launch script as users write them: bash_loop.sh NRANKS CMD ARGS... starts NRANKS copies of CMD in the
# background, each with LOCAL_RANK and LOCAL_WORLD_SIZE set, and waits for all of them.
set -u
n=$1; shift
for ((r = 0; r < n; r++)); do
  LOCAL_RANK=$r LOCAL_WORLD_SIZE=$n "$@" &
done
status=0
for job in $(jobs -p); do wait "$job" || status=1; done
exit $status
