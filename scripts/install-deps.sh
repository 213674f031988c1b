#!/usr/bin/env bash
# Installs every Debian package that building, testing, the demo and the benchmarks need. Idempotent: does
# nothing when all are present. apt-get as root, sudo otherwise. `--check` only reports what is missing.
set -euo pipefail

PACKAGES=(
  g++ make pkg-config            # build
  clang-format clang-tidy        # make lint
  libhwloc-dev hwloc-nox         # topology (and lstopo for checks)
  libcriterion-dev               # unit tests
  clang-14 libclang-rt-14-dev    # fuzzing (libFuzzer, ASan, UBSan runtimes; make fuzz, make test)
  libunwind-dev                  # call stacks in debug logs
  openmpi-bin libopenmpi-dev     # Open MPI launcher tests
  mpich                          # MPICH hydra launcher tests
  python3 python3-torch          # torchrun and Python launcher tests
  numactl                        # the usual alternative, for benchmarks
  qemu-system-x86 linux-image-amd64 busybox-static  # multi-NUMA guest (tests/vm)
  procps util-linux              # ps, taskset, unshare
  gcc-multilib                   # the 32-bit stub library (make install, make deb)
  dpkg-dev lintian man-db file   # make deb (dpkg-shlibdeps) and its tests
  libcap2-bin                    # setcap: the file-capability launcher of the secure-execution test
  musl-tools                     # a musl-linked launcher (the shim must not crash musl programs)
  slurm-wlm munge openssh-server iproute2  # the namespace cluster (tests/cluster)
  charliecloud-runtime podman runc  # container runtimes (tests/pkg/container_test.sh)
  ibverbs-utils ibverbs-providers  # ibv_devices, the Soft-RoCE provider (tests/vm layout B's RDMA devices)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The guest needs a kernel image in /boot even when the meta-package is there.
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing+=(linux-image-amd64)

if [ "${1:-}" = "--check" ]; then
  if [ ${#missing[@]} -eq 0 ]; then echo "install-deps: all packages present"; exit 0; fi
  echo "install-deps: missing: ${missing[*]}"; exit 1
fi
[ ${#missing[@]} -eq 0 ] && { echo "install-deps: all packages present"; exit 0; }

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
