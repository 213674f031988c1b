# shellcheck shell=bash
# Layout B's network rails (issue 20): Soft-RoCE devices on the guest's four virtio-net functions
# (tests/vm/run.sh), made with rdma_rxe and iproute2's `rdma`, looked at with ibverbs-utils' ibv_devices:
#   rxe0 on 0000:11:01.0 and rxe1 on 11:02.0 (node 0), rxe2 on 21:02.0 and rxe3 on 21:03.0 (node 1, beside
#   the display device D = 21:01.0, behind the same expander bridge), rxe3's interface down (port DOWN).
# They are virtual in sysfs (no `device` link), so hwloc lists none: numabind places each at its
# interface's PCI function. The rails expected here are those tests/planner/nics_test.cc's
# soft_roce_rails_of_the_guest derives from this guest's XML and sysfs (tests/data/topologies/vm/,
# tests/data/sysfs/vm-layout-b): node 0 has two rails, node 1 one (rxe3's port is skipped), D's ranks
# share rxe2 (behind its bridge). Sourced by guest_suite.sh after lib.sh; uses D from layout_B.sh.

RDMA_FUNCS=(0000:11:01.0 0000:11:02.0 0000:21:02.0 0000:21:03.0)  # rxe0..rxe3
RDMA_NODES=(0 0 1 1)

# Makes rxeN on function N's interface and takes rxe3's interface down (init.sh loaded virtio_net and
# rdma_rxe: numabind.rdma=1). Prints why it failed; nothing when every device is there.
rdma_setup() {
  local i f net out
  [ -d /sys/module/rdma_rxe ] || { echo "rdma_rxe is not loaded (init.sh: numabind.rdma=1)"; return; }
  for i in 0 1 2 3; do
    f=${RDMA_FUNCS[i]}
    net=$(ls "/sys/bus/pci/devices/$f"/virtio*/net 2>/dev/null)
    [ -n "$net" ] || { echo "no network interface on $f"; return; }
    out=$(ip link set "$net" up 2>&1 && rdma link add "rxe$i" type rxe netdev "$net" 2>&1) \
      || { echo "rxe$i on $net ($f): $out"; return; }
  done
  # $net is rxe3's interface, the last one made.
  out=$(ip link set "$net" down 2>&1) || { echo "$net down: $out"; return; }
}

# The rails every rank of a report got ("rxe0:1,rxe1:1|rxe2:1"), in rank order, from NUMABIND_EXPORT=nic's
# UCX_NET_DEVICES; checks NCCL_IB_HCA says the same ("=" + the list) and that ibv_devices lists each
# device. Result in REPLY, problems in RDMA_WHY.
rank_rails() {
  local n=$1 r line ucx nccl dev out=""
  local -a byrank=()
  RDMA_WHY=""
  [ -s "$WORK/ranks" ] || { RDMA_WHY="no reports"; REPLY=""; return; }
  while IFS= read -r line; do jfield "$line" rank; byrank[REPLY]=$line; done < "$WORK/ranks"
  for ((r = 0; r < n; r++)); do
    line=${byrank[r]:-}
    jfield "$line" UCX_NET_DEVICES; ucx=$REPLY
    jfield "$line" NCCL_IB_HCA; nccl=$REPLY
    out+="|$ucx"
    [ "$ucx" != null ] || { RDMA_WHY+="rank $r has no UCX_NET_DEVICES; "; continue; }  # report: null = unset
    [ "$nccl" = "=$ucx" ] || RDMA_WHY+="rank $r NCCL_IB_HCA '$nccl', UCX_NET_DEVICES '$ucx'; "
    for dev in ${ucx//,/ }; do
      [[ " $IBV_DEVICES " == *" ${dev%:*} "* ]] || RDMA_WHY+="rank $r: ${dev%:*} not in ibv_devices; "
    done
  done
  REPLY=${out#|}
}

# rdma_launch NAME NRANKS DEVICES "CPU TOKENS" RAILS: ranks started by Open MPI's mpirun with
# NUMABIND_EXPORT=nic get their CPUs and these rails. (torchrun is not run here: `import torch` over 9p
# under emulation takes 42-54 s, beyond what these checks may cost; a torchrun launch timed out at 120 s.)
rdma_launch() {
  local name=rdma/launch-$1 n=$2 why
  rm -f "$WORK/ranks"
  env LD_PRELOAD="$SHIM" NUMABIND_POLICY=node NUMABIND_DEVICES="$3" NUMABIND_EXPORT=nic \
    timeout -k 5 120 mpirun.openmpi -np "$n" --bind-to none \
    "$REPORT" --out "$WORK/ranks" --env UCX_NET_DEVICES --env NCCL_IB_HCA > /dev/null 2>&1
  why=$(ranks_match "$n" "$4" "")
  rank_rails "$n"
  [ "$REPLY" = "$5" ] || why+="rails $REPLY, want $5; "
  verdict "$name" "$why$RDMA_WHY"
}

rdma_checks() {
  local why out i f node line want v got r
  need rdma/setup "$NB" "$SHIM" "$REPORT" || return
  why=$(rdma_setup)
  verdict rdma/setup "$why"
  [ -z "$why" ] || return
  out=$(rdma link show 2>&1)
  why=""
  for i in 0 1 2; do [[ $out == *"link rxe$i/1 state ACTIVE"* ]] || why+="rxe$i not ACTIVE; "; done
  [[ $out == *"link rxe3/1 state DOWN"* ]] || why+="rxe3 not DOWN; "
  verdict rdma/ports "${why:+$why$(tr '\n' ' ' <<<"$out")}"
  if command -v ibv_devices > /dev/null; then
    IBV_DEVICES=$(ibv_devices 2>&1 | sed -n 's/^ *\(rxe[0-9]*\) .*/\1/p' | tr '\n' ' ')
    why=$([ "$IBV_DEVICES" = "rxe0 rxe1 rxe2 rxe3 " ] || echo "ibv_devices lists '$IBV_DEVICES'")
  else
    IBV_DEVICES="" why="no ibv_devices (scripts/install-deps.sh installs ibverbs-utils)"
  fi
  verdict rdma/ibv-devices "$why"

  # Discovery: each device named beside its function, on the node of that function (sysfs numa_node).
  out=$("$NB" show --draw 2>&1)
  why=""
  for i in 0 1 2 3; do
    f=${RDMA_FUNCS[i]}
    read -r node < "/sys/bus/pci/devices/$f/numa_node"
    [ "$node" = "${RDMA_NODES[i]}" ] || why+="$f on node $node, layout says ${RDMA_NODES[i]}; "
    line=$(grep -E "^$node +$node +" <<<"$out" | head -n 1)  # the node's row (package n = node n)
    want="eth ${f#0000:} rxe$i"
    [ "$i" = 3 ] && want+=" down"
    [[ $line == *"$want"* ]] || why+="node $node's row lacks '$want'; "
  done
  verdict rdma/draw "${why:+$why$(tr '\n' '~' <<<"$out")}"

  # The plan's rails (numabind plan --export nic), as nics_test.cc's soft_roce_rails_of_the_guest: node 0's
  # two rails split, rxe3 skipped; the device's ranks share rxe2, behind its bridge.
  for v in "none 4 rxe0:1|rxe1:1|rxe2:1|rxe2:1" "$D 2 rxe2:1|rxe2:1"; do
    # shellcheck disable=SC2086  # DEVICES NRANKS RAILS: three words
    set -- $v
    out=$("$NB" plan --policy node --ranks "$2" --devices "$1" --export nic --json 2>&1)
    got=""
    for ((r = 0; r < $2; r++)); do
      line=$(grep "\"rank\":$r," <<<"$out"); jfield "$line" nics; got+="|$REPLY"
    done
    got=${got#|}
    verdict "rdma/plan-$([ "$1" = none ] && echo nodevices || echo device)-$2" \
      "$([ "$got" = "$3" ] || echo "rails $got, want $3: $(head -c 300 <<<"$out")")"
  done

  rdma_launch ompi-nodevices-4 4 none "0-3/0 0-3/0 4-7/1 4-7/1" "rxe0:1|rxe1:1|rxe2:1|rxe2:1"
  rdma_launch ompi-device-2 2 "$D" "4-7/1 4-7/1" "rxe2:1|rxe2:1"
}
