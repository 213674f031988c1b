#!/usr/bin/env bash
# Installs the Debian packages a set needs. Idempotent: does nothing when all are present. apt-get as root,
# sudo otherwise.
#   scripts/install-deps.sh [--check] [demo|test]...
# `demo` is what `make` and `make demo` need: the compiler, make, pkg-config, hwloc and the one launcher the
# demo runs (Open MPI's mpirun). `test` is everything else `make test`, `make lint`, `make bench` and
# `make deb` use. No set named: both. `--check` only reports what is missing (exit 1 if anything is).
set -euo pipefail

DEMO=(
  g++ make pkg-config            # build
  libhwloc-dev                   # topology
  openmpi-bin                    # the demo's launcher (mpirun)
)
TEST=(
  clang-format clang-tidy        # make lint
  hwloc-nox                      # lstopo, for checks
  libcriterion-dev               # unit tests
  clang-14 libclang-rt-14-dev    # fuzzing (libFuzzer, ASan, UBSan runtimes; make fuzz, make test)
  libunwind-dev                  # call stacks in debug logs
  libopenmpi-dev                 # Open MPI launcher tests
  mpich                          # MPICH hydra launcher tests
  python3 python3-torch          # torchrun and Python launcher tests
  numactl                        # the usual alternative, for benchmarks
  qemu-system-x86 linux-image-amd64 busybox-static  # multi-NUMA guest (tests/vm)
  procps util-linux              # ps, taskset, unshare
  zsh                            # the zsh completion's tests
  gcc-multilib                   # the 32-bit stub library (make install, make deb)
  dpkg-dev lintian man-db file   # make deb (dpkg-shlibdeps) and its tests
  libcap2-bin                    # setcap: the file-capability launcher of the secure-execution test
  musl-tools                     # a musl-linked launcher (the shim must not crash musl programs)
  slurm-wlm munge openssh-server iproute2  # the namespace cluster (tests/cluster)
  charliecloud-runtime podman runc  # container runtimes (tests/pkg/container_test.sh)
  ibverbs-utils ibverbs-providers  # ibv_devices, the Soft-RoCE provider (tests/vm layout B's RDMA devices)
)

check=0 sets=()
for a in "$@"; do
  case $a in
    --check) check=1 ;;
    demo|test) sets+=("$a") ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps: unknown argument '$a' (sets: demo, test; option: --check)" >&2; exit 2 ;;
  esac
done
[ ${#sets[@]} -eq 0 ] && sets=(demo test)

PACKAGES=()
for s in "${sets[@]}"; do
  case $s in
    demo) PACKAGES+=("${DEMO[@]}") ;;
    test) PACKAGES+=("${TEST[@]}") ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The guest needs a kernel image in /boot even when the meta-package is there.
if [[ " ${sets[*]} " == *" test "* ]]; then
  ls /boot/vmlinuz-* >/dev/null 2>&1 || missing+=(linux-image-amd64)
fi

if [ "$check" = 1 ]; then
  if [ ${#missing[@]} -eq 0 ]; then echo "install-deps: all packages present (${sets[*]})"; exit 0; fi
  echo "install-deps: missing (${sets[*]}): ${missing[*]}"; exit 1
fi
[ ${#missing[@]} -eq 0 ] && { echo "install-deps: all packages present (${sets[*]})"; exit 0; }

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing (${sets[*]}) ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
