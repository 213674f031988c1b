# shellcheck shell=bash disable=SC2034  # sets the L_* globals that lib.sh reads
# Layout C (tests/vm/run.sh): memory tiers (issue 36). 2 packages x 2 cores, no SMT: node n = package n =
# CPUs 2n..2n+1; nodes 2 and 3 hold memory and no CPU, node 2 nearest node 0 (distance 14) and node 3
# nearest node 1, as HBM or a CXL expander beside each socket. Every expectation is worked out by hand.
OWN="0-1/0 2-3/1"
NEAR="0-1/0,2 2-3/1,3"  # each rank's node and its socket's memory-only node

layout_topology() {
  local two three
  read -r two < /sys/devices/system/node/node2/cpulist
  read -r three < /sys/devices/system/node/node3/cpulist
  topo_case nodes "0-1 2-3 memory-only memory-only" \
    "$(node_cpus | cut -d' ' -f1-2) ${two:-memory-only} ${three:-memory-only}"
  topo_case distance-3 "24 14 28 10" "$(< /sys/devices/system/node/node3/distance)"
}

layout_checks() {
  layout_topology
  # By default a memory-only node is no rank's node: bind keeps pages on the CPUs' own node.
  plan_case node-2 node 2 none "$OWN"
  L_ARGS=(--touch 16)
  launch_case memory-bind bash 2 node none bind "$OWN"
  # near: MPOL_PREFERRED_MANY over the rank's node and its socket's memory-only node.
  launch_case memory-near hydra 2 node none near "$NEAR"
  # weighted: interleave over the same two nodes, pages on both; before Linux 6.9 plain interleave, and one
  # line (not one per rank) says so.
  [ "$WEIGHTED_MODE" = interleave ] && L_LOG_SAYS="memory interleave (weighted: not in this kernel)"
  launch_case memory-weighted bash 2 node none weighted "$NEAR"
  L_LOG_SAYS="" L_ARGS=()
  local said=0
  [ -f "$WORK/log" ] && said=$(grep -c "NUMABIND_MEMORY=weighted: the kernel lacks MPOL_WEIGHTED_INTERLEAVE" "$WORK/log")
  [ "$WEIGHTED_MODE" = interleave ] || said=1  # a 6.9 kernel has nothing to say
  verdict launch/memory-weighted/said-once "$([ "$said" -eq 1 ] || echo "said $said times: $(head -c 300 "$WORK/log")")"
}
