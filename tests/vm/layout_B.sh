# shellcheck shell=bash disable=SC2034,SC2153  # sets the L_* and CG_PREFIX globals that lib.sh reads
# Layout B (tests/vm/run.sh): 2 packages, one NUMA node each; 2 dies (one L3 each) per package; 2 cores per
# die, no SMT. 8 CPUs: node n = package n = CPUs 4n..4n+3; L3 domains {0,1} {2,3} {4,5} {6,7}.
# One display device, 0000:21:01.0, behind a PCI expander bridge on node 1.
# Every expectation below is worked out by hand from that layout.
D=0000:21:01.0
NODE2="0-3/0 4-7/1"
CC4="0-1/0 2-3/0 4-5/1 6-7/1"  # one L3 per rank, two per node

layout_topology() {
  topo_case nodes "0-3 4-7" "$(node_cpus)"
  topo_case l3 "0-1 0-1 2-3 2-3 4-5 4-5 6-7 6-7" "$(sysfs_cpus cache/index3/shared_cpu_list)"
  topo_case smt "0 1 2 3 4 5 6 7" "$(sysfs_cpus topology/thread_siblings_list)"
  topo_case packages "0 0 0 0 1 1 1 1" "$(sysfs_cpus topology/physical_package_id)"
  topo_case devices "1" "$(cat /sys/bus/pci/devices/$D/numa_node)"
  topo_case hwloc "2 2 4 8 8" \
    "$(hwloc_counts)"
}

layout_plans() {
  plan_case node-2 node 2 none "$NODE2"
  plan_case node-4 node 4 none "0-3/0 0-3/0 4-7/1 4-7/1"
  plan_case socket-2 socket 2 none "$NODE2"
  plan_case exclusive-4 exclusive 4 none "$CC4"
  # 3 ranks on 4 cores: the lowest rank takes the remainder.
  plan_case exclusive-6 exclusive 6 none "0-1/0 2/0 3/0 4-5/1 6/1 7/1"
  plan_case core-complex-4 core-complex 4 none "$CC4"
  plan_case core-complex-6 core-complex 6 none "0-1/0 2-3/0 0-1/0 4-5/1 6-7/1 4-5/1"  # wraps
  plan_case cpus-map 'cpus:6-7|0-1' 2 none "6-7/1 0-1/0"
  plan_case nodes-map 'nodes:1|0' 3 none "4-7/1 0-3/0"
  plan_case node-devices node 2 "$D" "4-7/1@$D 4-7/1@$D"
  plan_case socket-devices socket 2 "$D" "4-7/1@$D 4-7/1@$D"
  plan_case exclusive-devices exclusive 3 "$D" "4-5/1@$D 6/1@$D 7/1@$D"
  plan_case core-complex-devices core-complex 3 "$D" "4-5/1@$D 6-7/1@$D 4-5/1@$D"
  plan_case nodes-map-devices 'nodes:0' 2 "$D" "0-3/0"  # the map wins over the device's node
  plan_error_case exclusive-too-many-ranks exclusive 10 none  # 5 ranks for 4 cores on node 0
  # CPU 0 not allowed: L3 {2,3} has more allowed CPUs than {1}, so node 0's first rank takes it.
  plan_case confined-core-complex core-complex 4 none "2-3/0 1/0 4-5/1 6-7/1" taskset -c 1-7
}

layout_launches() {
  launch_case bash-exclusive-6 bash 6 exclusive none - "0-1/0 2/0 3/0 4-5/1 6/1 7/1"
  launch_case bash-core-complex-4 bash 4 core-complex none - "$CC4"
  launch_case bash-socket-devices bash 2 socket "$D" - "4-7/1"
  launch_case bash-core-complex-devices bash 3 core-complex "$D" - "4-5/1 6-7/1 4-5/1"
  launch_case ompi-bind-none-devices ompi 3 exclusive "$D" - "4-5/1 6/1 7/1" --bind-to none
  # Open MPI binds 4 ranks to packages round robin, hydra -bind-to core rank r to CPU r: both replaced,
  # and the log says so.
  L_LOG_SAYS="replaced the launcher's binding"
  launch_case ompi-default-binding-4 ompi 4 core-complex none - "$CC4"
  launch_case hydra-bind-core hydra 4 exclusive none - "$CC4" -bind-to core
  L_LOG_SAYS=""
  launch_case cli-run-bash cli-bash 4 core-complex none - "$CC4"  # `numabind run` preloads the shim
  # Ranks that bind themselves (issue 9): a launcher that is not preloaded, and srun's tasks, which Slurm
  # bound to one CPU each first.
  launch_case self-exclusive-6 self 6 exclusive none - "0-1/0 2/0 3/0 4-5/1 6/1 7/1"
  L_LOG_SAYS="replaced Slurm's binding"
  launch_case srun-core-complex-4 srun 4 core-complex none - "$CC4"
  launch_case srun-socket-devices srun 2 socket "$D" - "4-7/1"
  L_LOG_SAYS=""
}

layout_memory() {
  L_ARGS=(--touch 16)
  launch_case memory-bind bash 2 node none bind "$NODE2"
  launch_case memory-local-hydra hydra 2 node none local "$NODE2"
  launch_case memory-preferred-devices bash 2 node "$D" preferred "4-7/1"
  launch_case memory-bind-srun srun 2 node none bind "$NODE2"  # srun -n2, NUMABIND_MEMORY=bind: pages on the node
  launch_case memory-interleave-ompi ompi 2 'nodes:0-1' none interleave "0-7/0-1" --bind-to none
  L_ARGS=()
}

layout_confined() {
  L_PREFIX=(taskset -c 1-7)
  launch_case confined-taskset-bash bash 4 core-complex none - "2-3/0 1/0 4-5/1 6-7/1"
  L_PREFIX=()
  if cgroup_enter_prefix 1-7; then
    L_PREFIX=("${CG_PREFIX[@]}")
    launch_case confined-cgroup-ompi ompi 4 core-complex none - "2-3/0 1/0 4-5/1 6-7/1"
    # A job's cgroup cpuset: the tasks replace Slurm's binding inside it, never outside.
    launch_case confined-cgroup-srun srun 4 core-complex none - "2-3/0 1/0 4-5/1 6-7/1"
    L_PREFIX=()
  fi
}

# A rank that cannot be bound (its map entry lies outside the launcher's CPUs) still runs, unbound; with
# NUMABIND_STRICT=1 it is not started at all (issue 3).
layout_unplaceable() {
  local n=0
  need launch/unplaceable "$SHIM" "$REPORT" || return
  L_PREFIX=(taskset -c 0-3) L_ENV=(NUMABIND_POLICY='cpus:4-7' NUMABIND_DEVICES=none)
  launch bash 2 > /dev/null 2>&1
  verdict launch/unplaceable-runs-unbound "$(ranks_match 2 "0-3/0" "")"
  L_ENV+=(NUMABIND_STRICT=1)
  launch bash 2 > /dev/null 2>&1
  [ -f "$WORK/ranks" ] && n=$(wc -l < "$WORK/ranks")
  verdict launch/unplaceable-strict-starts-none "$([ "$n" -eq 0 ] || echo "$n ranks started")"
  L_PREFIX=() L_ENV=()
}

# shared_rank CASE WANT-CPUS WANT-SOURCE: rank 3 of 4 (core-complex) binds itself with the shared plan basis in
# $WORK/shared; its CPUs and where its basis came from ("by" the helper, "from the shared basis") are checked.
shared_rank() {
  local line why=""
  rm -f "$WORK/ranks" "$WORK/log"
  mkdir -p "$WORK/shared"
  env LD_PRELOAD="$SHIM" NUMABIND_POLICY=core-complex NUMABIND_DEVICES=none NUMABIND_SHARED="$WORK/shared" \
    NUMABIND_LOG=debug NUMABIND_LOG_FILE="$WORK/log" LOCAL_RANK=3 LOCAL_WORLD_SIZE=4 "$REPORT" --out "$WORK/ranks"
  read -r line < "$WORK/ranks" 2>/dev/null; jlist "$line" cpus
  [ "$REPLY" = "$2" ] || why+="rank 3 on CPUs $REPLY, want $2; "
  grep -q "ms $3" "$WORK/log" 2>/dev/null || why+="basis not '$3': $(head -c 300 "$WORK/log" 2>/dev/null); "
  verdict "shared/$1" "$why"
}

layout_offline() {
  need shared/hotplug "$SHIM" "$REPORT" || return
  shared_rank before-hotplug 6-7 by
  shared_rank reused 6-7 "from the shared basis"
  cpu_offline 5 || return
  # L3 {4,5} keeps CPU 4 alone, so {6,7} comes first on node 1; its cores 4, 6, 7 split 2 + 1.
  plan_case offline-core-complex core-complex 4 none "0-1/0 2-3/0 6-7/1 4/1"
  plan_case offline-exclusive exclusive 4 none "0-1/0 2-3/0 4,6/1 7/1"
  launch_case offline-hydra hydra 4 core-complex none - "0-1/0 2-3/0 6-7/1 4/1"
  # The basis shared before CPU 5 went offline is stale: prepared again (issue 9).
  shared_rank after-hotplug 4 by
  shared_rank after-hotplug-reused 4 "from the shared basis"
  cpu_online 5
  shared_rank back-online 6-7 "from the shared basis"
}

layout_checks() {
  layout_topology
  layout_plans
  layout_launches
  layout_memory
  layout_confined
  layout_unplaceable
  layout_offline
}
