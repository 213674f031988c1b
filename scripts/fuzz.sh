#!/usr/bin/env bash
# Runs each libFuzzer target given on the command line ($BUILD/fuzz/<name>_fuzz, fuzz/README.md) over its
# seed corpus (fuzz/corpus/<name>) and then on new inputs for a bounded time, and closes with one line
# ("fuzz: N passed, N failed") that scripts/run-tests.sh tallies; a target passes when it finds nothing.
#   scripts/fuzz.sh [--short] BIN...
# FUZZ_SECONDS (default 60) per target; --short (make test) FUZZ_SHORT_SECONDS (default 3), a fresh work
# corpus and a fixed seed (FUZZ_SEED, default 1), so that make test tries the same inputs each time. Inputs a target finds go to $BUILD/fuzz/work/<name> (kept between runs of `make fuzz`), crashes to
# $BUILD/fuzz/crashes/<name>-*; the repository's corpus is only read. FUZZ_JOBS targets run at once (default:
# the CPU count).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
seconds=${FUZZ_SECONDS:-60} short=0
seed=()
if [ "${1:-}" = --short ]; then short=1; seconds=${FUZZ_SHORT_SECONDS:-3}; seed=(-seed="${FUZZ_SEED:-1}"); shift; fi
passed=0 failed=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$BUILD/fuzz/crashes"
fuzz_one() {  # BIN: runs one target; its report into $tmp/NAME.report, 0 or 1 into $tmp/NAME.failed
  local bin=$1 name corpus work log rc runs cov
  name=$(basename "$bin"); name=${name%_fuzz}
  corpus=fuzz/corpus/$name
  work=$BUILD/fuzz/work/$name
  [ "$short" = 1 ] && work=$tmp/$name
  mkdir -p "$work" "$corpus"
  log=$tmp/$name.log
  # -timeout: an input that takes more than 10 s is a hang; -rss_limit_mb and -malloc_limit_mb: a parser
  # that needs more than 1 GB for a value of at most -max_len bytes is a defect (issue 11, item 12).
  "$bin" "${seed[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$BUILD/fuzz/crashes/$name-" "$work" "$corpus" >"$log" 2>&1
  rc=$?
  runs=$(grep -a -o -E '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -o -E '[0-9]+$')
  cov=$(grep -a -o -E 'cov: [0-9]+' "$log" | tail -n 1 | grep -o -E '[0-9]+')
  if [ "$rc" -eq 0 ]; then
    echo 0 >"$tmp/$name.failed"
    echo "fuzz $name: ok, ${runs:-?} inputs in ${seconds} s, ${cov:-?} edges covered" >"$tmp/$name.report"
  else
    echo 1 >"$tmp/$name.failed"
    # The finding: the invariant or sanitizer report and the frames in numabind's own code.
    { echo "fuzz $name: FAILED (exit $rc)"
      { grep -a -A1 'invariant failed' "$log"
        grep -a -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|^SUMMARY' "$log"
        grep -a -E '^    #[0-9]+ .* (base|config|plan|planner|shim|cli|fuzz)/([a-z_]+/)?[a-z_]+\.(cc|h):' "$log" | head -n 8
        grep -a 'Test unit written' "$log"; } | head -n 20; } >"$tmp/$name.report"
  fi
}

# The targets run FUZZ_JOBS at a time (default: one per CPU); the reports are printed in the given order.
jobs=${FUZZ_JOBS:-$(nproc)} running=0
for bin in "$@"; do
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  fuzz_one "$bin" &
  running=$((running + 1))
done
wait
for bin in "$@"; do
  name=$(basename "$bin"); name=${name%_fuzz}
  if [ -f "$tmp/$name.report" ]; then cat "$tmp/$name.report"; else echo "fuzz $name: FAILED (no report)"; fi
  if [ "$(cat "$tmp/$name.failed" 2>/dev/null)" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
