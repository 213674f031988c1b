#!/usr/bin/env bash
# README.md's table of NUMABIND_* variables comes from the one table in config/vars.def, through
# `numabind vars --markdown`. It sits between two lines of README.md:
#   <!-- vars:begin -->
#   <!-- vars:end -->
#
#   scripts/readme-vars.sh                    prints the table
#   scripts/readme-vars.sh --update [FILE]    rewrites the lines between the markers (README.md by default)
#   scripts/readme-vars.sh --check [FILE]     exits 1 when they differ from the table
# The command is $BUILD/numabind (BUILD=build by default).
set -euo pipefail
BUILD=${BUILD:-build}
bin="$BUILD/numabind"
[ -x "$bin" ] || { echo "readme-vars: $bin is not built (make BUILD=$BUILD)" >&2; exit 1; }

mode=${1:-}
readme=${2:-README.md}
case "$mode" in
  "") exec "$bin" vars --markdown ;;
  --update|--check) ;;
  *) echo "readme-vars: unknown option $mode (--update or --check)" >&2; exit 2 ;;
esac

[ -f "$readme" ] || { echo "readme-vars: $readme not found" >&2; exit 1; }
table=$(mktemp) new=$(mktemp)
trap 'rm -f "$table" "$new"' EXIT
"$bin" vars --markdown >"$table"

# Copy the file, replacing what lies between the marker lines with the table.
if ! awk -v table="$table" '
  $0 == "<!-- vars:begin -->" { print; while ((getline line < table) > 0) print line; skipping = 1; begun = 1; next }
  $0 == "<!-- vars:end -->" && skipping { skipping = 0; ended = 1 }
  !skipping { print }
  END { exit (begun && ended) ? 0 : 3 }' "$readme" >"$new"; then
  echo "readme-vars: $readme needs the lines <!-- vars:begin --> and <!-- vars:end -->" >&2
  exit 1
fi

if cmp -s "$new" "$readme"; then
  [ "$mode" = --check ] && echo "readme-vars: $readme is up to date"
  exit 0
fi
if [ "$mode" = --check ]; then
  echo "readme-vars: $readme's variable table differs from \`numabind vars --markdown\`:" >&2
  diff -u "$readme" "$new" >&2 || true
  echo "readme-vars: run scripts/readme-vars.sh --update" >&2
  exit 1
fi
cat "$new" >"$readme"
echo "readme-vars: updated $readme"
