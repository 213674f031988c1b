#!/usr/bin/env bash
# The table of what NUMABIND_POLICY=auto decides on each topology file of tests/data/topologies, from
# `numabind plan` itself (its "auto:" line), so it cannot drift from the code. It sits between two lines of
# tests/data/topologies/README.md:
#   <!-- auto:begin -->
#   <!-- auto:end -->
#
#   scripts/auto_table.sh                    prints the table
#   scripts/auto_table.sh --update [FILE]    rewrites the lines between the markers
#   scripts/auto_table.sh --check [FILE]     exits 1 when they differ from the table
# Rows: every file, with the devices `auto` finds there (and again without devices when it finds some), for
# 1, 2, 4, 8 and 32 local ranks. The command is $BUILD/numabind (BUILD=build by default).
set -euo pipefail
BUILD=${BUILD:-build}
bin="$BUILD/numabind"
dir=tests/data/topologies
[ -x "$bin" ] || { echo "auto_table: $bin is not built (make BUILD=$BUILD)" >&2; exit 1; }

table() {
  echo "| file | devices | ranks | what auto decides |"
  echo "| --- | --- | --- | --- |"
  local f name devices n line found
  for f in "$dir"/*.xml; do
    name=$(basename "$f")
    found=
    for devices in auto none; do
      # Without devices found, the auto rows already are the rows without devices.
      [ "$devices" = none ] && [[ "$found" == "no devices"* ]] && continue
      for n in 1 2 4 8 32; do
        # The line of `numabind plan` for auto under its heading: "auto: WHERE, N ranks -> DECISION".
        line=$(env -i PATH="$PATH" "$bin" plan --topology "$f" --policy auto --devices "$devices" --ranks "$n" |
          sed -n 2p)
        case "$line" in auto:*) ;; *) echo "auto_table: $name: no auto line: $line" >&2; exit 1 ;; esac
        line=${line#auto: }
        [ "$devices" = auto ] && found=$line
        echo "| \`$name\` | $devices | $n | $line |"
      done
    done
  done
}

mode=${1:-}
readme=${2:-$dir/README.md}
case "$mode" in
  "") table; exit 0 ;;
  --update|--check) ;;
  *) echo "auto_table: unknown option $mode (--update or --check)" >&2; exit 2 ;;
esac
[ -f "$readme" ] || { echo "auto_table: $readme not found" >&2; exit 1; }
rows=$(mktemp) new=$(mktemp)
trap 'rm -f "$rows" "$new"' EXIT
table >"$rows"
if ! awk -v rows="$rows" '
  $0 == "<!-- auto:begin -->" { print; while ((getline line < rows) > 0) print line; skipping = 1; begun = 1; next }
  $0 == "<!-- auto:end -->" && skipping { skipping = 0; ended = 1 }
  !skipping { print }
  END { exit (begun && ended) ? 0 : 3 }' "$readme" >"$new"; then
  echo "auto_table: $readme needs the lines <!-- auto:begin --> and <!-- auto:end -->" >&2
  exit 1
fi
if cmp -s "$new" "$readme"; then
  [ "$mode" = --check ] && echo "auto_table: $readme is up to date"
  exit 0
fi
if [ "$mode" = --check ]; then
  echo "auto_table: $readme's auto table differs from \`numabind plan --policy auto\`:" >&2
  diff -u "$readme" "$new" >&2 || true
  echo "auto_table: run scripts/auto_table.sh --update (or make auto-table)" >&2
  exit 1
fi
cat "$new" >"$readme"
echo "auto_table: updated $readme"
