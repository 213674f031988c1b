#!/usr/bin/env bash
# `make install DESTDIR=... PREFIX=/usr` and `make uninstall`: the files and only those, the helper path
# compiled into the library, the library never running a program found next to itself, the profile.d
# script, the loader's $LIB for 64-bit programs (32-bit ones run in the guest) and the manual pages; and
# `make install PREFIX=DIR`, which writes under DIR alone. Needs no root (without it, a user namespace for
# the private mount namespace; with neither that check counts as skipped). Prints "PASS name" or "FAIL name:
# why" per check and ends with "install: N passed, N failed[, N skipped]".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
# shellcheck source=lib.sh
. tests/pkg/lib.sh
SKIPPED=0
finish() {
  echo "install: $PASSED passed, $FAILED failed$([ "$SKIPPED" -eq 0 ] || echo ", $SKIPPED skipped")"
  [ "$FAILED" -eq 0 ]; exit
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
multiarch=$(${CC:-gcc} -print-multiarch)

mkdir -p "$dest/usr/bin" && echo keep >"$dest/usr/bin/other"  # not ours: uninstall must leave it
if ! make --no-print-directory BUILD="$BUILD" install DESTDIR="$dest" PREFIX=/usr >"$tmp/make.log" 2>&1; then
  fail make_install "$(tail -5 "$tmp/make.log")"
  finish
fi
pass make_install

# 1. Exactly these files, with these modes.
expected="/etc/numabind.conf 644
/etc/profile.d/numabind.sh 644
/usr/bin/numabind 755
/usr/bin/other 644
/usr/lib/$multiarch/libnumabind.so 644
/usr/lib32/libnumabind.so 644
/usr/libexec/numabind/numabind -> ../../bin/numabind
/usr/share/bash-completion/completions/numabind 644
/usr/share/man/man1/numabind.1 644
/usr/share/man/man7/numabind.7 644
/usr/share/zsh/vendor-completions/_numabind 644"
got=$(cd "$dest" && find . \( -type f -printf '/%P %m\n' \) -o \( -type l -printf '/%P -> %l\n' \) | sort)
check installed_files "$([ "$got" = "$expected" ] || diff <(echo "$expected") <(echo "$got") | tr '\n' ' ')"

lib=$dest/usr/lib/$multiarch/libnumabind.so
check lib_class "$(file -L "$lib" | grep -q 'ELF 64-bit' || echo "$(file -L "$lib")")"
check stub32_class "$(file -L "$dest/usr/lib32/libnumabind.so" | grep -q 'ELF 32-bit' || echo "not 32-bit")"

# 2. The helper's installed path is compiled in; the build tree's is not.
why=""
grep -qaF /usr/libexec/numabind/numabind "$lib" || why="/usr/libexec/numabind/numabind not in the library"
grep -qaF "$(pwd)/$BUILD" "$lib" && why+=" the build tree's path is in the installed library"
check helper_path_compiled_in "$why"

# 3. A library loaded from a directory others can write never runs a program found next to it: a
# `numabind` beside the copied library must not run. The helper is not installed on this machine, so the
# rank runs unbound after a warning naming the compiled-in path.
mkdir -p "$tmp/writable"
cp "$lib" "$tmp/writable/libnumabind.so"
for place in numabind ../bin/numabind; do
  mkdir -p "$(dirname "$tmp/writable/$place")"
  printf '#!/bin/sh\ntouch %s/ran\n' "$tmp" >"$tmp/writable/$place"
  chmod 755 "$tmp/writable/$place"
done
if [ -e /usr/libexec/numabind/numabind ]; then
  fail no_helper_next_to_library "/usr/libexec/numabind/numabind exists on this machine: cannot tell"
else
  err=$(env LD_PRELOAD="$tmp/writable/libnumabind.so" NUMABIND_POLICY=node \
        bash -c 'LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 /bin/true' 2>&1 >/dev/null)
  why=""
  [ -e "$tmp/ran" ] && why="the library ran a numabind found next to itself"
  [[ $err == *"runs unbound"*"planner helper /usr/libexec/numabind/numabind"* ]] || why+=" warning: $err"
  check no_helper_next_to_library "$why"
fi

# 4. The profile.d script, in dash and bash, under set -u. It adds the library only while the library is
# installed: here it tests for the staged copy instead of /usr's.
profile=$tmp/numabind.sh
grep -qF "[ -e \"/usr/lib/$multiarch/libnumabind.so\" ]" "$dest/etc/profile.d/numabind.sh" ||
  fail profile_tests_library "the script does not test for /usr/lib/$multiarch/libnumabind.so"
sed "s|\"/usr/lib/$multiarch/libnumabind.so\"|\"$lib\"|" "$dest/etc/profile.d/numabind.sh" >"$profile"
want='/usr/$LIB/libnumabind.so'
sed "s|\"/usr/lib/$multiarch/libnumabind.so\"|\"$tmp/gone.so\"|" "$dest/etc/profile.d/numabind.sh" >"$tmp/gone.sh"
for sh in sh bash; do
  got=$(env -u LD_PRELOAD "$sh" -uc ". '$tmp/gone.sh'; printf %s \"\${LD_PRELOAD-unset}\"" 2>&1)
  check "profile_$sh: nothing once the library is gone" "$([ "$got" = unset ] || echo "LD_PRELOAD='$got'")"
  got=$(env -u LD_PRELOAD "$sh" -uc ". '$profile'; printf %s \"\$LD_PRELOAD\"" 2>&1)
  check "profile_$sh: adds" "$([ "$got" = "$want" ] || echo "LD_PRELOAD='$got'")"
  other=$(cd "$BUILD" && pwd -L)/libempty.so  # through the link when the real path has a space
  got=$(LD_PRELOAD=$other "$sh" -uc ". '$profile'; printf %s \"\$LD_PRELOAD\"" 2>&1)
  check "profile_$sh: keeps what is there" "$([ "$got" = "$other:$want" ] || echo "LD_PRELOAD='$got'")"
  # A nested login shell sources it again: nothing is added twice. (The inner shell's loader cannot find
  # /usr/$LIB/libnumabind.so on this machine and says so on stderr, which is not what is checked here.)
  got=$(env -u LD_PRELOAD "$sh" -uc ". '$profile'; $sh -uc \". '$profile'; printf %s \\\"\\\$LD_PRELOAD\\\"\"" 2>/dev/null)
  check "profile_$sh: once in nested shells" "$([ "$got" = "$want" ] || echo "LD_PRELOAD='$got'")"
  got=$(env -u LD_PRELOAD NUMABIND_DISABLE=1 "$sh" -uc ". '$profile'; printf %s \"\${LD_PRELOAD-unset}\"" 2>&1)
  check "profile_$sh: NUMABIND_DISABLE=1" "$([ "$got" = unset ] || echo "LD_PRELOAD='$got'")"
done

# 5. The loader's $LIB: a 64-bit program loads the library from lib/<multiarch> without a loader error.
# A 32-bit program loading the stub from lib32 needs a kernel that runs 32-bit programs, which this machine
# need not have: that half runs in the guest (tests/pkg/sitewide_inside.sh with RUN32=1, tests/vm/sitewide.sh).
preload="$dest/usr/\$LIB/libnumabind.so"
out64=$(LD_PRELOAD="$preload" LD_DEBUG=libs /bin/true 2>&1; echo "status $?")
why=""
[[ $out64 == *"calling init: $dest/usr/lib/$multiarch/libnumabind.so"* ]] || why+=" 64-bit did not load it;"
[[ $out64 == *"status 0" ]] || why+=" exit status changed;"
err=$(LD_PRELOAD="$preload" /bin/true 2>&1)
[ -z "$err" ] || why+=" loader said: $err"
check dollar_lib_64 "$why"

# 6. Manual pages: render without warnings, and hold every variable and every command's options.
why=""
for page in "$dest/usr/share/man/man1/numabind.1" "$dest/usr/share/man/man7/numabind.7"; do
  warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
  [ -z "$warn" ] || why+=" $(basename "$page"): $warn;"
done
text7=$(MANWIDTH=2000 man -l "$dest/usr/share/man/man7/numabind.7" 2>/dev/null)
for var in $("$dest/usr/bin/numabind" vars | sed -n 's/^  \(NUMABIND_[A-Z_]*\)=.*/\1/p'); do
  [[ $text7 == *"$var="* ]] || why+=" numabind(7) lacks $var;"
done
text1=$(MANWIDTH=2000 man -l "$dest/usr/share/man/man1/numabind.1" 2>/dev/null)
for cmd in run plan show vars; do
  for opt in $("$dest/usr/bin/numabind" help "$cmd" | sed -n 's/^  \(--[a-z-]*\).*/\1/p'); do
    [[ $text1 == *"$opt"* ]] || why+=" numabind(1) lacks $cmd $opt;"
  done
done
check man_pages "$why"

# 7. The bash completion, where bash-completion loads it on demand: sourced, it registers itself and
# completes the installed command's commands and policy names.
comp=$dest/usr/share/bash-completion/completions/numabind
got=$(bash --norc -c ". '$comp' && complete -p numabind" 2>&1)
check completion_registers "$([ "$got" = "complete -F _numabind numabind" ] || echo "$got")"
got=$(bash --norc -c ". '$comp'; t() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\$# - 1)); _numabind; echo \"\${COMPREPLY[*]}\"; }
  t numabind pl; t numabind run --policy ex" 2>&1)
check completion_completes "$([ "$got" = "$(printf 'plan\nexclusive')" ] || echo "$got")"
# zsh's, where compinit finds it: the #compdef line names the command, and zsh parses it.
zcomp=$dest/usr/share/zsh/vendor-completions/_numabind
got=$(head -1 "$zcomp"; zsh -n "$zcomp" 2>&1)
check zsh_completion "$([ "$got" = "#compdef numabind" ] || echo "$got")"

# 8. `make install PREFIX=DIR` without DESTDIR writes under DIR alone (it wrote /etc/numabind.conf and
# /etc/profile.d/numabind.sh): it runs in a private mount namespace whose root is read-only but for a fresh
# directory (DIR, the install's own build directory and TMPDIR) and the build tree, so that a write anywhere
# else fails it. The site file and the profile.d script go to DIR/etc, and the installed library and command
# read the site file from there. SYSCONFDIR and PROFILEDIR move them (a dry run).
fresh=$tmp/fresh prefix=$tmp/fresh/prefix
mkdir -p "$fresh/tmp"
ns=(unshare --mount --propagation private)
[ "$(id -u)" -eq 0 ] || ns=(unshare --user --map-root-user --mount --propagation private)
in_fresh_root() {  # ARGS...: make ARGS with every path read-only but $fresh and $BUILD
  # shellcheck disable=SC2016  # the inner shell's arguments
  "${ns[@]}" sh -c 'mount --bind "$1" "$1" && mount --bind "$2" "$2" && mount -o remount,bind,ro / &&
    shift 2 && exec "$@"' sh "$fresh" "$(realpath "$BUILD")" env TMPDIR="$fresh/tmp" \
    make --no-print-directory BUILD="$BUILD" PKG_BUILD="$fresh/pkg" "$@"
}
listing() { (cd "$1" && find . \( -type f -printf '/%P %m\n' \) -o \( -type l -printf '/%P -> %l\n' \) | sort); }
if ! "${ns[@]}" true 2>/dev/null; then
  echo "SKIP prefix_writes_under_prefix: no private mount namespace here (unshare --mount)"
  SKIPPED=$((SKIPPED + 1))
elif ! in_fresh_root install PREFIX="$prefix" >"$tmp/make.log" 2>&1; then
  fail prefix_writes_under_prefix "$(grep -m 3 -E 'Read-only|rror' "$tmp/make.log" | tr '\n' ' ')"
else
  expected="/bin/numabind 755
/etc/numabind.conf 644
/etc/profile.d/numabind.sh 644
/lib/$multiarch/libnumabind.so 644
/lib32/libnumabind.so 644
/libexec/numabind/numabind -> ../../bin/numabind
/share/bash-completion/completions/numabind 644
/share/man/man1/numabind.1 644
/share/man/man7/numabind.7 644
/share/zsh/site-functions/_numabind 644"
  got=$(listing "$prefix")
  why=$([ "$got" = "$expected" ] || diff <(echo "$expected") <(echo "$got") | tr '\n' ' ')
  others=$(find "$fresh" -mindepth 1 -maxdepth 1 -printf '%P\n' | sort | tr '\n' ' ')
  [ "$others" = "pkg prefix tmp " ] || why+=" also wrote $others"
  check prefix_writes_under_prefix "$why"
  why=""
  grep -qaF "$prefix/etc/numabind.conf" "$prefix/lib/$multiarch/libnumabind.so" ||
    why="the library does not read $prefix/etc/numabind.conf;"
  said=$("$prefix/bin/numabind" vars 2>&1 | sed -n 's/^Site file: //p')
  [[ $said == "$prefix/etc/numabind.conf"* ]] || why+=" numabind vars: site file $said"
  check prefix_site_file_compiled_in "$why"
  if in_fresh_root uninstall PREFIX="$prefix" >"$tmp/make.log" 2>&1; then
    check prefix_uninstall "$(listing "$prefix" | tr '\n' ' ')"
  else
    fail prefix_uninstall "$(tail -3 "$tmp/make.log")"
  fi
fi
# A dry run: SYSCONFDIR moves the site file (and the path compiled in) and the profile.d script with it;
# PROFILEDIR moves the script alone, say to where login shells read it.
dry() { make --no-print-directory -n BUILD="$BUILD" PKG_BUILD="$fresh/pkg" install "$@" 2>&1; }
why=""
out=$(dry PREFIX=/opt/nb SYSCONFDIR=/srv/etc)
for want in "SITE_FILE=/srv/etc/numabind.conf" "/srv/etc/numabind.conf" "/srv/etc/profile.d/numabind.sh"; do
  [[ $out == *"$want"* ]] || why+=" SYSCONFDIR=/srv/etc: no $want;"
done
[[ $out != *"/opt/nb/etc"* && $out != *" /etc/"* ]] || why+=" SYSCONFDIR=/srv/etc: names /opt/nb/etc or /etc;"
out=$(dry PREFIX=/opt/nb PROFILEDIR=/etc/profile.d)
for want in "SITE_FILE=/opt/nb/etc/numabind.conf" "/opt/nb/etc/numabind.conf" "/etc/profile.d/numabind.sh"; do
  [[ $out == *"$want"* ]] || why+=" PROFILEDIR=/etc/profile.d: no $want;"
done
check sysconfdir_and_profiledir "$why"

# 9. uninstall removes exactly what install put there.
make --no-print-directory BUILD="$BUILD" uninstall DESTDIR="$dest" PREFIX=/usr >"$tmp/make.log" 2>&1 ||
  fail make_uninstall "$(tail -3 "$tmp/make.log")"
left=$(cd "$dest" && find . -type f -o -type l | sort | tr '\n' ' ')
check uninstall "$([ "$left" = "./usr/bin/other " ] || echo "left: $left")"
check uninstall_libexec_dir "$([ ! -e "$dest/usr/libexec/numabind" ] || echo "usr/libexec/numabind left")"
finish
