#!/bin/busybox sh
# /init of the guest's initramfs (busybox). Loads the 9p module chain, mounts the host's root file system
# read-only, chroots into it with fresh /proc /sys /dev /tmp /run, mounts the checkout and the build
# directory (their own 9p shares) at their host paths, runs the guest suite and powers off. The paths come
# from /paths in the initramfs (checkout, build directory, script to run instead of the suite). Every line the suite prints goes to the serial console, which run.sh reads.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

fail() { echo "FAIL boot: $*"; echo "vm-guest $(arg layout): 0 passed, 1 failed"; sync; poweroff -f; }
arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^numabind\.$1=//p"; }

for m in $(cat /modules/order); do
  insmod "/modules/$m" || fail "insmod $m"
done
# Layout B's network functions and Soft-RoCE (tests/vm/rdma.sh): no udev loads virtio_net here.
if [ "$(arg rdma)" = 1 ]; then
  for m in $(cat /modules/rdma.order); do
    insmod "/modules/$m" || fail "insmod $m"
  done
fi
R=/newroot
mkdir -p $R
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot $R || fail "mount 9p"
mount -t proc proc $R/proc && mount -t sysfs sysfs $R/sys && mount -t devtmpfs devtmpfs $R/dev \
  && mount -t tmpfs -o mode=1777 tmpfs $R/tmp && mount -t tmpfs -o mode=755 tmpfs $R/run \
  || fail "mount guest file systems"
mkdir -p $R/dev/shm $R/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $R/dev/shm && mount -t devpts devpts $R/dev/pts \
  && mount -t cgroup2 cgroup2 $R/sys/fs/cgroup || fail "mount shm, pts, cgroup2"
# The checkout, then the build directory (often inside it), at their host paths: under the guest's own /tmp
# the mount point is made in its tmpfs; elsewhere it exists in the read-only root already.
{ read -r repo; read -r build; read -r script; read -r stress; } < /paths
opts=trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose
mkdir -p "$R$repo" 2>/dev/null; mount -t 9p -o $opts repo "$R$repo" || fail "mount the checkout at $repo"
mkdir -p "$R$build" 2>/dev/null; mount -t 9p -o $opts build "$R$build" || fail "mount the build dir at $build"
# Open MPI refuses the hostname "(none)" and wants a loopback interface.
hostname numavm
ip link set lo up || fail "loopback up"
# What udev would make: bash's process substitution needs /dev/fd.
ln -s /proc/self/fd $R/dev/fd && ln -s fd/0 $R/dev/stdin && ln -s fd/1 $R/dev/stdout && ln -s fd/2 $R/dev/stderr

layout=$(arg layout)
echo "vm-init: layout $layout up after $(cut -d' ' -f1 /proc/uptime)s"
chroot $R /usr/bin/env -i HOME=/tmp TMPDIR=/tmp TERM=dumb LANG=C.UTF-8 STRESS_SPAWNS="$stress" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash "${script:-$repo/tests/vm/guest_suite.sh}" "$layout" "$repo" "$build" < /dev/console 2>&1
echo "vm-init: suite exited $? after $(cut -d' ' -f1 /proc/uptime)s"
sync
poweroff -f
