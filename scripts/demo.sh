#!/usr/bin/env bash
# `make demo`: this machine's plan, a two-socket plan from a synthetic topology (a table, then drawn), then
# real ranks launched through the shim by a bash loop and by Open MPI's mpirun, each reporting where it landed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=build-link.sh
. scripts/build-link.sh
preloadable_build "${BUILD:-build}"
B=$PRELOAD_BUILD
NB=$B/numabind
ranks=$(nproc); [ "$ranks" -gt 4 ] && ranks=4

echo "== numabind plan on this machine (policy exclusive, $ranks ranks)"
$NB plan --policy exclusive --ranks "$ranks"
echo
echo "== numabind plan for a 2-socket, 4-node synthetic machine (policy node, 8 ranks, memory bind)"
$NB plan --topology 'synthetic:pack:2 numa:2 l3:1 core:4 pu:2' --policy node --ranks 8 --memory bind
echo
echo "== the same machine drawn, policy exclusive (numabind plan --draw)"
$NB plan --draw --topology 'synthetic:pack:2 numa:2 l3:1 core:4 pu:2' --policy exclusive --ranks 8
echo

report() {  # prints the report lines of $1, sorted by rank
  sort -t'"' -k8,8n "$1" | sed -E 's/.*"pid":([0-9]+).*"rank":"([0-9]*)".*"cpus":"([^"]*)".*"mems":"([^"]*)".*"policy":"([^"]*)".*/  rank \2  pid \1  cpus \3  mems \4  memory policy \5/'
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp" ${BUILD_LINK_DIR:+"$BUILD_LINK_DIR"}' EXIT

echo "== a bash loop starts $ranks ranks with LD_PRELOAD=$B/libnumabind.so NUMABIND_POLICY=exclusive"
export NUMABIND_LOG=info NUMABIND_LOG_FILE=$tmp/log
R=$B/helpers/report F=$tmp/bash LD_PRELOAD=$B/libnumabind.so NUMABIND_POLICY=exclusive bash -c "
  for i in \$(seq 0 $((ranks - 1))); do LOCAL_RANK=\$i LOCAL_WORLD_SIZE=$ranks \"\$R\" --out \"\$F\" & done; wait"
report "$tmp/bash"
echo "  shim log:"; sed 's/^/    /' "$tmp/log"; : > "$tmp/log"
echo

if command -v mpirun.openmpi >/dev/null; then
  echo "== Open MPI: mpirun -np $ranks (its default binding), same variables"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LD_PRELOAD=$B/libnumabind.so \
    NUMABIND_POLICY=exclusive mpirun.openmpi --oversubscribe -np "$ranks" "$B/helpers/report" --out "$tmp/mpi" \
    >/dev/null
  report "$tmp/mpi"
  echo "  shim log:"; sed 's/^/    /' "$tmp/log"
fi
