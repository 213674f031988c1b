# shellcheck shell=bash disable=SC2206,SC2154,SC2016  # token lists split on purpose; build from guest_suite.sh
# NUMABIND_EXPORT=omp in the guest (issue 12), sourced by guest_suite.sh after lib.sh for layout A: an OpenMP
# program (helpers/omp_report.c, libgomp) runs as each of 4 ranks of a bash loop with the shim preloaded and
# reports its team and each thread's affinity and CPU. With omp on, each rank's threads must cover exactly its
# rank's cores, one thread per place; with numabind off they spread over the whole machine. Expectations by
# hand from layout A: node n = CPUs 4n..4n+3, SMT pairs (2k, 2k+1), so policy exclusive with 4 ranks (one
# per node) gives rank r the cores {4r,4r+1} and {4r+2,4r+3}.

# omp_case NAME NTHREADS "THREAD_CPUS per rank..." VAR=VALUE...: runs 4 ranks of omp_report with the shim
# preloaded and the variables, and passes when rank r's team has NTHREADS threads whose affinities, joined
# with '|', are token r (a thread's CPU, read by sched_getcpu, must be inside its own affinity).
omp_case() {
  local name=omp/$1 nthreads=$2 r line why="" got a cpus t
  local -a want=($3) lines=()
  need "$name" "$SHIM" "$build/helpers/omp_report" || return
  rm -f "$WORK/omp"
  timeout -k 5 120 env LD_PRELOAD="$SHIM" NUMABIND_DEVICES=none "${@:4}" \
    bash -c 'for ((i = 0; i < 4; i++)); do LOCAL_RANK=$i LOCAL_WORLD_SIZE=4 "$0" --out "$1" & done; wait' \
    "$build/helpers/omp_report" "$WORK/omp" >"$WORK/omp.out" 2>&1
  mapfile -t lines < <(sort "$WORK/omp" 2>/dev/null)
  [ "${#lines[@]}" -eq 4 ] || { fail "$name" "${#lines[@]} reports for 4 ranks: $(tail -c 300 "$WORK/omp.out")"; return; }
  for line in "${lines[@]}"; do
    jfield "$line" rank; r=$REPLY
    jfield "$line" threads; [ "$REPLY" = "$nthreads" ] || why+=" rank $r: $REPLY threads, want $nthreads;"
    jfield "$line" thread_cpus; got=$REPLY
    [ "$got" = "${want[r]}" ] || why+=" rank $r: threads on '$got', want '${want[r]}';"
    jfield "$line" ran_on
    IFS=, read -r -a cpus <<<"$REPLY"; IFS='|' read -r -a a <<<"$got"
    for t in "${!cpus[@]}"; do in_list "${cpus[t]}" "${a[t]}" || why+=" rank $r thread $t ran on ${cpus[t]} outside ${a[t]};"; done
    echo "note: $name rank $r: threads ${a[*]} ran on ${cpus[*]}"
  done
  verdict "$name" "${why# }"
}

omp_checks() {
  # omp on: one thread per core, each bound to its core's two CPUs.
  omp_case exclusive-4-omp 2 "0-1|2-3 4-5|6-7 8-9|10-11 12-13|14-15" \
    NUMABIND_POLICY=exclusive NUMABIND_EXPORT=omp
  # omp-cpus: one thread per CPU of the rank.
  omp_case node-4-omp-cpus 4 "0|1|2|3 4|5|6|7 8|9|10|11 12|13|14|15" \
    NUMABIND_POLICY=node NUMABIND_EXPORT=omp-cpus
  # bound, omp off: libgomp sizes its team by the rank's CPUs, every thread free on all of them.
  omp_case exclusive-4-off 4 "0-3|0-3|0-3|0-3 4-7|4-7|4-7|4-7 8-11|8-11|8-11|8-11 12-15|12-15|12-15|12-15" \
    NUMABIND_POLICY=exclusive
  # numabind off (no policy): every rank's team is one thread per CPU of the machine, each free on all 16.
  local all="0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15|0-15"
  omp_case off-unbound 16 "$all $all $all $all" NUMABIND_EXPORT=omp
}
