#!/usr/bin/env bash
# The multi-NUMA integration suite (issue 4): boots software-emulated multi-socket Linux guests (qemu TCG)
# that see this machine's root file system read-only over 9p, runs tests/vm/guest_suite.sh inside each, and
# counts the "PASS name" / "FAIL name: why" lines they print on the serial console. A guest that hangs is
# killed by a timeout and counted as a failure; missing qemu, kernel or busybox is a failure, never a skip.
# Ends with "vm: N passed, N failed" (scripts/run-tests.sh reads it).
#
# Layouts (VM_LAYOUTS, default "A B C"):
#   A  2 packages x 2 dies, one NUMA node and one L3 per die, 2 cores x 2 threads per die: 16 CPUs, node n =
#      CPUs 4n..4n+3. Two display devices behind PCI expander bridges: 0000:21:01.0 on node 2,
#      0000:41:01.0 on node 1.
#   B  2 packages x 1 NUMA node, 2 dies (one L3 each) per package, 2 cores per die, no SMT: 8 CPUs, node n =
#      CPUs 4n..4n+3, L3 = CPU pairs. One display device, 0000:21:01.0, on node 1. Four virtio-net functions
#      for Soft-RoCE (rdma.sh): 0000:11:01.0 and 11:02.0 on node 0, 21:02.0 and 21:03.0 on node 1.
#   C  2 packages x 2 cores, one NUMA node each (node n = CPUs 2n..2n+1), and memory-only nodes 2 and 3,
#      nearest nodes 0 and 1 by the distances (memory tiers, issue 36).
# The guest runs with mitigations=off: page-table isolation makes every system call flush the emulated TLB.
# Environment: BUILD (default build), VM_LAYOUTS, VM_TIMEOUT (seconds per guest, default 600), VM_KERNEL
# (a /boot/vmlinuz-* to boot; default the newest one with modules in /lib/modules), VM_SCRIPT (run this
# script in the guest instead of guest_suite.sh, for diagnosis), VM_APPEND (more kernel parameters),
# VM_STRESS_SPAWNS (spawns per stress check in layout A, default 100; `make stress` asks for 1000),
# VM_PARALLEL (default 1: the layouts' guests at once) and VM_TCG_THREAD (default single: one host thread
# per guest; `make stress` uses multi, so that two vCPUs really run at the same time).
# The result lines of the guests running at once interleave; each carries its layout.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(realpath -m "${BUILD:-build}")
layouts=${VM_LAYOUTS:-A B C}
timeout_s=${VM_TIMEOUT:-600}
out=$build/vm
passed=0 failed=0
t_start=$(date +%s)

die() {  # a prerequisite is missing: say why and fail
  echo "FAIL vm/prerequisites: $*"
  echo "vm: 0 passed, 1 failed"
  exit 1
}

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (scripts/install-deps.sh installs qemu-system-x86)"
kernel=${VM_KERNEL:-}
if [ -z "$kernel" ]; then
  for k in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V -r); do
    [ -f "/lib/modules/${k#/boot/vmlinuz-}/modules.dep" ] && { kernel=$k; break; }
  done
fi
[ -n "$kernel" ] || die "no /boot/vmlinuz-* with modules in /lib/modules (scripts/install-deps.sh installs linux-image-amd64)"
[ -r "$kernel" ] || die "$kernel is not readable"
kver=${kernel#/boot/vmlinuz-}
mkdir -p "$out" || die "cannot create $out"
# The paths travel in the initramfs, not on the kernel command line, which splits at spaces.
"$here/initramfs.sh" "$kver" "$out/initramfs.cpio.gz" "$repo" "$build" "${VM_SCRIPT:-}" "${VM_STRESS_SPAWNS:-100}" \
  > "$out/initramfs.log" 2>&1 \
  || die "initramfs: $(tail -n 1 "$out/initramfs.log")"
q() { REPLY=${1//,/,,}; }  # qemu's option syntax doubles a comma inside a value

# qemu arguments for a layout: CPUs, NUMA nodes and distances, devices with NUMA locality.
layout_args() {
  local numa="" n s d v
  case $1 in
    A)
      echo "-smp 16,sockets=2,dies=2,cores=2,threads=2 -m 2G"
      for n in 0 1 2 3; do
        numa+=" -object memory-backend-ram,id=m$n,size=512M -numa node,nodeid=$n,memdev=m$n"
        numa+=" -numa cpu,node-id=$n,socket-id=$((n / 2)),die-id=$((n % 2))"
      done
      for s in 0 1 2 3; do for d in 0 1 2 3; do
        [ "$s" -lt "$d" ] || continue
        v=21; [ $((s / 2)) -eq $((d / 2)) ] && v=12
        numa+=" -numa dist,src=$s,dst=$d,val=$v"
      done; done
      echo "$numa"
      echo "-device pxb,id=b2,bus_nr=32,numa_node=2,bus=pci.0 -device virtio-gpu-pci,bus=b2,addr=0x1"
      echo "-device pxb,id=b1,bus_nr=64,numa_node=1,bus=pci.0 -device virtio-gpu-pci,bus=b1,addr=0x1"
      ;;
    B)
      echo "-smp 8,sockets=2,dies=2,cores=2,threads=1 -m 1G"
      for n in 0 1; do
        echo "-object memory-backend-ram,id=m$n,size=512M -numa node,nodeid=$n,memdev=m$n"
        echo "-numa cpu,node-id=$n,socket-id=$n"
      done
      echo "-numa dist,src=0,dst=1,val=21"
      echo "-device pxb,id=b1,bus_nr=32,numa_node=1,bus=pci.0 -device virtio-gpu-pci,bus=b1,addr=0x1"
      # Network functions for Soft-RoCE (rdma.sh): 0000:11:01.0 and 11:02.0 on node 0, 21:02.0 and 21:03.0
      # beside the device; each on a hub of its own, which carries nothing (qemu warns that it is not
      # connected to the host's network).
      echo "-device pxb,id=b0,bus_nr=16,numa_node=0,bus=pci.0"
      n=0
      for v in b0,addr=0x1 b0,addr=0x2 b1,addr=0x2 b1,addr=0x3; do
        echo "-netdev hubport,id=n$n,hubid=$n -device virtio-net-pci,netdev=n$n,bus=$v"
        n=$((n + 1))
      done
      ;;
    C)
      # Two CPU nodes (one per package) and two memory-only nodes, each nearest one package's node, as
      # HBM or a CXL expander shows: the firmware's distances are what hwloc attaches them by.
      echo "-smp 4,sockets=2,cores=2,threads=1 -m 1536M"
      for n in 0 1; do
        echo "-object memory-backend-ram,id=m$n,size=512M -numa node,nodeid=$n,memdev=m$n"
        echo "-numa cpu,node-id=$n,socket-id=$n"
      done
      for n in 2 3; do echo "-object memory-backend-ram,id=m$n,size=256M -numa node,nodeid=$n,memdev=m$n"; done
      echo "-numa dist,src=0,dst=1,val=21 -numa dist,src=0,dst=2,val=14 -numa dist,src=0,dst=3,val=24"
      echo "-numa dist,src=1,dst=2,val=24 -numa dist,src=1,dst=3,val=14 -numa dist,src=2,dst=3,val=28"
      ;;
    *) return 1 ;;
  esac
}

echo "vm: kernel $kernel, qemu $(qemu-system-x86_64 --version | head -n 1 | grep -o '[0-9][0-9.]*' | head -n 1)," \
  "checkout $repo, build $build, layouts $layouts"
q "$repo"; repo_q=$REPLY
q "$build"; build_q=$REPLY
# One guest: boots LAYOUT under a timeout and writes "PASSED FAILED" to $out/LAYOUT.counts; its console
# lines go to stdout, prefixed with the layout.
run_layout() {
  local layout=$1 args log t0 rc t p f summary rdma
  log=$out/$layout.log
  echo "0 1" >"$out/$layout.counts"
  args=$(layout_args "$layout") || { echo "FAIL $layout/guest: unknown layout"; return; }
  rdma=""; [ "$layout" = B ] && rdma=numabind.rdma=1  # init.sh loads virtio_net and rdma_rxe (rdma.sh)
  t0=$(date +%s)
  # The checkout and the build directory are shared on their own and mounted at the same paths in the guest,
  # over its /tmp if need be, so they may sit anywhere on the host. -machine pc: the expander bridges hang
  # off i440fx's pci.0. multidevs=remap works around 9p inode collisions: host mount points (/proc, /sys)
  # share inode numbers, the guest merges their dentries, and the /proc it mounts then shows sysfs.
  # Serial console = stdout; qemu's own messages go to $layout.qemu.err.
  # shellcheck disable=SC2086  # layout_args is a list of words
  timeout -k 10 "$timeout_s" qemu-system-x86_64 -nodefaults -no-user-config -no-reboot -display none \
    -monitor none -serial stdio -accel "tcg,thread=$tcg_thread" -machine pc -cpu Skylake-Server $args \
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot,bus=pci.0 \
    -fsdev local,id=repo,path="$repo_q",security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=repo,mount_tag=repo,bus=pci.0 \
    -fsdev local,id=build,path="$build_q",security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=build,mount_tag=build,bus=pci.0 \
    -kernel "$kernel" -initrd "$out/initramfs.cpio.gz" \
    -append "console=ttyS0 quiet loglevel=1 panic=-1 mitigations=off numabind.layout=$layout $rdma ${VM_APPEND:-}" \
    < /dev/null 2> "$out/$layout.qemu.err" | sed -u 's/\r$//' | tee "$log" \
    | sed -u -n -e "s#^\(PASS\|FAIL\) #\1 $layout/#p" -e "s#^\(vm-init\|vm-guest\|note\):#  $layout \1:#p"
  rc=${PIPESTATUS[0]}
  t=$(($(date +%s) - t0))
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  summary=$(grep -E "^vm-guest $layout: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "FAIL $layout/guest: killed after ${timeout_s}s (hung or too slow; serial log $log)"; f=$((f + 1))
  elif [ -z "$summary" ]; then
    echo "FAIL $layout/guest: no result line (qemu exit $rc; $(grep -v 'TCG doesn' "$out/$layout.qemu.err" | tail -n 1); serial log $log)"
    f=$((f + 1))
  elif [ "$summary" != "vm-guest $layout: $(grep -c '^PASS ' "$log") passed, $(grep -c '^FAIL ' "$log") failed" ]; then
    echo "FAIL $layout/guest: counts disagree with '$summary' (serial log $log)"; f=$((f + 1))
  fi
  echo "vm: layout $layout: $p passed, $f failed in ${t}s (boot $(sed -n 's/^vm-init: layout .* up after \([0-9.]*\)s.*/\1/p' "$log" | head -n 1)s)"
  echo "$p $f" >"$out/$layout.counts"
}

# The guests run at once, each emulated by one host thread (thread=single: its vCPUs in turn). On this
# 2-CPU machine multi-threaded TCG gave a 16-vCPU guest 16 threads whose vCPUs spin in the guest kernel
# while a preempted one holds a lock: layout A took 295 CPU-seconds that way and 215 with one thread
# (2026-12-03, beside other work), and two guests then fill the two CPUs. VM_TCG_THREAD=multi and
# VM_PARALLEL=0 bring back one guest after the other, each on every CPU.
tcg_thread=${VM_TCG_THREAD:-single}
pids=()
for layout in $layouts; do
  if [ "${VM_PARALLEL:-1}" = 1 ]; then
    run_layout "$layout" & pids+=($!)
  else
    run_layout "$layout"
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for layout in $layouts; do
  read -r p f <"$out/$layout.counts" || { p=0 f=1; }
  passed=$((passed + p)); failed=$((failed + f))
done
echo "vm: total time $(($(date +%s) - t_start))s"
echo "vm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
