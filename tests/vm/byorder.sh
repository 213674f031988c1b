# shellcheck shell=bash disable=SC2016,SC2153,SC2154  # workers expand $0, $1; REPORT, here: guest_suite.sh
# Ranks nobody names (issue 25) in the 16-CPU guest (layout A, sourced by guest_suite.sh after lib.sh and
# layout_A.sh): 4 workers that no launcher gives a rank variable, started under NUMABIND_POLICY=node and
# NUMABIND_NRANKS=4, take ranks 0..3 by order from the shared counter and bind to their nodes:
#   - a shell `&` loop of helpers/report with NUMABIND_MATCH naming the worker's path (byorder/loop-node);
#   - a Python multiprocessing.Pool(4) with the fork start method under NUMABIND_FORKS=ranks
#     (fork_pool_pages.py; byorder/fork-pool-node).
# No worker knows its rank: the shim's log says "bound rank R ... pid P", and each worker reports its pid,
# CPUs, memory policy and where 16 MB it touched landed. Expected by hand from layout A: rank r on node r,
# CPUs 4r..4r+3, the kernel's default memory policy, at least 90% of its pages on node r. Without
# NUMABIND_MATCH or NUMABIND_FORKS no worker is bound (every one on CPUs 0-15) and the checks fail.

# byorder_case NAME VAR=VALUE... -- COMMAND...: runs COMMAND, which starts 4 workers that append their
# reports to $WORK/raw, with the shim preloaded, NUMABIND_POLICY=node, NUMABIND_NRANKS=4 and the variables.
# Passes when the shim's log has 4 "bound rank" lines and the workers, each given the rank that the log
# gives its pid, are ranks 0..3 placed as NODE4 says (lib.sh's ranks_match), pages included.
byorder_case() {
  local name=byorder/$1 line pid out bound=0 why=""
  local -a vars=()
  local -A rank_of=()
  shift
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  rm -f "$WORK/raw" "$WORK/ranks" "$WORK/log"
  # timeout outside the preload: a configured timeout's fork would be a forked worker under NUMABIND_FORKS.
  out=$(timeout -k 5 180 env LD_PRELOAD="$SHIM" NUMABIND_LOG=info NUMABIND_LOG_FILE="$WORK/log" \
    NUMABIND_POLICY=node NUMABIND_DEVICES=none NUMABIND_NRANKS=4 "${vars[@]}" "$@" 2>&1) \
    || { fail "$name" "exit $?: $(tail -c 300 <<<"$out" | tr '\n' ' ')"; return; }
  if [ -f "$WORK/log" ]; then
    while IFS= read -r line; do
      [[ $line =~ ^numabind:\ bound\ rank\ ([0-9]+)\ .*\ pid\ ([0-9]+)(\ launch=.*)?$ ]] || continue
      rank_of[${BASH_REMATCH[2]}]=${BASH_REMATCH[1]}; bound=$((bound + 1))
    done < "$WORK/log"
  fi
  [ "$bound" -eq 4 ] || why+="$bound 'bound rank' lines in the shim's log for 4 workers; "
  if [ -f "$WORK/raw" ]; then
    while IFS= read -r line; do
      jfield "$line" pid; pid=$REPLY
      jfield "$line" cpus
      [ -n "${rank_of[$pid]:-}" ] || { why+="worker $pid (CPUs $REPLY) bound no rank; "; continue; }
      echo "${line/\"rank\":\"\"/\"rank\":\"${rank_of[$pid]}\"}"
    done < "$WORK/raw" > "$WORK/ranks"
  fi
  why+=$(ranks_match 4 "$NODE4" local)
  verdict "$name" "${why%; }"
}

byorder_checks() {
  need byorder/loop-node "$SHIM" "$REPORT" \
    && byorder_case loop-node NUMABIND_MATCH="$REPORT*" -- \
      bash -c 'for i in 0 1 2 3; do "$0" --out "$1" --touch 16 & done; wait' "$REPORT" "$WORK/raw"
  need byorder/fork-pool-node "$SHIM" /usr/bin/python3 \
    && byorder_case fork-pool-node NUMABIND_FORKS=ranks -- \
      /usr/bin/python3 "$here/fork_pool_pages.py" 4 16 "$WORK/raw"
}
