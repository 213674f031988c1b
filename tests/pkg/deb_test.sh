#!/usr/bin/env bash
# `make deb`: lintian reports no errors, and the package installs, switches numabind on for login shells
# (and through the /etc/ld.so.preload line docs/package.md gives), binds a rank from the installed files,
# upgrades over itself keeping an administrator's change to its conffile, is removed and purged cleanly.
# dpkg runs on this machine's own root, inside a private mount namespace whose /etc, /usr and /var are
# overlays over the real ones: nothing reaches the host. Needs root (counted as skipped otherwise) and ends
# with "deb: N passed, N failed[, N skipped]".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
# shellcheck source=lib.sh
. tests/pkg/lib.sh

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP deb: needs root (dpkg and a private mount namespace)"
  echo "deb: 0 passed, 0 failed, 1 skipped"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! make --no-print-directory BUILD="$BUILD" deb "$BUILD/helpers/entry_launcher" "$BUILD/helpers/report" \
     >"$tmp/make.log" 2>&1; then
  fail make_deb "$(tail -5 "$tmp/make.log")"
  echo "deb: $PASSED passed, $FAILED failed"
  exit 1
fi
version=$(sed -n 's/.*kVersion\[\] = "\(.*\)";/\1/p' cli/cli.h)
deb=$BUILD/numabind_${version}_$(dpkg --print-architecture).deb
check make_deb "$([ -f "$deb" ] || echo "$deb not written")"

# Package metadata: the helper's runtime libraries, the profile.d script and the site file as conffiles.
info=$(dpkg-deb -f "$deb" Depends)
why=""
for dep in libc6 libhwloc15 libstdc++6; do [[ $info == *"$dep "* ]] || why+=" Depends lacks $dep ($info);"; done
conffiles=$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles | tr '\n' ' ')
[ "$conffiles" = "/etc/numabind.conf /etc/profile.d/numabind.sh " ] || why+=" conffiles: $conffiles"
# The site file as shipped sets nothing: every line a comment or blank (docs/site.md).
set_lines=$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./etc/numabind.conf | grep -v '^#' | grep -v '^$')
[ -z "$set_lines" ] || why+=" /etc/numabind.conf sets: $set_lines"
check metadata "$why"

if command -v lintian >/dev/null; then
  lintian "$deb" >"$tmp/lintian" 2>&1
  check lintian_no_errors "$(grep '^E:' "$tmp/lintian" | tr '\n' ' ')"
else
  fail lintian_no_errors "lintian is not installed (scripts/install-deps.sh)"
fi

# An upgrade: the same package with a higher version.
mkdir -p "$tmp/up"
dpkg-deb -R "$deb" "$tmp/up/root"
sed -i "s/^Version: .*/Version: ${version}+1/" "$tmp/up/root/DEBIAN/control"
dpkg-deb --root-owner-group -b "$tmp/up/root" "$tmp/up/numabind_${version}+1.deb" >/dev/null

# The part that runs as root inside the namespace: prints PASS/FAIL lines of its own.
cat >"$tmp/inside.sh" <<'EOF'
set -uo pipefail
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi; }
for d in etc usr var; do
  mkdir -p "$T/ov/$d/up" "$T/ov/$d/work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$T/ov/$d/up,workdir=$T/ov/$d/work" "/$d" ||
    { fail overlay "cannot mount an overlay on /$d"; exit 0; }
done
export DEBIAN_FRONTEND=noninteractive
multiarch=$(gcc -print-multiarch)
lib=/usr/lib/$multiarch/libnumabind.so
state() { dpkg-query -W -f '${Status} ${Version}' numabind 2>/dev/null; }
# A login shell as a user gets it: a clean environment, as login does.
login() { env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

dpkg -i "$DEB" >"$T/dpkg.log" 2>&1
check install "$([ "$(state)" = "install ok installed $VERSION" ] || echo "$(state); $(tail -3 "$T/dpkg.log")")"
why=""
for f in /usr/bin/numabind "$lib" /usr/lib32/libnumabind.so /usr/libexec/numabind/numabind \
         /etc/profile.d/numabind.sh /etc/numabind.conf /usr/share/man/man1/numabind.1.gz /usr/share/man/man7/numabind.7.gz \
         /usr/share/doc/numabind/copyright /usr/share/bash-completion/completions/numabind \
         /usr/share/zsh/vendor-completions/_numabind; do
  [ -e "$f" ] || why+=" $f missing;"
done
check installed_files "$why"
# The bash completion, where bash-completion loads it on demand: sourced, it registers itself.
got=$(login bash --norc -c '. /usr/share/bash-completion/completions/numabind && complete -p numabind' 2>&1)
check completion "$([ "$got" = "complete -F _numabind numabind" ] || echo "$got")"

got=$(login bash -lc 'printf %s "$LD_PRELOAD"' 2>&1)
check login_bash "$([ "$got" = '/usr/$LIB/libnumabind.so' ] || echo "LD_PRELOAD='$got'")"
got=$(login sh -lc 'printf %s "$LD_PRELOAD"' 2>&1)
check login_sh "$([ "$got" = '/usr/$LIB/libnumabind.so' ] || echo "LD_PRELOAD='$got'")"
got=$(login bash -lc 'bash -lc "printf %s \"\$LD_PRELOAD\""' 2>&1)
check nested_login_once "$([ "$got" = '/usr/$LIB/libnumabind.so' ] || echo "LD_PRELOAD='$got'")"
got=$(login NUMABIND_DISABLE=1 bash -lc 'printf %s "${LD_PRELOAD-unset}"' 2>&1)
check login_disabled "$([ "$got" = unset ] || echo "LD_PRELOAD='$got'")"
# The library is really in a login shell's programs. (A 32-bit program, which loads the lib32 stub, needs a
# kernel that runs 32-bit programs: tests/pkg/sitewide_inside.sh checks it in the guest.)
got=$(login bash -lc 'grep -c libnumabind.so /proc/self/maps' 2>&1)
check login_loaded "$([ "$got" -ge 1 ] 2>/dev/null || echo "not mapped: $got")"
# A rank started from a login shell is bound by the installed library, through the installed helper.
got=$(login NUMABIND_POLICY=node NUMABIND_LOG=info bash -lc 'LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 /bin/true' 2>&1)
check installed_binds_rank "$([[ $got == *"numabind: bound rank 0 of 1 (LOCAL_RANK) /bin/true: cpus "* ]] || echo "$got")"

# docs/package.md's /etc/ld.so.preload line: every process, without a login shell, starts clean (32-bit
# ones: in the guest, as above).
echo '/usr/$LIB/libnumabind.so' >/etc/ld.so.preload
got=$(env -i /bin/sh -c 'grep -q libnumabind.so /proc/self/maps && echo mapped; /bin/true; echo status $?' 2>&1)
check ld_so_preload "$([ "$got" = "$(printf 'mapped\nstatus 0')" ] || echo "$got")"
got=$(env -i NUMABIND_POLICY=node NUMABIND_LOG=info /bin/sh -c 'LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 /bin/true' 2>&1)
check ld_so_preload_binds "$([[ $got == *"bound rank 1 of 2 (LOCAL_RANK) /bin/true"* ]] || echo "$got")"

# Secure execution: with the library in every process through /etc/ld.so.preload, a setuid-root or a
# file-capability launcher run by an unprivileged user reads nothing and does nothing. The configuration is
# bad and strict, so a library that acted would refuse to start the ranks and log why (the control, the same
# launcher without the bit or capability, shows it does); the secure ones start both ranks and leave the
# debug log file unwritten. The ranks are secure-execution programs too (a setuid launcher's children are,
# by their user ids; the file-capability case runs a rank with a capability of its own): an ordinary rank
# binds itself at start-up, which is not the launcher acting.
sec=$(mktemp -d /tmp/numabind-secure.XXXXXX)
chmod 755 "$sec"
cp "$HELPERS/entry_launcher" "$sec/plain"
cp "$HELPERS/entry_launcher" "$sec/setuid"
cp "$HELPERS/entry_launcher" "$sec/caps"
cp "$HELPERS/report" "$sec/report"
cp "$HELPERS/report" "$sec/report-caps"
chmod 755 "$sec/plain" "$sec/caps" "$sec/report" "$sec/report-caps"
chmod 4755 "$sec/setuid"
setcap cap_net_raw+ep "$sec/caps"
setcap cap_net_raw+ep "$sec/report-caps"
secure_run() {  # LAUNCHER RANK: runs LAUNCHER as nobody, configured, starting RANK; prints "reports N log N"
  rm -rf "$sec/out-$1" && mkdir -p "$sec/out-$1" && chmod 777 "$sec/out-$1"
  env -i PATH=/usr/bin:/bin NUMABIND_POLICY=node NUMABIND_MEMORY=fast NUMABIND_STRICT=1 NUMABIND_LOG=debug \
    NUMABIND_LOG_FILE="$sec/out-$1/log" setpriv --reuid=nobody --regid=nogroup --clear-groups \
    "$sec/$1" execve 2 "$sec/$2" --out "$sec/out-$1/reports" >/dev/null 2>&1
  echo "reports $(cat "$sec/out-$1/reports" 2>/dev/null | wc -l) log $(cat "$sec/out-$1/log" 2>/dev/null | wc -c)"
}
got=$(secure_run plain report)
check secure_control_acts "$([[ $got == "reports 0 log "[1-9]* ]] || echo "a plain launcher: $got")"
got=$(secure_run setuid report)
check secure_setuid_inert "$([ "$got" = "reports 2 log 0" ] || echo "$got: $(cat "$sec/out-setuid/log" 2>/dev/null)")"
if getcap "$sec/caps" | grep -q cap_net_raw && getcap "$sec/report-caps" | grep -q cap_net_raw; then
  got=$(secure_run plain report-caps)
  check secure_control_acts_on_caps_rank "$([[ $got == "reports 0 log "[1-9]* ]] || echo "a plain launcher: $got")"
  got=$(secure_run caps report-caps)
  check secure_file_caps_inert "$([ "$got" = "reports 2 log 0" ] || echo "$got: $(cat "$sec/out-caps/log" 2>/dev/null)")"
else
  fail secure_file_caps_inert "setcap did not take on $sec"
fi
# The site file (docs/site.md) is never read by a secure-execution process either. It configures a debug log
# and no variable is in the environment: the plain launcher's ranks (fork and execve: each reads the file
# and binds itself) write it, the setuid launcher's write nothing.
cp /etc/numabind.conf "$T/numabind.conf.orig"
mkdir -p "$sec/site" && chmod 777 "$sec/site"
printf 'NUMABIND_POLICY=node\nNUMABIND_LOG=debug\nNUMABIND_LOG_FILE=%s\n' "$sec/site/log" >/etc/numabind.conf
site_run() {  # LAUNCHER: runs LAUNCHER as nobody with no NUMABIND_* variable; prints "reports N log N"
  rm -f "$sec/site/log"
  env -i PATH=/usr/bin:/bin setpriv --reuid=nobody --regid=nogroup --clear-groups \
    "$sec/$1" execve 2 "$sec/report" --out "$sec/site/reports-$1" >/dev/null 2>&1
  echo "reports $(cat "$sec/site/reports-$1" 2>/dev/null | wc -l) log $(cat "$sec/site/log" 2>/dev/null | wc -c)"
}
got=$(site_run plain)
check site_file_control_acts "$([[ $got == "reports 2 log "[1-9]* ]] || echo "a plain launcher: $got")"
got=$(site_run setuid)
check site_file_setuid_unread "$([ "$got" = "reports 2 log 0" ] || echo "$got: $(cat "$sec/site/log" 2>/dev/null)")"
cp "$T/numabind.conf.orig" /etc/numabind.conf
rm -rf "$sec"
rm /etc/ld.so.preload

# Upgrade over itself; an administrator's change to the conffile stays (the new one is the same).
echo '# site change' >>/etc/profile.d/numabind.sh
dpkg -i "$DEB_UP" >"$T/dpkg.log" 2>&1
why=""
[ "$(state)" = "install ok installed $VERSION+1" ] || why+=" $(state);"
grep -q '# site change' /etc/profile.d/numabind.sh || why+=" the administrator's change is gone;"
[ -x /usr/libexec/numabind/numabind ] || why+=" helper gone;"
check upgrade "$why$(grep -i 'error\|warning' "$T/dpkg.log" | tr '\n' ' ')"
dpkg -i "$DEB_UP" >"$T/dpkg.log" 2>&1
check reinstall "$([ "$(state)" = "install ok installed $VERSION+1" ] || echo "$(state)")"

dpkg -r numabind >"$T/dpkg.log" 2>&1
why=""
[ "$(state)" = "deinstall ok config-files $VERSION+1" ] || why+=" $(state);"
for f in /usr/bin/numabind "$lib" /usr/lib32/libnumabind.so /usr/libexec/numabind /usr/share/doc/numabind; do
  [ -e "$f" ] && why+=" $f left;"
done
[ -f /etc/profile.d/numabind.sh ] || why+=" the conffile went before purge;"
check remove "$why"
got=$(login bash -lc 'printf %s "$LD_PRELOAD"; /bin/true' 2>&1)
check removed_login_clean "$([ -z "$got" ] || echo "'$got'")"

dpkg -P numabind >"$T/dpkg.log" 2>&1
why=""
[ -z "$(state)" ] || why+=" $(state);"
[ -e /etc/profile.d/numabind.sh ] && why+=" conffile left;"
left=$(find /etc /usr /var/lib/dpkg/info -name '*numabind*' 2>/dev/null | tr '\n' ' ')
[ -z "$left" ] || why+=" left: $left"
check purge "$why"
echo END
EOF

T=$tmp HELPERS=$(realpath "$BUILD/helpers") DEB=$(realpath "$deb") DEB_UP=$tmp/up/numabind_${version}+1.deb VERSION=$version \
  unshare --mount --propagation private bash "$tmp/inside.sh" >"$tmp/inside.log" 2>&1
grep -v "^END$" "$tmp/inside.log"
PASSED=$((PASSED + $(grep -c '^PASS ' "$tmp/inside.log")))
FAILED=$((FAILED + $(grep -c '^FAIL ' "$tmp/inside.log")))
grep -qx END "$tmp/inside.log" || fail namespace "the namespace part stopped early"
echo "deb: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
