# shellcheck shell=bash disable=SC2153,SC2154  # SHIM, WORK, NB: guest_suite.sh
# Pages repaired when a process becomes a rank late (issue 37), in the 16-CPU guest (layout A, sourced by
# guest_suite.sh after lib.sh): late_pages.py touches 64 MiB on node 0 (CPUs 0-3), then becomes a rank
# while it runs: a forked worker setting LOCAL_RANK=3 of 4 under NUMABIND_POLICY=node (node 3, CPUs 12-15:
# move/fork-worker). It must end with its threads on the rank's CPUs and at least 90% of those pages on the
# rank's node; with NUMABIND_MOVE=off the pages stay on node 0 (move/off) and `numabind report` exits 1.
# A device given in-process takes the same way into the rank (BecomeRank's epilogue); the guest has no
# device a CUDA index names (its display devices are virtio-gpu), so that path is tested on the host
# (tests/shim/process_threads_test.cc) for its threads. `numabind bind --pid` moves another process's
# pages with the same mover (bind_pid_case).

# move_case NAME HOW WANT_MOVED VAR=VALUE...: runs late_pages.py HOW with the variables; WANT_MOVED 1: 90%
# of the pages on the node of the CPUs it ended on (not node 0); 0: 90% still on node 0 and report exits 1.
move_case() {
  local name=move/$1 how=$2 want=$3 line cpus thread node on total why="" status
  shift 3
  rm -f "$WORK/move.json" "$WORK/move.log"
  env LD_PRELOAD="$SHIM" NUMABIND_POLICY=node NUMABIND_DEVICES=none NUMABIND_LOG=info NUMABIND_LOG_FORMAT=json \
    NUMABIND_LOG_FILE="$WORK/move.log" "$@" timeout -k 5 120 python3 "$here/late_pages.py" "$WORK/move.json" \
    "$how" >"$WORK/move.out" 2>&1 || { fail "$name" "exit $?: $(tail -c 300 "$WORK/move.out")"; return; }
  line=$(tail -n 1 "$WORK/move.json" 2>/dev/null)
  [ -n "$line" ] || { fail "$name" "no report: $(tail -c 300 "$WORK/move.out")"; return; }
  jlist "$line" cpus; cpus=$REPLY
  jlist "$line" thread; thread=$REPLY
  [ "$cpus" = "$thread" ] || why+="a thread on $thread, the rank on $cpus; "
  node=$(( ${cpus%%[-,]*} / 4 ))
  [ "$node" -ne 0 ] || why+="the rank is on $cpus (node 0); "
  total=$(grep -o '"pages":{[^}]*}' <<<"$line" | grep -o '[0-9]*' | awk 'NR % 2 == 0 {s += $1} END {print s + 0}')
  on=$(grep -o "\"$([ "$want" = 1 ] && echo "$node" || echo 0)\":[0-9]*" <<<"$line" | grep -o '[0-9]*$')
  [ "$total" -gt 0 ] && [ "$((${on:-0} * 100 / total))" -ge 90 ] ||
    why+="pages ${line#*\"pages\":}, want 90% on node $([ "$want" = 1 ] && echo "$node" || echo 0); "
  if [ "$want" = 0 ]; then
    "$NB" report "$WORK/move.log" >"$WORK/move.report" 2>&1 && status=0 || status=$?
    [ "$status" -eq 1 ] || why+="report exit $status with the pages left on node 0; "
  fi
  verdict "$name" "${why%; }"
}

# anon_on PID NODE: pages of PID's private anonymous mappings on NODE, and in all (numa_maps), as "ON TOTAL".
anon_on() {
  awk -v want="N$2" '/anon=/ { for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, kv, "=");
    t += kv[2]; if (kv[1] == want) on += kv[2] } } END { print on + 0, t + 0 }' "/proc/$1/numa_maps"
}

# bind --pid (issue 35): a process bound as rank 0 of 4 (node 0) touches 64 MiB, then `numabind bind --pid`
# makes it rank 3 of 4: every thread on CPUs 12-15, at least 90% of its pages on node 3; with --no-move they
# stay on node 0.
bind_pid_case() {
  local name=move/bind-pid$1 want=$2 pid tid on total why="" i
  shift 2
  rm -f "$WORK/ready"
  "$NB" bind --policy node --rank 0 --ranks 4 -- python3 -c 'import sys, threading, time
b = bytearray(64 << 20)
for i in range(0, len(b), 4096): b[i] = 1
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
open(sys.argv[1], "w").write("ready")
time.sleep(60)' "$WORK/ready" &
  pid=$!
  for i in $(seq 600); do [ -s "$WORK/ready" ] && break; sleep 0.1; done
  "$NB" bind --policy node --rank 3 --ranks 4 --pid "$pid" "$@" >"$WORK/bind.out" 2>&1 ||
    why+="bind --pid exit $?: $(tr '\n' ' ' <"$WORK/bind.out"); "
  for tid in /proc/"$pid"/task/*; do
    [ "$(awk '/Cpus_allowed_list/ {print $2}' "$tid/status")" = 12-15 ] || why+="thread ${tid##*/} not on 12-15; "
  done
  read -r on total < <(anon_on "$pid" "$want")
  [ "$total" -gt 16384 ] && [ $((on * 100 / total)) -ge 90 ] || why+="$on of $total pages on node $want; "
  kill "$pid"; wait "$pid" 2>/dev/null
  verdict "$name" "${why%; }"
}

move_checks() {
  move_case fork-worker fork 1
  move_case off fork 0 NUMABIND_MOVE=off
  bind_pid_case "" 3
  bind_pid_case /no-move 0 --no-move
}
