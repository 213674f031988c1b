#!/usr/bin/env bash
# The part of the site-wide test that runs as root with a root file system of its own to change: on this
# machine inside a private mount namespace (tests/pkg/sitewide_test.sh), in the qemu guest as it is
# (tests/vm/sitewide.sh). /etc, /usr and /var become overlays over the real ones; a mixed workload runs
# without numabind, then with the package installed and docs/package.md's /etc/ld.so.preload line, and must
# print and exit the same; then jobs bind every rank. Environment: T (a scratch directory others can read),
# DEB (the package), REPORT (tests/shim/helpers/report), optionally PROGS, SITEWIDE_QUICK, RUN32 and INSTALL
# (below). Prints "PASS name" / "FAIL name: why", then END.
# RUN32=1 (the guest, whose kernel runs 32-bit programs): the workload has a 32-bit program too, and the
# checks that the 32-bit stub keeps 32-bit programs free of loader errors run. A machine of this kind may
# have a kernel that runs no 32-bit programs, so the host's run never executes one (it still builds prog32,
# which needs no kernel support, for the guest).
set -uo pipefail
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi; }
# The workload's own programs: a 32-bit one, a musl one and a static one, each starting a child.
prog='#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) { pid_t p = fork(); if (p == 0) { execl("/bin/echo", "echo", "child", (char *)0); _exit(127); }
  int st; waitpid(p, &st, 0); printf("parent %d\n", WEXITSTATUS(st)); return 5; }'
# PROGS: a directory where they are built already (tests/pkg/sitewide_test.sh leaves them in $BUILD/sitewide).
if [ -n "${PROGS:-}" ] && [ -x "$PROGS/prog32" ] && [ -x "$PROGS/progmusl" ] && [ -x "$PROGS/progstatic" ]; then
  mkdir -p "$T/bin" && cp "$PROGS/prog32" "$PROGS/progmusl" "$PROGS/progstatic" "$T/bin/"
fi
mkdir -p "$T/bin"
why=""
[ -x "$T/bin/prog32" ] || printf '%s\n' "$prog" | ${CC:-gcc} -m32 -x c -o "$T/bin/prog32" - 2>/dev/null ||
  why+=" gcc -m32 (gcc-multilib);"
[ -x "$T/bin/progmusl" ] || printf '%s\n' "$prog" | musl-gcc -x c -o "$T/bin/progmusl" - 2>/dev/null ||
  why+=" musl-gcc (musl-tools);"
[ -x "$T/bin/progstatic" ] || printf '%s\n' "$prog" | ${CC:-gcc} -static -x c -o "$T/bin/progstatic" - 2>/dev/null ||
  why+=" gcc -static;"
if [ -n "$why" ]; then echo "FAIL programs: cannot build:$why"; exit 0; fi
mkdir -p "$T/tree/a/b" "$T/mk"
for f in one two three; do echo "$f" >"$T/tree/a/$f"; echo "$f" >"$T/tree/a/b/$f.txt"; done
printf 'all: x y z\nx y z:\n\t@sleep 0.1; echo $@ > $@.out\n' >"$T/mk/Makefile"

# The guest's kernel loads no module by itself (its usermode helper runs in the initramfs).
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
for d in etc usr var; do
  mkdir -p "$T/ov/$d/up" "$T/ov/$d/work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$T/ov/$d/up,workdir=$T/ov/$d/work" "/$d" ||
    { fail overlay "cannot mount an overlay on /$d"; exit 0; }
done
P=/usr/sbin:/usr/bin:/sbin:/bin
# man-db's trigger would index every manual page at dpkg -i (minutes in the emulated guest); not tested here.
rm -f /var/lib/man-db/auto-update
# The login shell's HOME is empty: the package's start-up file is in /etc/profile.d, and this machine's
# /root/.bashrc runs pyenv's set-up, 14 s a login shell in the emulated guest.
mkdir -p "$T/home"
# NAME|COMMAND: the workload, each run as a fresh process tree from a clean environment plus $E.
WORK=(
  "login_shell|env -i \$E HOME=$T/home PATH=$P bash -lc 'echo \$HOME; ls / | grep -c .; exit 4'"
  "bash_c|env -i \$E PATH=$P bash -c 'seq 1 500 | sort -rn | head -2; exit 3'"
  "coreutils|env -i \$E PATH=$P sh -c 'printf \"b\\na\\nb\\n\" | sort | uniq -c; date -u -d @0 +%F; cut -d: -f1 /etc/passwd | head -3; wc -c < /etc/hostname'"
  "find_xargs|env -i \$E PATH=$P sh -c 'cd $T/tree && find . -type f | sort | xargs -n 2 echo'"
  "make_j|env -i \$E PATH=$P sh -c 'rm -f $T/mk/*.out; make -s -j3 -C $T/mk && cat $T/mk/x.out $T/mk/y.out $T/mk/z.out'"
  "python|env -i \$E PATH=$P /usr/bin/python3 -c 'import subprocess, os, sys; print(subprocess.run([\"echo\", \"sub\"], capture_output=True).stdout.decode().strip(), os.system(\"true\")); sys.exit(7)'"
  "env_i_remote_style|env -i \$E /bin/sh -c 'echo \$PATH; id -u; exit 2'"
  "static|env -i \$E $T/bin/progstatic"
  "musl|env -i \$E $T/bin/progmusl"
  "busybox_static|env -i \$E /bin/busybox sh -c 'echo bb; exit 6'"
  "setuid_su|env -i \$E PATH=$P setpriv --reuid=nobody --regid=nogroup --clear-groups su -c true root </dev/null"
  "setuid_passwd|env -i \$E PATH=$P setpriv --reuid=nobody --regid=nogroup --clear-groups passwd -S root"
  "setuid_mount|env -i \$E PATH=$P setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c 'mount | grep -c \" / \"'"
)
[ "${RUN32:-0}" = 1 ] && WORK+=("prog32|env -i \$E $T/bin/prog32")
run_all() {  # TAG [VAR=VALUE...]: every workload's stdout, stderr and status into $T/out/TAG/NAME
  local tag=$1; shift
  mkdir -p "$T/out/$tag"
  # All at once: they are independent, and one after the other they take a minute in the emulated guest.
  for w in "${WORK[@]}"; do
    local name=${w%%|*} cmd=${w#*|}
    (E="$*"; eval "$cmd" >"$T/out/$tag/$name.out" 2>"$T/out/$tag/$name.err"; echo $? >"$T/out/$tag/$name.status") &
  done
  wait
}
compare() {  # TAG: each workload as it ran without numabind
  for w in "${WORK[@]}"; do
    local name=${w%%|*} why=""
    cmp -s "$T/out/off/$name.status" "$T/out/$1/$name.status" ||
      why+=" status $(cat "$T/out/off/$name.status") -> $(cat "$T/out/$1/$name.status");"
    cmp -s "$T/out/off/$name.out" "$T/out/$1/$name.out" || why+=" stdout: $(diff "$T/out/off/$name.out" "$T/out/$1/$name.out" | head -4 | tr '\n' ' ');"
    cmp -s "$T/out/off/$name.err" "$T/out/$1/$name.err" || why+=" stderr: $(diff "$T/out/off/$name.err" "$T/out/$1/$name.err" | head -4 | tr '\n' ' ');"
    check "$1: $name" "$why"
  done
}

run_all off
# The workload does what it should without numabind (so that comparing with it means something).
why=""
natives="static musl"; [ "${RUN32:-0}" = 1 ] && natives+=" prog32"
for name in $natives; do
  [ "$(cat "$T/out/off/$name.status")" = 5 ] && [ "$(cat "$T/out/off/$name.out")" = "$(printf 'child\nparent 0')" ] ||
    why+=" $name: $(cat "$T/out/off/$name.status") $(cat "$T/out/off/$name.out" "$T/out/off/$name.err");"
done
grep -q '^x$' "$T/out/off/make_j.out" || why+=" make_j: $(cat "$T/out/off/make_j.err");"
[ "$(cat "$T/out/off/setuid_su.status")" != 0 ] || why+=" su as nobody succeeded;"
[ "$(cat "$T/out/off/python.status")" = 7 ] || why+=" python: $(cat "$T/out/off/python.err");"
check "off: the workload runs" "$why"
# INSTALL=extract (the emulated guest): the package's files put in place from its archive, which is what dpkg -i
# does for a package with no maintainer scripts; dpkg -i itself reads the database of every installed
# package over 9p there (30 s). tests/pkg/deb_test.sh tests dpkg -i, upgrade and purge.
if [ "${INSTALL:-dpkg}" = extract ]; then
  # Copied folder by folder into the overlays: the guest's / itself is read-only (9p).
  { dpkg-deb -x "$DEB" "$T/pkg" && for d in "$T"/pkg/*/; do cp -a "$d." "/$(basename "$d")/"; done; } \
    >"$T/dpkg.log" 2>&1 || fail install "$(tail -3 "$T/dpkg.log")"
else
  dpkg -i "$DEB" >"$T/dpkg.log" 2>&1 || fail install "$(tail -3 "$T/dpkg.log")"
fi
if [ "${RUN32:-0}" = 1 ]; then
  # The loader's $LIB: a 32-bit program given the installed preload path (a login shell's, from the
  # profile.d script, sourced here: a login shell's own start-up files are not the package's) loads the
  # empty lib32 stub and runs as before, with no loader error; without the stub the loader does complain
  # (so the check can fail).
  got=$(env -i PATH=$P sh -c '. /etc/profile.d/numabind.sh; printf "%s\n" "$LD_PRELOAD"; '"$T/bin/prog32"' >/dev/null; echo "status $?"' 2>&1)
  check profile_32bit "$([ "$got" = "$(printf '/usr/$LIB/libnumabind.so\nstatus 5')" ] || echo "$got")"
  got=$(LD_PRELOAD='/usr/$LIB/libnumabind.so' LD_DEBUG=libs "$T/bin/prog32" 2>&1 >/dev/null; echo "status $?")
  why=""
  [[ $got == *"calling init: /usr/lib32/libnumabind.so"* ]] || why+=" the stub was not loaded;"
  [[ $got == *"status 5" ]] || why+=" exit status changed;"
  err=$(LD_PRELOAD='/usr/$LIB/libnumabind.so' "$T/bin/prog32" 2>&1 >/dev/null)
  [ -z "$err" ] || why+=" loader said: $err"
  check dollar_lib_32 "$why"
  mv /usr/lib32/libnumabind.so "$T/stub32"
  err=$(LD_PRELOAD='/usr/$LIB/libnumabind.so' "$T/bin/prog32" 2>&1 >/dev/null)
  mv "$T/stub32" /usr/lib32/libnumabind.so
  check dollar_lib_32_control "$([[ $err == *"cannot be preloaded"* ]] || echo "no loader error without the stub: '$err'")"
fi
echo '/usr/$LIB/libnumabind.so' >/etc/ld.so.preload
got=$(env -i /bin/sh -c 'grep -c libnumabind.so /proc/self/maps' 2>&1)
check "on: every process has the library" "$([ "${got:-0}" -ge 1 ] 2>/dev/null || echo "$got")"
run_all on
compare on
# A job's variables in the environment: programs that are not ranks still behave exactly as before, and
# the setuid ones read nothing (a bad strict configuration with a debug log file that must stay unwritten).
log=$T/debug.log
# SITEWIDE_QUICK=1 (the emulated guest, where every pass takes a minute): only the passes above and the jobs.
if [ "${SITEWIDE_QUICK:-0}" != 1 ]; then
run_all policy NUMABIND_POLICY=node NUMABIND_LOG=warn
compare policy
run_all strict NUMABIND_POLICY=node NUMABIND_MEMORY=fast NUMABIND_STRICT=1 NUMABIND_LOG=debug NUMABIND_LOG_FILE=$log
compare strict
# No program of the workload is, or starts, a rank, and the setuid ones read nothing: nothing is logged.
check "strict: debug log stays empty" "$([ ! -s "$log" ] || head -3 "$log" | tr '\n' ' ')"
fi

# Jobs: every rank bound as planned, by the map cpus:B|A over the first two allowed CPUs (the reverse of
# anything a default gives, so an unbound rank cannot pass), as `numabind plan` shows it.
nranks=2
# (No Python here: it takes seconds to start in the emulated guest.)
read -r a b < <(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
  while IFS=- read -r lo hi; do seq "$lo" "${hi:-$lo}"; done | head -n 2 | tr '\n' ' ')
policy="cpus:$b|$a"
# "rank CPUS" per rank, sorted, from one-line JSON objects (numabind plan --json, report lines).
ranks_cpus() { sed -n 's/.*"rank":"\{0,1\}\([0-9]*\)"\{0,1\},.*"cpus":"\([^"]*\)".*/\1 \2/p' | sort -n | tr '\n' ' '; }
planned=$(numabind plan --policy "$policy" --ranks $nranks --json | ranks_cpus)
check_job() {  # NAME REPORTS-FILE
  local got why=""
  got=$(ranks_cpus <"$2")
  [ "$got" = "$planned" ] || why="ranks on '$got', planned '$planned'"
  check "job: $1" "$why"
}
rm -f "$T/r1"
env -i HOME=/root PATH=$P NUMABIND_POLICY="$policy" bash -lc \
  "for r in 0 1; do LOCAL_RANK=\$r LOCAL_WORLD_SIZE=$nranks $REPORT --out $T/r1 & done; wait"
check_job bash_loop "$T/r1"
rm -f "$T/r2"
env -i HOME=/root PATH=$P NUMABIND_POLICY="$policy" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  mpirun --oversubscribe --bind-to none -np $nranks $REPORT --out "$T/r2" >/dev/null 2>&1
check_job mpirun "$T/r2"
rm /etc/ld.so.preload
echo END