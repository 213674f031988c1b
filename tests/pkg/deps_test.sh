#!/usr/bin/env bash
# scripts/install-deps.sh's two sets: `make demo` asks for the demo set alone (the compiler, make,
# pkg-config, hwloc and the one launcher the demo runs), `make test` for both; the demo set holds nothing of
# the test lab (qemu, a kernel, Slurm, containers, clang, lintian). Installs nothing: reads the script's
# sets and make's dry runs. Prints "PASS name" or "FAIL name: why" per check and ends with "deps: N passed,
# N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=lib.sh
. tests/pkg/lib.sh

# The sets, as the script declares them (the arrays' words, comments left out).
set_of() { sed -n "/^$1=(/,/^)/p" scripts/install-deps.sh | sed 's/#.*//; s/^[A-Z]*=(//; s/)//' | tr -s ' \n' '\n' | grep -v '^$'; }
demo=$(set_of DEMO | sort)
test_set=$(set_of TEST | sort)
check demo_set_is_the_demos "$([ "$(echo "$demo" | tr '\n' ' ')" = "g++ libhwloc-dev make openmpi-bin pkg-config " ] ||
  echo "demo set: $(echo "$demo" | tr '\n' ' ')")"
lab=$(echo "$demo" | grep -E 'qemu|linux-image|slurm|munge|podman|charliecloud|runc|clang|lintian|criterion|torch|mpich' || true)
check demo_set_has_no_test_lab "$([ -z "$lab" ] || echo "in the demo set: $lab")"
both=$(comm -12 <(echo "$demo") <(echo "$test_set"))
check sets_are_disjoint "$([ -z "$both" ] || echo "in both: $both")"

# What make asks for: `demo` and `test` depend on the deps targets (read from the Makefile: a dry run of
# either would still run their recursive makes), and those targets' dry runs show the sets they ask for.
check make_demo_depends_on_the_demo_set "$(grep -qE '^demo: deps-demo$' Makefile || echo "$(grep -E '^demo:' Makefile)")"
check make_test_depends_on_every_set "$(grep -qE '^test: deps$' Makefile || echo "$(grep -E '^test:' Makefile)")"
demo_calls=$(make --no-print-directory -n deps-demo 2>/dev/null | grep -o 'install-deps.sh[^|&;]*' | sort -u)
test_calls=$(make --no-print-directory -n deps 2>/dev/null | grep -o 'install-deps.sh[^|&;]*' | sort -u)
check deps_demo_asks_for_the_demo_set_only "$(echo "$demo_calls" | grep -q -- '--check demo' &&
  ! echo "$demo_calls" | grep -q 'test' || echo "make deps-demo runs: $demo_calls")"
check deps_asks_for_both "$(echo "$test_calls" | grep -q -- '--check demo' &&
  echo "$test_calls" | grep -q -- '--check test' || echo "make deps runs: $test_calls")"
# The script refuses a set it does not know, and names the sets.
out=$(scripts/install-deps.sh --check lab 2>&1); rc=$?
check unknown_set_is_refused "$([ $rc -eq 2 ] && echo "$out" | grep -q 'sets: demo, test' || echo "exit $rc: $out")"

echo "deps: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
