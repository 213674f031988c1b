#!/usr/bin/env bash
# Containers (docs/containers.md): Charliecloud's ch-run and Podman run a minimal image that this suite
# builds itself from this machine's files (no download): /bin/sh, helpers/report and the libraries ldd
# names. In every activation numabind documents (LD_PRELOAD exported, the profile.d script's "$LIB" entry,
# /etc/ld.so.preload, `numabind run`) no process in the container prints the loader's "cannot be preloaded";
# a runtime that is a rank (started by a preloaded bash loop, or binding itself as srun's tasks do) runs its
# program on the planned CPUs; with NUMABIND_CONTAINER=keep and the build tree mounted at its own path, a
# launcher inside the container (sh starting two ranks) binds each to its plan. A runtime that is not
# installed, or cannot run here, counts as skipped (the reason printed), never as passed. Ends with
# "container: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
# shellcheck source=lib.sh
. tests/pkg/lib.sh
SKIPPED=0
skip() { SKIPPED=$((SKIPPED + 1)); echo "SKIP $1: $2"; }
finish() { echo "container: $PASSED passed, $FAILED failed, $SKIPPED skipped"; [ "$FAILED" -eq 0 ]; exit; }

build=$(cd "$BUILD" && pwd)  # not resolved: a link is how a build path with a space gets into LD_PRELOAD
lib=$build/libnumabind.so
for f in "$lib" "$build/numabind" "$build/helpers/report"; do
  [ -e "$f" ] || { fail build "$f missing (make all)"; finish; }
done
tmp=$(mktemp -d /tmp/numabind-container.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/shared" "$tmp/shared-ch-run" "$tmp/shared-podman"

# The image: a directory ch-run and podman --rootfs both run. The build tree's mount point (keep) and the
# files ch-run binds from the host are there.
img=$tmp/img
real_build=$(realpath "$build")  # where the library looks for its helper (HELPER_PATH): a link's target
mkdir -p "$img"/{bin,dev,proc,sys,tmp,etc,home,mnt,run,var/tmp} "$img$build" "$img$real_build"
touch "$img"/etc/{passwd,group,hosts,resolv.conf}
cp "$(readlink -f /bin/sh)" "$img/bin/sh"
cp "$build/helpers/report" "$img/bin/report"
for l in $(ldd /bin/sh "$build/helpers/report" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } /^\t\// { print $1 }' | sort -u); do
  mkdir -p "$img$(dirname "$l")" && cp -L "$l" "$img$l"
done

# The plan of every case that binds: two ranks on the first two CPUs allowed here, rank 0 on the second,
# rank 1 on the first (the reverse of anything a default would give).
mapfile -t cpus < <(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' |
  awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' | head -2)
if [ "${#cpus[@]}" -lt 2 ]; then fail cpus "fewer than 2 CPUs allowed"; finish; fi
policy="cpus:${cpus[1]}|${cpus[0]}"
planned() { if [ "$1" = 0 ]; then echo "${cpus[1]}"; else echo "${cpus[0]}"; fi; }

# Every line the loader or the library printed about preloading ("" when none).
loader_errors() { grep -a -E 'cannot be preloaded|numabind:' "$1" | head -3 | tr '\n' ' '; }
# "RANK CPUS" per report line of $1 (helpers/report's JSON), sorted.
ranks() { grep -a -o -E '"rank":"[0-9]*".*"cpus":"[^"]*"' "$1" | sed -E 's/"rank":"([0-9]*)".*"cpus":"([^"]*)"/\1 \2/' | sort; }
# What $1 should hold for ranks 0..$2-1 on their plan.
want_ranks() { for ((r = 0; r < $2; r++)); do echo "$r $(planned "$r")"; done; }
# NAME OUTPUT NRANKS: no loader error, and NRANKS reports on the planned CPUs.
check_bound() {
  local why; why=$(loader_errors "$2")
  [ -n "$why" ] || [ "$(ranks "$2")" = "$(want_ranks "$1" "$3")" ] ||
    why="ranks: $(ranks "$2" | tr '\n' ';') want $(want_ranks "$1" "$3" | tr '\n' ';') $(tail -c 300 "$2")"
  check "$1" "$why"
}
# NAME OUTPUT: no loader error and the program inside ran ("ran" printed).
check_clean() {
  local why; why=$(loader_errors "$2")
  [ -n "$why" ] || grep -q '^ran$' "$2" || why="did not run: $(tail -c 300 "$2")"
  check "$1" "$why"
}
inside='/bin/sh -c true; /bin/report >/dev/null; echo ran'  # two dynamic programs in the container
# shellcheck disable=SC2016  # expanded by the shell in the container
launch='for r in 0 1; do LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 /bin/report & done; wait'  # a launcher inside

export USER=${USER:-$(id -un)}  # ch-run wants it
env_clean=(env -u LD_PRELOAD -u NUMABIND_POLICY -u NUMABIND_CONTAINER -u LOCAL_RANK -u LOCAL_WORLD_SIZE
  NUMABIND_SHARED="$tmp/shared")  # the shared basis: in /tmp, which ch-run shares with the host

# ---------------------------------------------------------------------------------------------- ch-run
if ! command -v ch-run >/dev/null; then
  skip ch_run "ch-run not installed (charliecloud-runtime: scripts/install-deps.sh)"
elif ! ch-run "$img" -- /bin/sh -c 'echo ran' >"$tmp/probe" 2>&1 || ! grep -q '^ran$' "$tmp/probe"; then
  skip ch_run "ch-run cannot run here: $(tail -c 300 "$tmp/probe")"
else
  # LD_PRELOAD exported as the README says, from a job script (bash forks the runtime).
  "${env_clean[@]}" LD_PRELOAD="$lib" NUMABIND_POLICY=node bash -c "ch-run '$img' -- /bin/sh -c '$inside'; true" \
    >"$tmp/out" 2>&1
  check_clean ch_run_exported_preload "$tmp/out"
  # The package's profile.d entry, "/usr/$LIB/libnumabind.so" for the loader to expand, in a login shell
  # with no NUMABIND_POLICY (the library inert): here a "$LIB" path to the build tree's library.
  mkdir -p "$tmp/prefix/lib/$(gcc -print-multiarch)"
  ln -s "$lib" "$tmp/prefix/lib/$(gcc -print-multiarch)/libnumabind.so"
  "${env_clean[@]}" LD_PRELOAD="$tmp/prefix/\$LIB/libnumabind.so" bash -c "ch-run '$img' -- /bin/sh -c '$inside'" \
    >"$tmp/out" 2>&1
  check_clean ch_run_profile_d_inert "$tmp/out"
  # `numabind run` execs the runtime itself: the library is in ch-run, which execs the container's program.
  "${env_clean[@]}" "$build/numabind" run --policy node -- ch-run "$img" -- /bin/sh -c "$inside" >"$tmp/out" 2>&1
  check_clean ch_run_numabind_run "$tmp/out"
  # Site-wide: /etc/ld.so.preload (docs/package.md), in a private mount namespace whose /etc is an overlay.
  mkdir -p "$tmp/etc-upper" "$tmp/etc-work" && echo "$lib" >"$tmp/etc-upper/ld.so.preload"
  "${env_clean[@]}" NUMABIND_POLICY=node unshare --mount --propagation private bash -c \
    "mount -t overlay overlay -o lowerdir=/etc,upperdir='$tmp/etc-upper',workdir='$tmp/etc-work' /etc &&
     ch-run '$img' -- /bin/sh -c '$inside'" >"$tmp/out" 2>&1
  check_clean ch_run_site_wide "$tmp/out"

  # The runtime as a rank of a preloaded bash loop: bound before its exec, its program inherits.
  "${env_clean[@]}" LD_PRELOAD="$lib" NUMABIND_POLICY="$policy" bash -c \
    "for r in 0 1; do LOCAL_RANK=\$r LOCAL_WORLD_SIZE=2 ch-run '$img' -- /bin/report & done; wait" >"$tmp/out" 2>&1
  check_bound ch_run_rank_of_a_launcher "$tmp/out" 2
  # The runtime as a rank that binds itself (a Slurm step task: slurmstepd is not preloaded), rank 1 of 2.
  "${env_clean[@]}" LD_PRELOAD="$lib" NUMABIND_POLICY="$policy" MPI_LOCALRANKID=1 MPI_LOCALNRANKS=2 \
    ch-run "$img" -- /bin/report >"$tmp/out" 2>&1
  check ch_run_rank_binds_itself "$(loader_errors "$tmp/out")$(ranks "$tmp/out" | grep -qx "1 $(planned 1)" ||
    echo "ranks: $(ranks "$tmp/out" | tr '\n' ';') want 1 $(planned 1) $(tail -c 300 "$tmp/out")")"

  # A launcher inside the container (sh starting two ranks), the library and its helper mounted at their own
  # paths (the build tree) and kept in LD_PRELOAD. The image has no hwloc: the helper cannot run inside, the
  # bash that starts ch-run prepares the basis, which the library inside reads from NUMABIND_SHARED.
  binds=()  # ch-run shares /tmp with the host: a build tree there (CI's clone, its link) is seen already
  for d in "$build" "$real_build"; do
    [[ $d == /tmp/* ]] || [[ " ${binds[*]} " == *" $d:$d "* ]] || binds+=(-b "$d:$d")
  done
  # A shared directory of its own: the bash loop above prepared this configuration in "$tmp/shared".
  # shellcheck disable=SC2016  # expanded by the inner bash
  "${env_clean[@]}" NUMABIND_SHARED="$tmp/shared-ch-run" LD_PRELOAD="$lib" NUMABIND_POLICY="$policy" \
    NUMABIND_CONTAINER=keep bash -c 'ch-run "$@" -- /bin/sh -c "$0"' "$launch" "${binds[@]}" "$img" >"$tmp/out" 2>&1
  check_bound ch_run_launcher_inside_keep "$tmp/out" 2
fi

# ---------------------------------------------------------------------------------------------- podman
# Rootful, with runc: crun refuses this machine's hybrid cgroups ("cgroups in hybrid mode not supported"),
# and without CAP_SYS_RESOURCE neither may raise RLIMIT_NOFILE to podman's default, hence the --ulimit.
podman_run=(podman --runtime runc run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  skip podman "podman or runc not installed (scripts/install-deps.sh)"
elif ! timeout 60 "${podman_run[@]}" --rootfs "$img" /bin/sh -c 'echo ran' >"$tmp/probe" 2>&1 ||
  ! grep -q '^ran$' "$tmp/probe"; then
  skip podman "podman cannot run here: $(tail -c 300 "$tmp/probe")"
else
  # --env-host passes the host's environment in, LD_PRELOAD with it.
  "${env_clean[@]}" LD_PRELOAD="$lib" NUMABIND_POLICY=node bash -c \
    "${podman_run[*]} --env-host --rootfs '$img' /bin/sh -c '$inside'; true" >"$tmp/out" 2>&1
  check_clean podman_env_host "$tmp/out"
  # podman as a rank of a preloaded bash loop.
  "${env_clean[@]}" LD_PRELOAD="$lib" NUMABIND_POLICY="$policy" bash -c \
    "for r in 0 1; do LOCAL_RANK=\$r LOCAL_WORLD_SIZE=2 ${podman_run[*]} -e LOCAL_RANK --rootfs '$img' /bin/report & done; wait" \
    >"$tmp/out" 2>&1
  check_bound podman_rank_of_a_launcher "$tmp/out" 2
  # The launcher inside, as with ch-run: the build tree and the shared basis's directory mounted at their
  # paths, the environment passed in. Unconfined: under podman's seccomp filter the library asks the helper
  # (which cannot run in this image) whether set_mempolicy is allowed, rather than take the shared basis.
  mounts=(-v "$tmp:$tmp")
  for d in "$build" "$real_build"; do
    [[ " ${mounts[*]} " == *" $d:$d "* ]] || mounts+=(-v "$d:$d")
  done
  "${env_clean[@]}" NUMABIND_SHARED="$tmp/shared-podman" LD_PRELOAD="$lib" NUMABIND_POLICY="$policy" \
    NUMABIND_CONTAINER=keep bash -c "${podman_run[*]} --security-opt seccomp=unconfined --env-host \"\$@\" --rootfs '$img' /bin/sh -c '$launch'" \
    bash "${mounts[@]}" >"$tmp/out" 2>&1
  check_bound podman_launcher_inside_keep "$tmp/out" 2
fi
finish
