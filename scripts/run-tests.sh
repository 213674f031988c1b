#!/usr/bin/env bash
# Runs every test suite given on the command line (Criterion binaries, or shell suites *.sh that end with an
# "N passed, N failed[, N skipped]" line), then the multi-NUMA guest suite (tests/vm/run.sh) unless
# SKIP_VM=1, and closes with one line that totals them all. A suite that crashes or prints no result counts
# as a failure, never as a pass; a suite that cannot run here (no root) counts as skipped.
set -uo pipefail
BUILD=${BUILD:-build}
passed=0 failed=0 skipped=0 status=0
log=$(mktemp); trap 'rm -f "$log"' EXIT

tally() {  # $1 = suite name, $2 = exit status; reads $log
  local line p f c s
  line=$(grep -a -E 'Synthesis: Tested: [0-9]+' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    line=$(grep -a -E '^[a-z-]*:? ?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
      echo "run-tests: $1 printed no result (exit $2): counted as failed"; failed=$((failed + 1)); status=1
      return
    fi
    p=$(grep -o -E '[0-9]+ passed' <<<"$line" | grep -o -E '[0-9]+')
    f=$(grep -o -E '[0-9]+ failed' <<<"$line" | grep -o -E '[0-9]+')
    s=$(grep -o -E '[0-9]+ skipped' <<<"$line" | grep -o -E '[0-9]+' || echo 0)
    skipped=$((skipped + s))
    c=0
  else
    p=$(grep -o -E 'Passing: [0-9]+' <<<"$line" | grep -o -E '[0-9]+')
    f=$(grep -o -E 'Failing: [0-9]+' <<<"$line" | grep -o -E '[0-9]+')
    c=$(grep -o -E 'Crashing: [0-9]+' <<<"$line" | grep -o -E '[0-9]+')
  fi
  passed=$((passed + p)); failed=$((failed + f + c))
  if [ "$2" -ne 0 ] || [ "$f" -ne 0 ] || [ "$c" -ne 0 ]; then status=1; fi
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ] && [ "$c" -eq 0 ]; then
    echo "run-tests: $1 exited $2 with no failing test: counted as one failure"; failed=$((failed + 1))
  fi
}

for bin in "$@"; do
  name=$(basename "$bin")
  echo "=== $name"
  if [[ $bin == *.sh ]]; then
    BUILD=$BUILD "$bin" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  else
    "$bin" -j2 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  fi
  tally "$name" "$rc"
done

if [ "${SKIP_VM:-0}" != 1 ]; then
  echo "=== vm (tests/vm/run.sh)"
  BUILD=$BUILD tests/vm/run.sh 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  tally vm "$rc"
fi

echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
