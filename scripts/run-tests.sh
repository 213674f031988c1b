#!/usr/bin/env bash
# Runs every test suite given on the command line (Criterion binaries, or shell suites *.sh that end with an
# "N passed, N failed[, N skipped]" line), the sanitized and fuzzing suites named by ASAN_TESTS and
# FUZZ_TARGETS (below), the multi-NUMA guest suite (tests/vm/run.sh) unless SKIP_VM=1 and the namespace
# cluster suite (tests/cluster/run.sh) unless SKIP_CLUSTER=1, and closes with one line that totals them all
# ("tests: N passed, N failed, N skipped"). The Criterion binaries run first, alone; then the guests and the
# cluster start in the background and everything else runs beside them. A suite that crashes or prints no
# result counts as a failure, never as a pass. A skipped test (Criterion's cr_skip_test, a suite's
# "N skipped") is counted as skipped; under CI (CI=true), which runs as root with every package installed, a
# skip fails the run. Before the total it prints how long each suite took (wall time, the background ones
# from their start), and the build's time when the Makefile passes BUILD_SECONDS.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=build-link.sh
. scripts/build-link.sh
preloadable_build "${BUILD:-build}"
export BUILD=$PRELOAD_BUILD  # the test binaries preload $BUILD/libnumabind.so into the programs they run
passed=0 failed=0 skipped=0 status=0
times=()  # "SECONDS NAME" per suite, for the table at the end
t_suite=0
started() { t_suite=$(date +%s); }
took() { times+=("$(($(date +%s) - t_suite)) $1"); }  # $1 = suite name
t_all=$(date +%s)
log=$(mktemp) cluster_log=$(mktemp) vm_log=$(mktemp)
trap 'rm -f "$log" "$cluster_log" "$vm_log"; [ -z "$BUILD_LINK_DIR" ] || rm -rf "$BUILD_LINK_DIR"' EXIT

tally() {  # $1 = suite name, $2 = exit status; reads $log
  local line p f c s
  # Criterion leaves skipped tests out of its synthesis; its --verbose=1 output names each one.
  s=$(grep -a -c -E '^\[SKIP\] ' "$log")
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
    c=0
  else
    p=$(grep -o -E 'Passing: [0-9]+' <<<"$line" | grep -o -E '[0-9]+')
    f=$(grep -o -E 'Failing: [0-9]+' <<<"$line" | grep -o -E '[0-9]+')
    c=$(grep -o -E 'Crashing: [0-9]+' <<<"$line" | grep -o -E '[0-9]+')
  fi
  passed=$((passed + p)); failed=$((failed + f + c)); skipped=$((skipped + s))
  if [ "$2" -ne 0 ] || [ "$f" -ne 0 ] || [ "$c" -ne 0 ]; then status=1; fi
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ] && [ "$c" -eq 0 ]; then
    echo "run-tests: $1 exited $2 with no failing test: counted as one failure"; failed=$((failed + 1))
  fi
}

# The Criterion suites first, on an otherwise idle machine: the shim's tests time how fast the library
# reacts (a signal while preparing, the shared basis's waits).
for bin in "$@"; do
  [[ $bin == *.sh ]] && continue
  name=$(basename "$bin")
  echo "=== $name"
  started
  # --verbose=1 so that skipped tests are named; the RUN and PASS lines are kept out of the output.
  "$bin" -j2 --verbose=1 2>&1 | tee "$log" | grep -a -v -E '^\[(RUN |PASS)\] |^\[====\] Running '
  rc=${PIPESTATUS[0]}
  took "$name"
  tally "$name" "$rc"
done

# Then the guests (tests/vm/run.sh) unless SKIP_VM=1 and the namespace cluster (tests/cluster/run.sh) unless
# SKIP_CLUSTER=1 start in the background: the guests are the longest suite (two at once, one CPU each,
# tests/vm/run.sh), the cluster mostly waits (daemons, ssh). Everything else runs beside them at a lower
# priority (BESIDE_NICE, nice 10), in the guests' idle time and after them. Their output is shown when they
# end.
vm_pid='' cluster_pid=''
if [ "${SKIP_VM:-0}" != 1 ]; then
  echo "=== vm (tests/vm/run.sh, in the background; output when it ends)"
  t_vm=$(date +%s)
  BUILD=$BUILD tests/vm/run.sh >"$vm_log" 2>&1 &
  vm_pid=$!
fi
if [ "${SKIP_CLUSTER:-0}" != 1 ]; then
  echo "=== cluster (tests/cluster/run.sh, in the background; output when it ends)"
  t_cluster=$(date +%s)
  BUILD=$BUILD tests/cluster/run.sh >"$cluster_log" 2>&1 &
  cluster_pid=$!
fi
beside=()
if [ -n "$vm_pid" ]; then
  beside=(nice -n "${BESIDE_NICE:-10}")
  # The first guest boots before anything runs beside it (at most 60 s): bringing up 16 vCPUs on a busy
  # machine once took 127 s instead of 10 (2026-12-03).
  for _ in $(seq 600); do
    if grep -q 'vm-init: layout' "$vm_log" 2>/dev/null || ! kill -0 "$vm_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
fi

for bin in "$@"; do
  [[ $bin == *.sh ]] || continue
  name=$(basename "$bin")
  echo "=== $name"
  started
  "${beside[@]}" "$bin" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  took "$name"
  tally "$name" "$rc"
done

# The unit tests and the command again under ASan and UBSan (ASAN_TESTS: Criterion binaries of $BUILD/asan,
# whose cli tests run $BUILD/asan/numabind), then a short fuzzing pass (FUZZ_TARGETS: fuzz/README.md).
# verify_asan_link_order=0: tests preload the plain libnumabind.so into the sanitized command;
# fast_unwind_on_malloc=0: whole allocation stacks, which the suppressions in tests/lsan.supp match (the
# path quoted: the sanitizers' options split at spaces, and a checkout's path may have one);
# print_suppressions=0: no "Suppressions used" table on a command's standard error, which tests compare.
for bin in ${ASAN_TESTS:-}; do
  name="asan $(basename "$bin")"
  echo "=== $name"
  started
  BUILD=$BUILD/asan ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:fast_unwind_on_malloc=0 \
    LSAN_OPTIONS="suppressions='$PWD/tests/lsan.supp':print_suppressions=0" UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "${beside[@]}" "$bin" -j2 --verbose=1 2>&1 | tee "$log" | grep -a -v -E '^\[(RUN |PASS)\] |^\[====\] Running '
  rc=${PIPESTATUS[0]}
  took "$name"
  tally "$name" "$rc"
done
if [ -n "${FUZZ_TARGETS:-}" ]; then
  echo "=== fuzz (scripts/fuzz.sh --short)"
  started
  # shellcheck disable=SC2086  # a list of paths without blanks, from the Makefile
  BUILD=$BUILD "${beside[@]}" scripts/fuzz.sh --short $FUZZ_TARGETS 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  took fuzz
  tally fuzz "$rc"
fi

background() {  # NAME PID START LOG: waits for a background suite, shows its output, tallies it
  wait "$2"; local rc=$?
  t_suite=$3; took "$1 (background)"
  echo "=== $1"
  cat "$4"; cp "$4" "$log"
  tally "$1" "$rc"
}
[ -z "$vm_pid" ] || background vm "$vm_pid" "$t_vm" "$vm_log"
[ -z "$cluster_pid" ] || background cluster "$cluster_pid" "$t_cluster" "$cluster_log"

if [ "$skipped" -gt 0 ] && [ "${CI:-}" = true ]; then
  echo "run-tests: $skipped tests skipped under CI, which must run them all"; status=1
fi
echo "=== time per suite (wall seconds)"
[ -z "${BUILD_SECONDS:-}" ] || printf '%6s  %s\n' "$BUILD_SECONDS" build
for t in "${times[@]}"; do printf '%6s  %s\n' "${t%% *}" "${t#* }"; done
printf '%6s  %s\n' "$(($(date +%s) - t_all + ${BUILD_SECONDS:-0}))" total
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
