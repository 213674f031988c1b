#!/bin/sh
# order_worker.sh DIR N: a script worker (tests/shim/by_order_test.cc), which runs as "/bin/sh
# /path/order_worker.sh DIR N". It writes its own CPUs (Cpus_allowed_list of /proc/PID/status) to DIR/PID,
# then stays alive until DIR holds N entries (up to 10 s), as helpers/barrier does.
dir=$1 want=$2
while read -r key value; do
  [ "$key" = "Cpus_allowed_list:" ] && cpus=$value
done </proc/$$/status
echo "$cpus" >"$dir/$$"
i=0
while [ $i -lt 1000 ]; do
  set -- "$dir"/*
  [ $# -ge "$want" ] && exit 0
  sleep 0.01
  i=$((i + 1))
done
exit 1
