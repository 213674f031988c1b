# shellcheck shell=bash
# What the package suites share (sourced; not a suite itself): the counters and the verdict functions.
# Each check prints "PASS name" or "FAIL name: why"; the suite ends with its own "N passed, N failed" line.
PASSED=0 FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1: $2"; }
check() { if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi; }  # NAME WHY ("" = pass)
