# shellcheck shell=bash disable=SC2034,SC2153  # sets the L_* and CG_PREFIX globals that lib.sh reads
# Layout A (tests/vm/run.sh): 2 packages x 2 dies; one NUMA node and one L3 per die; 2 cores x 2 SMT
# threads per die. 16 CPUs: node n = die n = CPUs 4n..4n+3, package p = CPUs 8p..8p+7, SMT pairs (2k, 2k+1).
# Display devices behind PCI expander bridges: 0000:21:01.0 on node 2, 0000:41:01.0 on node 1 (virtio-gpu:
# no accelerator, so `auto` finds none). 0000:00:04.0 (the 9p device) has no locality.
# Every expectation below is worked out by hand from that layout.
D2=0000:21:01.0 D1=0000:41:01.0
DEVS=$D2,$D1  # ordered by bus id: rank r uses device r mod 2, so node 2, node 1, node 2, ...
NODE4="0-3/0 4-7/1 8-11/2 12-15/3"
NODE8="0-3/0 0-3/0 4-7/1 4-7/1 8-11/2 8-11/2 12-15/3 12-15/3"

layout_topology() {
  topo_case nodes "0-3 4-7 8-11 12-15" "$(node_cpus)"
  topo_case l3 "0-3 0-3 0-3 0-3 4-7 4-7 4-7 4-7 8-11 8-11 8-11 8-11 12-15 12-15 12-15 12-15" \
    "$(sysfs_cpus cache/index3/shared_cpu_list)"
  topo_case smt "0-1 0-1 2-3 2-3 4-5 4-5 6-7 6-7 8-9 8-9 10-11 10-11 12-13 12-13 14-15 14-15" \
    "$(sysfs_cpus topology/thread_siblings_list)"
  topo_case packages "0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1" "$(sysfs_cpus topology/physical_package_id)"
  topo_case devices "2 1 -1" "$(cat /sys/bus/pci/devices/{$D2,$D1,0000:00:04.0}/numa_node | tr '\n' ' ' | sed 's/ $//')"
  topo_case hwloc "2 4 4 8 16" \
    "$(hwloc_counts)"
}

layout_plans() {
  plan_case node-4 node 4 none "$NODE4"
  plan_case node-8 node 8 none "$NODE8"
  plan_case node-2 node 2 none "0-3/0 8-11/2"
  plan_case socket-4 socket 4 none "0-7/0-1 0-7/0-1 8-15/2-3 8-15/2-3"  # nodes: the package's
  plan_case exclusive-4 exclusive 4 none "$NODE4"
  plan_case exclusive-8 exclusive 8 none "0-1/0 2-3/0 4-5/1 6-7/1 8-9/2 10-11/2 12-13/3 14-15/3"
  plan_case core-complex-4 core-complex 4 none "$NODE4"
  plan_case core-complex-8 core-complex 8 none "$NODE8"  # one L3 per node: ranks of a node share it
  plan_case cpus-map 'cpus:0-3|8-11' 4 none "0-3/0 8-11/2"  # wraps: ranks 2, 3 as 0, 1
  plan_case cpus-map-repeat 'cpus:0-1*2|14-15' 4 none "0-1/0 0-1/0 14-15/3"
  plan_case nodes-map 'nodes:1|3' 4 none "4-7/1 12-15/3"
  plan_case nodes-map-multi 'nodes:0-1|2-3' 2 none "0-7/0-1 8-15/2-3"
  plan_case devices-auto node 4 auto "$NODE4"
  plan_case node-devices node 4 "$DEVS" "8-11/2@$D2 4-7/1@$D1"
  plan_case socket-devices socket 2 "$DEVS" "8-15/2-3@$D2 0-7/0-1@$D1"
  plan_case exclusive-devices exclusive 4 "$DEVS" "8-9/2@$D2 4-5/1@$D1 10-11/2@$D2 6-7/1@$D1"
  plan_case core-complex-devices core-complex 4 "$DEVS" "8-11/2@$D2 4-7/1@$D1"
  # Explicit maps place ranks themselves, devices or not.
  plan_case cpus-map-devices 'cpus:0-3|8-11' 4 "$DEVS" "0-3/0 8-11/2"
  plan_case nodes-map-devices 'nodes:1|3' 4 "$DEVS" "4-7/1 12-15/3"
  plan_case device-unknown-locality node 2 0000:00:04.0 "0-15/0-3@0000:00:04.0"
  plan_error_case exclusive-too-many-ranks exclusive 16 none          # 4 ranks for 2 cores per node
  plan_error_case exclusive-devices-too-many-ranks exclusive 6 "$DEVS"  # ranks 0, 2, 4 on node 2's 2 cores
  plan_case confined-taskset node 4 none "2-3/0 4-7/1 8-11/2 12-13/3" taskset -c 2-13
  # Nodes with no allowed CPU take no ranks: 4 ranks over nodes 1 and 2.
  plan_case confined-two-nodes node 4 none "4-7/1 4-7/1 8-11/2 8-11/2" taskset -c 4-11
}

layout_launches() {
  local t
  for t in "node 4 none $NODE4" "socket 4 none 0-7/0-1 0-7/0-1 8-15/2-3 8-15/2-3" \
           "exclusive 8 none 0-1/0 2-3/0 4-5/1 6-7/1 8-9/2 10-11/2 12-13/3 14-15/3" \
           "core-complex 4 none $NODE4" "cpus:0-3|8-11 4 none 0-3/0 8-11/2" "nodes:1|3 4 none 4-7/1 12-15/3" \
           "node 4 $DEVS 8-11/2 4-7/1" "exclusive 4 $DEVS 8-9/2 4-5/1 10-11/2 6-7/1"; do
    set -- $t
    launch_case "bash-${1//[:|]/_}-$2$([ "$3" = none ] || echo -devices)" bash "$2" "$1" "$3" - "${*:4}"
  done
  launch_case ompi-bind-none ompi 4 node none - "$NODE4" --bind-to none
  launch_case hydra hydra 4 node none - "$NODE4"
  # Open MPI's default binding (to a core for 2 ranks, to a package for more) and hydra's -bind-to (rank r
  # on core r) must be replaced by the plan, and the log must say so (issue 3).
  L_LOG_SAYS="replaced the launcher's binding"
  launch_case ompi-default-binding-2 ompi 2 node none - "0-3/0 8-11/2"
  launch_case ompi-default-binding-4 ompi 4 exclusive "$DEVS" - "8-9/2 4-5/1 10-11/2 6-7/1"
  launch_case hydra-bind-core hydra 4 node none - "$NODE4" -bind-to core
  L_LOG_SAYS=""
}

layout_memory() {
  L_ARGS=(--touch 16)
  local m
  for m in local preferred bind; do launch_case "memory-$m" bash 4 node none "$m" "$NODE4"; done
  launch_case memory-interleave bash 2 'nodes:0-1|2-3' none interleave "0-7/0-1 8-15/2-3"
  launch_case memory-bind-devices bash 2 node "$DEVS" bind "8-11/2 4-7/1"
  # preferred over a package's two nodes: MPOL_PREFERRED_MANY (Linux 5.15+)
  launch_case memory-preferred-many-ompi ompi 4 socket none preferred "0-7/0-1 0-7/0-1 8-15/2-3 8-15/2-3" --bind-to none
  # `numabind run` preloads the shim and sets the variables itself.
  launch_case cli-run-ompi cli-ompi 4 exclusive "$DEVS" bind "8-9/2 4-5/1 10-11/2 6-7/1" --bind-to none
  L_ARGS=()
}

layout_confined() {
  L_PREFIX=(taskset -c 2-13)
  launch_case confined-taskset-bash bash 4 node none - "2-3/0 4-7/1 8-11/2 12-13/3"
  launch_case confined-taskset-ompi ompi 4 node none - "2-3/0 4-7/1 8-11/2 12-13/3" --bind-to none
  L_PREFIX=()
  if cgroup_enter_prefix 2-13; then
    plan_case confined-cgroup node 4 none "2-3/0 4-7/1 8-11/2 12-13/3" "${CG_PREFIX[@]}"
    L_PREFIX=("${CG_PREFIX[@]}")
    launch_case confined-cgroup-hydra hydra 4 node none - "2-3/0 4-7/1 8-11/2 12-13/3"
    L_PREFIX=()
  fi
}

layout_offline() {
  cpu_offline 5 || return
  plan_case offline-node node 4 none "0-3/0 4,6-7/1 8-11/2 12-15/3"
  # Core {4,5} keeps CPU 4 alone: node 1's ranks get one core each.
  plan_case offline-exclusive exclusive 8 none "0-1/0 2-3/0 4/1 6-7/1 8-9/2 10-11/2 12-13/3 14-15/3"
  launch_case offline-bash bash 4 node none - "0-3/0 4,6-7/1 8-11/2 12-15/3"
  cpu_online 5
}

# NUMABIND_POLICY=auto (plan/plan_auto.h). Without devices: 2 ranks take 2 nodes each, 4 one node each,
# 8 one core of their node's L3 each. With the devices on nodes 2 and 1: one rank per device node takes the
# whole node; 2 ranks per node one core each; 3 per node: by threads, the node's first core takes two ranks
# (one thread each) and the second core the third. Ranks alternate devices: node 2, node 1, node 2...
layout_auto() {
  plan_case auto-2 auto 2 none "0-7/0-1 8-15/2-3"
  plan_case auto-4 auto 4 none "$NODE4"
  plan_case auto-8 auto 8 none "0-1/0 2-3/0 4-5/1 6-7/1 8-9/2 10-11/2 12-13/3 14-15/3"
  plan_case auto-devices-2 auto 2 "$DEVS" "8-11/2@$D2 4-7/1@$D1"
  plan_case auto-devices-4 auto 4 "$DEVS" "8-9/2@$D2 4-5/1@$D1 10-11/2@$D2 6-7/1@$D1"
  plan_case auto-devices-6 auto 6 "$DEVS" "8/2@$D2 4/1@$D1 9/2@$D2 5/1@$D1 10-11/2@$D2 6-7/1@$D1"
  L_LOG_SAYS="(auto: "  # each rank's bound line says its share
  launch_case auto-bash-8 bash 8 auto none - "0-1/0 2-3/0 4-5/1 6-7/1 8-9/2 10-11/2 12-13/3 14-15/3"
  launch_case auto-ompi-devices-4 ompi 4 auto "$DEVS" - "8-9/2 4-5/1 10-11/2 6-7/1" --bind-to none
  L_LOG_SAYS=""
}

# Nested launchers (issue 18): `mpirun -np 2` of a script that starts 2 workers (LOCAL_RANK 0, 1). auto gives
# the 2 ranks 2 nodes each; each rank's workers plan inside their rank's CPUs, one node each, so the 4
# workers sit on the 4 nodes, each inside its rank (its parent) and none where the other rank's are.
layout_nested() {
  local name=nested-ompi-auto line cpus parent got="" why=""
  rm -f "$WORK/ranks" "$WORK/log"
  env LD_PRELOAD="$SHIM" NUMABIND_LOG=info NUMABIND_LOG_FILE="$WORK/log" NUMABIND_POLICY=auto \
    NUMABIND_DEVICES=none timeout -k 5 120 mpirun.openmpi -np 2 --bind-to none -x R="$REPORT" -x F="$WORK/ranks" \
    bash -c 'LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 $R --out $F & LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 $R --out $F & wait' \
    >"$WORK/nested.out" 2>&1 || { fail "$name" "mpirun exit $?: $(tail -c 300 "$WORK/nested.out")"; return; }
  while read -r line; do
    jlist "$line" cpus; cpus=$REPLY
    jlist "$line" parent_cpus; parent=$REPLY
    got+="$cpus "
    case "$cpus/$parent" in 0-3/0-7 | 4-7/0-7 | 8-11/8-15 | 12-15/8-15) ;; *) why+="worker on $cpus, its rank on $parent; " ;; esac
  done < "$WORK/ranks"
  got=$(tr ' ' '\n' <<<"$got" | grep . | sort -n | tr '\n' ' ')
  [ "$got" = "0-3 4-7 8-11 12-15 " ] || why+="workers on CPUs $got, want 0-3 4-7 8-11 12-15; "
  [ -n "$why" ] || [ "$(grep -c 'which numabind bound)' "$WORK/log")" -eq 4 ] ||
    why="not 4 workers' lines say they planned inside their rank: $(head -c 400 "$WORK/log")"
  verdict "$name" "${why%; }"
}

layout_checks() {
  layout_topology
  layout_plans
  layout_launches
  layout_memory
  layout_confined
  layout_offline
  layout_auto
  layout_nested
}
