#!/usr/bin/env bash
# `make bench`: what the preloaded shim costs the programs a user starts, measured side by side.
# Builds bench/*.c into $BUILD/bench/spawn_bench (not part of the default `make`), runs it, prints a table
# and writes $BUILD/bench/results.json. Needs `make all` first (the Makefile's bench target does that).
# About 1 minute on an idle 2-CPU machine, 2 or more on a busy one. Knobs: BENCH_SPAWNS (spawns per variant
# and method, default 3000), BENCH_ROUNDS (10), BENCH_WARMUP (2), BENCH_PLAN_RUNS (5), BENCH_PREPARE_RUNS
# (runs of `numabind prepare-basis`, 10), BENCH_VARIANTS (a comma-separated subset), BENCH_TOPOLOGY (default:
# the largest file in tests/data/topologies), BENCH_SHIM_B (another build of libnumabind.so, timed in the same
# rounds as variants inert-b, configured-b, bound-b and bound-node-b: judges a change to the shim).
# `spawn_bench affinity` then times NUMABIND_GUARD's cost per sched_setaffinity call (bench/affinity.c), and
# scripts/bench_startup.py then times what self-binding costs a rank at start-up and what preparing costs
# with and without the shared basis (BENCH_STARTUP_RUNS starts per variant, default 200), and
# scripts/bench_report.py times `numabind report` over 100,000 rank lines of one host (BENCH_REPORT_LINES).
# Then `spawn_bench herd` starts 64 self-binding ranks at once, cold, in the 16-CPU qemu guest (tests/vm layout
# A, tests/vm/bench_herd.sh: helper runs and the wall time to the last rank's main; a few minutes here;
# BENCH_VM=0 skips it, and it is skipped with a line when qemu or a kernel to boot is missing).
# BENCH_PROFILE=1 adds callgrind's count of the user-space instructions one preloaded /bin/true executes.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=build-link.sh
. scripts/build-link.sh
preloadable_build "${BUILD:-build}"
BUILD=$PRELOAD_BUILD abs_build=$PRELOAD_BUILD
trap '[ -z "$BUILD_LINK_DIR" ] || rm -rf "$BUILD_LINK_DIR"' EXIT
CC=${CC:-cc}
mkdir -p "$BUILD/bench"
for f in libnumabind.so libempty.so numabind; do
  [ -e "$BUILD/$f" ] || { echo "bench: $BUILD/$f is missing: run make BUILD=$BUILD all" >&2; exit 1; }
done
command -v numactl >/dev/null || { echo "bench: numactl is missing: scripts/install-deps.sh" >&2; exit 1; }
$CC -std=gnu11 -O2 -g -Wall -Wextra -D_GNU_SOURCE -o "$BUILD/bench/spawn_bench" bench/*.c

unset LD_PRELOAD  # the driver itself runs unpreloaded; it gives each spawner its variant's preload

# Each library rewritten whole, as a package manager writes it: the linker writes its output in small pieces,
# and the page cache keeps such a file in small folios, which cost every start that maps more of it (the
# configured variant measured 0.6-0.7% slower than a byte-identical copy in the same rounds, 2026-12-05).
# BENCH_SHIM_B is copied beside them, so that both builds start from the same layout.
for f in libnumabind.so libempty.so; do
  cp "$BUILD/$f" "$BUILD/bench/$f.tmp" && mv "$BUILD/bench/$f.tmp" "$BUILD/$f"
done
if [ -n "${BENCH_SHIM_B:-}" ]; then
  cp "$BENCH_SHIM_B" "$BUILD/bench/shim-b.so"
  export BENCH_SHIM_B=$abs_build/bench/shim-b.so
fi
topology=${BENCH_TOPOLOGY:-tests/data/topologies/192em64t-12gr2n8c2t.xml}
[ -e "$topology" ] || { echo "bench: $topology is missing" >&2; exit 1; }
"$BUILD/bench/spawn_bench" run --build "$BUILD" --topology "$topology" --out "$(realpath -m "$BUILD")/bench/results.json"

# NUMABIND_GUARD: ns per sched_setaffinity call (BENCH_AFFINITY_ROUNDS, BENCH_AFFINITY_CALLS).
"$BUILD/bench/spawn_bench" affinity --build "$(realpath -m "$BUILD")"

# Self-binding at start-up, and preparation with and without the shared basis (BENCH_STARTUP_RUNS, 200).
${PYTHON:-/usr/bin/python3} scripts/bench_startup.py "$abs_build"

# numabind report over 100,000 rank lines of one host (BENCH_REPORT_LINES).
${PYTHON:-/usr/bin/python3} scripts/bench_report.py "$abs_build"

if [ "${BENCH_VM:-1}" != 0 ]; then
  # The guest reads this checkout and $BUILD over 9p; its serial log ($BUILD/vm/A.log) carries the figures.
  echo
  echo "64 self-binding ranks started at once, cold, in the 16-CPU guest (tests/vm layout A)"
  if VM_LAYOUTS=A VM_SCRIPT="$PWD/tests/vm/bench_herd.sh" BUILD="$abs_build" tests/vm/run.sh \
    > "$abs_build/bench/herd.log" 2>&1; then
    sed -n 's/\r$//; s/^herd: /  /p' "$abs_build/vm/A.log"
  else
    echo "  not measured: $(grep -m1 -E 'FAIL|prerequisites' "$abs_build/bench/herd.log" || tail -n 1 "$abs_build/bench/herd.log")"
  fi
fi

if [ "${BENCH_PROFILE:-0}" = 1 ]; then
  # Instructions executed in user space by one start of /bin/true (callgrind's Ir): noise-free, unlike time.
  command -v valgrind >/dev/null || { echo "bench: BENCH_PROFILE=1 needs valgrind" >&2; exit 1; }
  echo
  echo "user-space instructions to start /bin/true once (callgrind Ir)"
  ir() {
    local out; out=$(mktemp)
    env -u LD_PRELOAD "$@" valgrind --tool=callgrind --callgrind-out-file="$out" /bin/true 2>&1 |
      sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
    rm -f "$out"
  }
  printf '  %-40s %12s\n' "no preload" "$(ir)"
  printf '  %-40s %12s\n' "libempty.so" "$(ir LD_PRELOAD="$abs_build/libempty.so")"
  printf '  %-40s %12s\n' "shim, inert" "$(ir LD_PRELOAD="$abs_build/libnumabind.so")"
  printf '  %-40s %12s\n' "shim, NUMABIND_POLICY=node (not a rank)" \
    "$(ir LD_PRELOAD="$abs_build/libnumabind.so" NUMABIND_POLICY=node)"
  bound=(LD_PRELOAD="$abs_build/libnumabind.so" NUMABIND_POLICY=node LOCAL_RANK=0 NUMABIND_BOUND=LOCAL_RANK=0)
  printf '  %-40s %12s\n' "shim, a rank started bound" "$(ir "${bound[@]}")"
  printf '  %-40s %12s\n' "the same, NUMABIND_GUARD=1" "$(ir "${bound[@]}" NUMABIND_GUARD=1)"
fi
