#!/usr/bin/env bash
# scripts/demo.sh (`make demo` once built), from a build directory whose path has a space: it runs, its ranks
# say the memory word its plan says (`local`, as NUMABIND_MEMORY and `plan` write it, not the kernel's
# `default`), and it prints no path that is gone when it exits (its temporary directories: TMPDIR is a fresh
# directory here, and must be empty again). Needs no root. Prints "PASS name" or "FAIL name: why" per check
# and ends with "demo: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
# shellcheck source=lib.sh
. tests/pkg/lib.sh
finish() { echo "demo: $PASSED passed, $FAILED failed"; [ "$FAILED" -eq 0 ]; exit; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! make --no-print-directory BUILD="$BUILD" "$BUILD/numabind" "$BUILD/libnumabind.so" >"$tmp/make.log" 2>&1; then
  fail make "$(tail -5 "$tmp/make.log")"
  finish
fi
# The command and the library in a directory of the build tree whose path has a space (kept from run to run:
# `numabind run` preloads the library through a link in the shared directory named after that path).
spaced="$BUILD/demo space"
mkdir -p "$spaced" "$tmp/tmpdir"
cp -f "$BUILD/numabind" "$BUILD/libnumabind.so" "$spaced/"

out=$(TMPDIR=$tmp/tmpdir BUILD=$spaced scripts/demo.sh 2>&1)
rc=$?
check runs "$([ "$rc" -eq 0 ] || echo "exit $rc: $(tail -5 <<<"$out")")"

# The memory word of this machine's plan (the first table's last column) is every rank's.
plan_word=$(awk '/^rank +device +nodes +cpus +memory/ { getline; print $NF; exit }' <<<"$out")
mapfile -t words < <(sed -n 's/^  rank [0-9?]*  pid [0-9]*  .*  memory \(.*\)$/\1/p' <<<"$out")
ranks=$(nproc); [ "$ranks" -gt 4 ] && ranks=4
why=""
[ -n "$plan_word" ] || why="no plan table;"
[ "${#words[@]}" -ge "$ranks" ] || why+=" ${#words[@]} rank lines for $ranks ranks;"
for w in "${words[@]}"; do [ "$w" = "$plan_word" ] || why+=" a rank says memory $w, the plan $plan_word;"; done
grep -q '^  rank ?' <<<"$out" && why+=" a rank without its rank number;"
check ranks_say_the_plans_memory_word "$why"

# No temporary path: nothing under TMPDIR printed, and nothing left there; every program a log line names
# (`bound rank R of N (VAR) PATH: cpus ...`) is still there.
why=""
grep -qF "$tmp/tmpdir" <<<"$out" && why="printed $(grep -m 1 -oF "$tmp/tmpdir/" <<<"$out")...: gone;"
left=$(find "$tmp/tmpdir" -mindepth 1 -maxdepth 1 | head -3 | tr '\n' ' ')
[ -z "$left" ] || why+=" left in TMPDIR: $left;"
while IFS= read -r path; do
  [ -e "$path" ] || why+=" printed $path: gone;"
done < <(sed -n 's/.*bound rank .*) \(\/.*\): cpus .*/\1/p' <<<"$out")
grep -q 'bound rank' <<<"$out" || why+=" no rank was bound;"
check prints_no_gone_path "$why"
finish
