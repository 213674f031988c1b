#!/usr/bin/env bash
# numabind site-wide on this machine's own root: a mixed workload runs once without numabind, then with the
# package installed and docs/package.md's /etc/ld.so.preload line (so the library is in every process, login
# shell or not), with and without NUMABIND_POLICY in the environment, and every program must print the same
# and exit the same. Then jobs with NUMABIND_POLICY set bind every rank. dpkg and /etc/ld.so.preload live in a
# private mount namespace whose /etc, /usr and /var are overlays over the real ones: nothing reaches the
# host. Needs root (counted as skipped otherwise); ends with "sitewide: N passed, N failed[, N skipped]".
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP sitewide: needs root (dpkg and a private mount namespace)"
  echo "sitewide: 0 passed, 0 failed, 1 skipped"
  exit 0
fi
tmp=$(mktemp -d /tmp/numabind-sitewide.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
if ! make --no-print-directory BUILD="$BUILD" deb "$BUILD/helpers/report" >"$tmp/make.log" 2>&1; then
  echo "FAIL make_deb: $(tail -5 "$tmp/make.log")"
  echo "sitewide: 0 passed, 1 failed"
  exit 1
fi
version=$(sed -n 's/.*kVersion\[\] = "\(.*\)";/\1/p' cli/cli.h)
deb=$(realpath "$BUILD/numabind_${version}_$(dpkg --print-architecture).deb")

cp "$BUILD/helpers/report" "$tmp/report"
# The workload's own programs are left in $BUILD/sitewide, where the guest's run (tests/vm/sitewide.sh) finds them.
T=$tmp DEB=$deb REPORT=$tmp/report PROGS=$BUILD/sitewide unshare --mount --propagation private bash tests/pkg/sitewide_inside.sh \
  >"$tmp/inside.log" 2>&1
mkdir -p "$BUILD/sitewide" && cp "$tmp/bin/prog32" "$tmp/bin/progmusl" "$tmp/bin/progstatic" "$BUILD/sitewide/" 2>/dev/null
grep -v '^END$' "$tmp/inside.log"
passed=$(grep -c '^PASS ' "$tmp/inside.log") failed=$(grep -c '^FAIL ' "$tmp/inside.log")
grep -qx END "$tmp/inside.log" || { echo "FAIL namespace: the namespace part stopped early"; failed=$((failed + 1)); }
echo "sitewide: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
