# shellcheck shell=bash disable=SC2206,SC2016  # token lists split on purpose; the ranks expand their own variables
# NUMABIND_GUARD in the 16-CPU guest (layout A, sourced by guest_suite.sh): "the guard keeps a rank that
# widens itself inside its set". Four ranks through a real launcher (the bash loop of issue 4, and Open MPI's
# mpirun), each running helpers/widen, which asks for the whole machine with sched_setaffinity on itself and
# pthread_setaffinity_np on a second thread. Guard on: each rank ends on its node's CPUs (node n = CPUs
# 4n..4n+3, from the layout) and the shim says so once per rank; guard off: each widens to every CPU.

WIDEN=${WIDEN:-$(dirname "$REPORT")/widen}

# guard_ranks N "TOKENS..." MODE: the widen reports $WORK/guard.0.. hold, for rank r, "start" on the r-th
# token's CPUs and "main" and "thread" on MODE's (inside: the same; widened: every online CPU). Prints why
# not; nothing when they match.
guard_ranks() {
  local n=$1 mode=$3 r f line all want start what why=""
  local -a want_cpus=($2)
  read -r all < /sys/devices/system/cpu/online; canon "$all"; all=$REPLY
  for ((r = 0; r < n; r++)); do
    f=$WORK/guard.$r
    [ -s "$f" ] || { why+="no report from rank $r; "; continue; }
    canon "${want_cpus[r]}"; start=$REPLY
    want=$start; [ "$mode" = widened ] && want=$all
    while IFS= read -r line; do
      [[ $line =~ ^(start|main|thread)\ .*cpus=([0-9,-]+|none)$ ]] || continue
      what=${BASH_REMATCH[1]}
      canon "${BASH_REMATCH[2]}"  # (canon's own match replaces BASH_REMATCH)
      case $what in
        start) [ "$REPLY" = "$start" ] || why+="rank $r started on $REPLY, want $start; " ;;
        *) [ "$REPLY" = "$want" ] || why+="rank $r $what on $REPLY, want $want ($mode); " ;;
      esac
      [[ $line == main\ * && $line != *' rc=0 '* ]] && why+="rank $r: $line; "
    done < "$f"
  done
  echo "$why"
}

# guard_case NAME KIND GUARD MODE: 4 ranks by KIND (bash or ompi) with NUMABIND_GUARD=GUARD end MODE.
guard_case() {
  local name=guard/$1 kind=$2 guard=$3 mode=$4 why lines
  need "$name" "$SHIM" "$WIDEN" || return
  rm -f "$WORK"/guard.* "$WORK/log"
  local -a pre=(env LD_PRELOAD="$SHIM" NUMABIND_LOG=info NUMABIND_LOG_FILE="$WORK/log" NUMABIND_POLICY=node
                NUMABIND_DEVICES=none NUMABIND_GUARD="$guard")
  case $kind in
    bash)
      "${pre[@]}" env W="$WIDEN" F="$WORK/guard" timeout -k 5 90 \
        bash -c 'for ((i = 0; i < 4; i++)); do LOCAL_RANK=$i LOCAL_WORLD_SIZE=4 $W --out $F.$i & done; wait' ;;
    ompi)
      "${pre[@]}" env W="$WIDEN" F="$WORK/guard" timeout -k 5 120 mpirun.openmpi -np 4 --oversubscribe \
        bash -c 'exec $W --out $F.$OMPI_COMM_WORLD_LOCAL_RANK' ;;
  esac
  why=$(guard_ranks 4 "0-3 4-7 8-11 12-15" "$mode")
  lines=$(grep -c 'NUMABIND_GUARD=1: sched_setaffinity(0) asked for cpus 0-15, narrowed to cpus' "$WORK/log" 2>/dev/null)
  if [ "$guard" = 1 ]; then
    [ "${lines:-0}" -eq 4 ] || why+="${lines:-0} narrowing lines in the log, want one per rank; "
  else
    [ "${lines:-0}" -eq 0 ] || why+="$lines narrowing lines with the guard off; "
  fi
  verdict "$name" "$why$([ -n "$why" ] && head -c 600 "$WORK/log" | tr '\n' ' ')"
}

guard_checks() {
  guard_case bash-on-stays-inside bash 1 inside
  guard_case bash-off-widens bash 0 widened
  guard_case ompi-on-stays-inside ompi 1 inside
}
