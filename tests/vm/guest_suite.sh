#!/usr/bin/env bash
# The guest half of the multi-NUMA suite: run by tests/vm/init.sh inside the emulated machine (chrooted into
# the host's root file system, read-only; /tmp and /run are the guest's own).
# Usage: guest_suite.sh LAYOUT REPO BUILD. Prints "PASS name" / "FAIL name: why" per check and ends with
# "vm-guest LAYOUT: N passed, N failed". The layout's checks and hand-computed expectations are in
# layout_LAYOUT.sh.
set -u
layout=$1 repo=$2 build=$3
here=$repo/tests/vm
# LD_PRELOAD splits at spaces and colons: reach a build directory whose path has one through a link.
case $build in *[[:space:]:]*) ln -sfn "$build" /tmp/numabind-build && build=/tmp/numabind-build ;; esac
NB=$build/numabind SHIM=$build/libnumabind.so REPORT=$build/helpers/report
WORK=$(mktemp -d /tmp/vm.XXXXXX)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI: no network beyond loopback here, and no warnings about it on the console.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# shellcheck source=lib.sh
. "$here/lib.sh"
t0=$(date +%s)

# The guest's own view, compared with what the layout asked qemu for: checks the emulation (and the test's
# expectations) independently of numabind. topo_case NAME WANT GOT
topo_case() { verdict "topology/$1" "$([ "$2" = "$3" ] || echo "want '$2' got '$3'")"; }
sysfs_cpus() {  # FILE under /sys/devices/system/cpu/cpuN of every online CPU, space separated, read without forks
  local c v out=""
  read -r v < /sys/devices/system/cpu/online; expand_list "$v"
  for c in $REPLY; do
    v='?'; read -r v < "/sys/devices/system/cpu/cpu$c/$1"; out+=" $v"
  done
  echo "${out# }"
}
node_cpus() {  # cpulist of every online node, space separated
  local n v out=""
  read -r v < /sys/devices/system/node/online; expand_list "$v"
  for n in $REPLY; do read -r v < "/sys/devices/system/node/node$n/cpulist"; out+=" $v"; done
  echo "${out# }"
}
hwloc_counts() {  # what hwloc sees: "packages NUMA-nodes L3s cores PUs", one process
  local info t out=""
  info=$(hwloc-info 2>&1)
  for t in Package NUMANode L3Cache Core PU; do
    [[ $info =~ ([0-9]+)\ $t\ \( ]] && out+=" ${BASH_REMATCH[1]}" || out+=" ?"
  done
  echo "${out# }"
}

# control: without the shim a rank gets every CPU, so the checks below can tell bound from unbound.
control_case() {
  local all; read -r all < /sys/devices/system/cpu/online
  need control/no-shim "$REPORT" || return
  rm -f "$WORK/ranks"
  N=4 R=$REPORT F=$WORK/ranks timeout 60 \
    bash -c 'for ((i = 0; i < N; i++)); do LOCAL_RANK=$i LOCAL_WORLD_SIZE=$N $R --out $F & done; wait'
  verdict control/no-shim "$(ranks_match 4 "$all/0" "")"
}

if [ -f "$here/layout_$layout.sh" ]; then
  # shellcheck source=/dev/null
  . "$here/layout_$layout.sh"
  control_case
  layout_checks
  # The stress and fault checks need many CPUs: the 16-CPU layout runs them.
  if [ "$layout" = A ]; then
    # shellcheck source=stress.sh
    . "$here/stress.sh"
    stress_checks
    # A real one-node Slurm: srun's tasks, one per NUMA node, bind themselves.
    # shellcheck source=slurm.sh
    . "$here/slurm.sh"
    slurm_checks
    # NUMABIND_EXPORT=omp: OpenMP threads inside each rank.
    # shellcheck source=omp.sh
    . "$here/omp.sh"
    omp_checks
    . "$here/guard.sh" && guard_checks  # NUMABIND_GUARD: a rank that widens itself stays inside its set
    # Ranks nobody names: a `&` loop (NUMABIND_MATCH) and a fork pool (NUMABIND_FORKS), one per node.
    # shellcheck source=byorder.sh
    . "$here/byorder.sh"
    byorder_checks
    # Where a rank's memory is at its end: numabind report judges it (issue 37).
    # shellcheck source=locality.sh
    . "$here/locality.sh"
    locality_checks
    # A late rank's pages moved to its node (issue 37).
    # shellcheck source=move.sh
    . "$here/move.sh"
    move_checks
  fi
  # Site-wide use of the installed package, in the quicker layout; before it, network rails on Soft-RoCE.
  if [ "$layout" = B ]; then
    # shellcheck source=rdma.sh
    . "$here/rdma.sh"
    rdma_checks
    # shellcheck source=sitewide.sh
    . "$here/sitewide.sh"
    sitewide_checks
  fi
else
  fail "$layout/layout" "no $here/layout_$layout.sh"
fi
echo "note: guest suite took $(($(date +%s) - t0))s"
rm -rf "$WORK"
echo "vm-guest $layout: $PASSED passed, $FAILED failed"
