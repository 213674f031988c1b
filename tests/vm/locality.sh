# shellcheck shell=bash disable=SC2153,SC2154  # NB, SHIM, REPORT, WORK: guest_suite.sh
# Where a rank's memory is at its end (issue 37), in the 16-CPU guest (layout A, sourced by guest_suite.sh
# after lib.sh): rank 0 of 1 under NUMABIND_POLICY=nodes:1 runs on node 1 (CPUs 4-7); it touches 64 MiB bound by
# itself (mbind) to node 0 (locality/remote-memory) or to node 1 (locality/own-memory) and keeps it until it
# exits. Its end event measures where its memory is, and `numabind report` must exit 1 naming node 0 in the
# first case and exit 0 in the second.

# locality_case NAME NODE WANT_STATUS: the rank's memory on NODE; report's exit status must be WANT_STATUS.
locality_case() {
  local name=locality/$1 node=$2 want=$3 out status why=""
  rm -f "$WORK/loc.log"
  env LD_PRELOAD="$SHIM" NUMABIND_POLICY=nodes:1 NUMABIND_DEVICES=none NUMABIND_LOG=info \
    NUMABIND_LOG_FORMAT=json NUMABIND_LOG_FILE="$WORK/loc.log" LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 \
    "$REPORT" --touch 64 --touch-node "$node" >"$WORK/loc.out" 2>&1 ||
    { fail "$name" "the rank exited $?: $(tail -c 300 "$WORK/loc.out")"; return; }
  out=$("$NB" report "$WORK/loc.log" 2>&1) && status=0 || status=$?
  [ "$status" -eq "$want" ] || why+="report exit $status, want $want; "
  grep -q '"anon_kb":' "$WORK/loc.log" || why+="no locality in the end line; "
  if [ "$want" -eq 1 ]; then
    grep -q 'most on node 0' <<<"$out" || why+="report does not name node 0; "
  fi
  verdict "$name" "${why%; }${why:+: $(tr '\n' ' ' <<<"$out" | tail -c 600)}"
}

locality_checks() {
  locality_case remote-memory 0 1
  locality_case own-memory 1 0
}
