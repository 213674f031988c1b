#!/usr/bin/env bash
# `make demo`: this machine's plan, a two-socket plan from a synthetic topology (a table, then drawn), then
# real ranks launched through the library by a bash loop and by Open MPI's mpirun under `numabind run`. Each
# rank is `numabind show`, which says where it runs in the words `plan` uses (memory `local`). The commands
# it prints are the ones a user can type from any checkout path: `numabind run` preloads the library (through
# a link of its own when the path has a space or a colon), so no temporary path is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
NB=$(realpath "${BUILD:-build}")/numabind
ranks=$(nproc); [ "$ranks" -gt 4 ] && ranks=4

echo "== numabind plan on this machine (policy exclusive, $ranks ranks)"
"$NB" plan --policy exclusive --ranks "$ranks"
echo
echo "== numabind plan for a 2-socket, 4-node synthetic machine (policy node, 8 ranks, memory bind)"
"$NB" plan --topology 'synthetic:pack:2 numa:2 l3:1 core:4 pu:2' --policy node --ranks 8 --memory bind
echo
echo "== the same machine drawn, policy exclusive (numabind plan --draw)"
"$NB" plan --draw --topology 'synthetic:pack:2 numa:2 l3:1 core:4 pu:2' --policy exclusive --ranks 8
echo

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The ranks' `numabind show --json` lines in $1, each with its rank from the library's log line for its pid
# ("bound rank R of N ... pid P"), by rank; then that log.
report() {
  local pid cpus nodes memory rank
  sed -n 's/.*"pid":\([0-9]*\),.*"cpus":"\([^"]*\)","nodes":"\([^"]*\)","memory":"\([^"]*\)".*/\1 \2 \3 \4/p' "$1" |
    while read -r pid cpus nodes memory; do
      rank=$(sed -n "s/^numabind: bound rank \([0-9]*\) .* pid $pid .*/\1/p" "$tmp/log")
      echo "  rank ${rank:-?}  pid $pid  cpus $cpus  nodes $nodes  memory $memory"
    done | sort -k2,2n
  echo "  the library's log:"; sort -t' ' -k4,4n "$tmp/log" | sed 's/^/    /'; : >"$tmp/log"
}
run=("$NB" run --policy exclusive --log info --log-file "$tmp/log" --)

echo "== a bash loop starts $ranks ranks, each \`numabind show\`:"
echo "   numabind run --policy exclusive --log info -- bash -c \\"
echo "     'for i in \$(seq 0 $((ranks - 1))); do LOCAL_RANK=\$i LOCAL_WORLD_SIZE=$ranks numabind show & done; wait'"
# shellcheck disable=SC2016  # the inner shell's
"${run[@]}" bash -c 'for i in $(seq 0 $(($1 - 1))); do LOCAL_RANK=$i LOCAL_WORLD_SIZE=$1 "$2" show --json & done
  wait' bash "$ranks" "$NB" >"$tmp/bash"
report "$tmp/bash"
echo

if command -v mpirun.openmpi >/dev/null; then
  echo "== Open MPI (its own default binding replaced), each rank \`numabind show\`:"
  echo "   numabind run --policy exclusive --log info -- mpirun --oversubscribe -np $ranks numabind show"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${run[@]}" mpirun.openmpi --oversubscribe \
    -np "$ranks" "$NB" show --json >"$tmp/mpi"
  report "$tmp/mpi"
fi
