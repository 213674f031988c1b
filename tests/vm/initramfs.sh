#!/usr/bin/env bash
# Builds the guest's initramfs: busybox-static, tests/vm/init.sh as /init, and the kernel modules that
# mounting the host's root over virtio-9p needs (with their dependencies, in load order from modules.dep),
# then those of Soft-RoCE on virtio-net (/modules/rdma.order, for layout B).
# The host paths of the checkout, the build directory and the script to run go in /paths, one per line
# (the kernel command line cannot carry a path with a space), then the spawns per stress check.
# Usage: initramfs.sh KERNEL_RELEASE OUT.cpio.gz REPO BUILD [SCRIPT [STRESS_SPAWNS]]   Prints why and exits 1
# when something is missing.
set -euo pipefail
kver=$1 out=$2 repo=$3 build=$4 script=${5:-} stress=${6:-100}
here=$(cd "$(dirname "$0")" && pwd)
moddir=/lib/modules/$kver
[ -f "$moddir/modules.dep" ] || { echo "initramfs: no $moddir/modules.dep (linux-image-$kver modules)"; exit 1; }
bb=/bin/busybox  # busybox-static installs it there (and conflicts with the dynamic busybox package)
[ -x "$bb" ] || { echo "initramfs: no $bb (package busybox-static)"; exit 1; }
ldd "$bb" >/dev/null 2>&1 && { echo "initramfs: $bb is linked dynamically (install busybox-static)"; exit 1; }

declare -A done_=()
order=()
add() {  # depth first: a module's dependencies load before it
  local name=$1 path deps d
  [ -n "${done_[$name]:-}" ] && return 0
  path=$(grep -E "(^|/)${name}\.ko(\.[a-z]+)?:" "$moddir/modules.dep" | head -n 1 | cut -d: -f1)
  if [ -z "$path" ]; then
    # Built into the kernel: nothing to load.
    grep -qE "/${name}\.ko" "$moddir/modules.builtin" 2>/dev/null && { done_[$name]=1; return 0; }
    echo "initramfs: module $name not found in $moddir"; exit 1
  fi
  deps=$(grep -E "^${path}:" "$moddir/modules.dep" | cut -d: -f2)
  for d in $deps; do d=$(basename "$d"); add "${d%%.ko*}"; done
  done_[$name]=1; order+=("$path")
}
for m in virtio_pci 9pnet_virtio 9p; do add "$m"; done
boot=${#order[@]}
# Layout B's network functions and Soft-RoCE (tests/vm/rdma.sh), loaded by init.sh when the kernel command
# line says numabind.rdma=1. crc32_generic first: rdma_rxe asks the kernel for the crc32 algorithm, whose
# request for the module goes to the initramfs's missing /sbin/modprobe.
for m in virtio_net crc32_generic rdma_rxe; do add "$m"; done

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,proc,sys,dev,modules,newroot}
cp "$bb" "$tmp/bin/busybox"
cp "$here/init.sh" "$tmp/init"; chmod 755 "$tmp/init"
printf '%s\n' "$repo" "$build" "$script" "$stress" > "$tmp/paths"
for i in "${!order[@]}"; do
  p=${order[i]} list=order
  [ "$i" -ge "$boot" ] && list=rdma.order
  f=$(basename "$p"); base=${f%%.ko*}.ko
  case $f in
    *.ko) cp "$moddir/$p" "$tmp/modules/$base" ;;
    *.ko.xz) xz -dc "$moddir/$p" > "$tmp/modules/$base" ;;
    *.ko.zst) zstd -qdc "$moddir/$p" > "$tmp/modules/$base" ;;
    *.ko.gz) gzip -dc "$moddir/$p" > "$tmp/modules/$base" ;;
    *) echo "initramfs: cannot unpack $p"; exit 1 ;;
  esac
  echo "$base" >> "$tmp/modules/$list"
done
mkdir -p "$(dirname "$out")"
(cd "$tmp" && find . | LC_ALL=C sort | "$bb" cpio -o -H newc 2>/dev/null) | gzip -1 > "$out.new"
mv "$out.new" "$out"
