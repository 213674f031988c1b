#!/usr/bin/env bash
# `make lint`: the format check (scripts/format.sh --check, .clang-format) and clang-tidy (.clang-tidy, every
# warning an error) over every source the Makefile builds into the library and the command, two at a time.
# Prints one line "lint: N passed, N failed, N skipped" (one check each: format, tidy; a missing tool is a
# skip) for scripts/run-tests.sh, and exits 1 when a check fails. The compile flags are the Makefile's
# (CXXFLAGS_BASE, PURE_FLAGS as clang takes them, the two path macros), and so are the sets: `make print-pure-srcs` (base/,
# config/, plan/, shim/**: PURE_FLAGS) and `make print-command-srcs` (planner/, cli/).
# LINT_ANALYZER=0 (`make test`) leaves out the clang static analyzer's checks (clang-analyzer-*), nine
# tenths of clang-tidy's time (13 s of a file's 14.5); `make lint`, which CI runs, has them all.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${LINT_JOBS:-2}
TIDY=${CLANG_TIDY:-clang-tidy}
tidy_args=(--quiet) tidy_what="every check of .clang-tidy"
if [ "${LINT_ANALYZER:-1}" = 0 ]; then
  tidy_args+=(--checks=-clang-analyzer-*) tidy_what="its checks but the static analyzer's (make lint runs them)"
fi
passed=0 failed=0 skipped=0

echo "--- format (scripts/format.sh --check)"
scripts/format.sh --check; rc=$?
case $rc in 0) passed=$((passed + 1)) ;; 2) skipped=$((skipped + 1)) ;; *) failed=$((failed + 1)) ;; esac

# The docs a newcomer reads: README.md at most 250 lines, and no line of prose over 110 columns in it or in
# docs/ (tables, code blocks and docs/figures.md, the lab notebook, may be wider: a table row or a program's
# output cannot be wrapped).
echo "--- docs (README.md 250 lines, prose within 110 columns)"
docs_bad=$(awk 'FNR == 1 { code = 0 } /^ *```/ { code = !code; next }
  !code && length($0) > 110 && $0 !~ /^ *\|/ { print FILENAME ":" FNR ": " length($0) " columns" }' \
  README.md $(ls docs/*.md | grep -v -x docs/figures.md))
readme_lines=$(wc -l <README.md)
[ "$readme_lines" -le 250 ] || docs_bad+=$'\n'"README.md: $readme_lines lines, more than 250"
if [ -n "$docs_bad" ]; then
  echo "$docs_bad" | sed '/^$/d'; failed=$((failed + 1))
else
  echo "docs: README.md $readme_lines lines, prose within 110 columns"; passed=$((passed + 1))
fi

echo "--- tidy ($TIDY, .clang-tidy)"
if ! command -v "$TIDY" >/dev/null; then
  echo "lint: $TIDY not found (scripts/install-deps.sh installs clang-tidy): skipped"; skipped=$((skipped + 1))
else
  # A compilation database with the flags the Makefile uses, in BUILD (never the checkout's root).
  db=$BUILD/lint; mkdir -p "$db"
  flags='"-std=c++17", "-I.", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Wshadow", "-Wno-unused-parameter"'
  pure_flags=$(make -s --no-print-directory print-pure-flags CXX=clang++) || exit 1
  # shellcheck disable=SC2086  # a list of words
  pure=$(printf ', "%s"' $pure_flags); pure=${pure#, }
  pure_srcs=$(make -s --no-print-directory print-pure-srcs) || exit 1
  command_srcs=$(make -s --no-print-directory print-command-srcs) || exit 1
  srcs="$pure_srcs $command_srcs"
  {
    echo "["; sep=""
    for f in $srcs; do
      extra=""
      case " $pure_srcs " in *" $f "*) extra=", $pure" ;; esac
      [ "$f" = shim/launcher/prepare.cc ] && extra="$extra, \"-DNUMABIND_HELPER_PATH=\\\"/x\\\"\""
      [ "$f" = cli/run_command.cc ] && extra="$extra, \"-DNUMABIND_SHIM_PATH=\\\"\\\"\""
      printf '%s{"directory": "%s", "file": "%s", "arguments": ["c++", %s%s, "-c", "%s"]}\n' \
        "$sep" "$PWD" "$f" "$flags" "$extra" "$f"
      sep=","
    done
    echo "]"
  } >"$db/compile_commands.json"
  start=$(date +%s)
  # --quiet: only the findings; WarningsAsErrors in .clang-tidy makes any finding an error. A file that
  # does not compile is a failure too (its "error:" lines).
  printf '%s\n' $srcs | xargs -P "$JOBS" -n 1 "$TIDY" -p "$db" "${tidy_args[@]}" >"$db/tidy.log" 2>&1
  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^[0-9]+ warnings? treated as errors?$' \
    "$db/tidy.log"
  took=$(( $(date +%s) - start ))
  if grep -q -E ': (warning|error): |^Error while processing' "$db/tidy.log"; then
    failed=$((failed + 1)); echo "lint: clang-tidy found the above (${took} s)"
  else
    passed=$((passed + 1)); echo "lint: clang-tidy clean on $(wc -w <<<"$srcs") files, $tidy_what (${took} s)"
  fi
fi
echo "lint: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
