#!/usr/bin/env bash
# Builds $BUILD/numabind_<version>_amd64.deb from a `make install PREFIX=/usr DESTDIR=ROOT` tree (`make deb`
# does both). Usage: scripts/deb.sh ROOT. The version is the command's (cli/cli.h kVersion), and must be
# the top entry of packaging/debian/changelog. Depends comes from dpkg-shlibdeps on the 64-bit binaries
# (the helper's libhwloc15 and libstdc++6; the library needs libc alone). /etc/profile.d/numabind.sh is a
# conffile. No maintainer scripts: installing is the administrator's decision and switches numabind on for
# login shells; the package never writes /etc/ld.so.preload.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
root=${1:?usage: scripts/deb.sh ROOT (a make install PREFIX=/usr DESTDIR=ROOT tree)}
[ -x "$root/usr/bin/numabind" ] || { echo "deb: $root/usr/bin/numabind missing (make install PREFIX=/usr DESTDIR=$root)" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
  command -v "$tool" >/dev/null || { echo "deb: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done

version=$(sed -n 's/.*kVersion\[\] = "\(.*\)";/\1/p' "$here/cli/cli.h")
changelog_version=$(sed -n '1s/^numabind (\([^)]*\)).*/\1/p' "$here/packaging/debian/changelog")
if [ "$version" != "$changelog_version" ]; then
  echo "deb: cli/cli.h says version $version, packaging/debian/changelog's top entry $changelog_version" >&2
  exit 1
fi
arch=$(dpkg --print-architecture)
pkg=$BUILD/deb/numabind
out=$BUILD/numabind_${version}_${arch}.deb
rm -rf "$BUILD/deb"
mkdir -p "$pkg"
cp -a "$root/." "$pkg/"

# Stripped as Debian's dh_strip does; manual pages and the changelog compressed reproducibly.
strip --remove-section=.comment --remove-section=.note "$pkg/usr/bin/numabind"
find "$pkg/usr/lib" "$pkg/usr/lib32" -name '*.so' -type f \
  -exec strip --remove-section=.comment --remove-section=.note --strip-unneeded {} +
find "$pkg/usr/share/man" -type f -name 'numabind.[0-9]' -exec gzip -9n {} +
doc=$pkg/usr/share/doc/numabind
install -d "$doc"
install -m 644 "$here/packaging/debian/copyright" "$doc/copyright"
gzip -9nc "$here/packaging/debian/changelog" >"$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"

# Dependencies of the 64-bit binaries only: the 32-bit stub needs nothing a 32-bit program has not loaded.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: numabind\n\nPackage: numabind\nArchitecture: any\n' >"$work/debian/control"
multiarch=$(${CC:-gcc} -print-multiarch)
bins=("$(realpath "$pkg/usr/bin/numabind")" "$(realpath "$pkg/usr/lib/$multiarch/libnumabind.so")")
depends=$(cd "$work" && dpkg-shlibdeps -O "${bins[@]}" 2>"$work/err" | sed -n 's/^shlibs:Depends=//p') || {
  cat "$work/err" >&2; exit 1; }
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; cat "$work/err" >&2; exit 1; }

mkdir -p "$pkg/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
  "$here/packaging/debian/control.in" >"$pkg/DEBIAN/control"
(cd "$pkg" && find etc -type f | sed 's|^|/|' | sort) >"$pkg/DEBIAN/conffiles"
install -m 644 "$here/packaging/debian/triggers" "$pkg/DEBIAN/triggers"
(cd "$pkg" && find usr -type f -exec md5sum {} + | sort -k2) >"$pkg/DEBIAN/md5sums"
chmod 644 "$pkg/DEBIAN/"*
# Written beside it, then renamed: the suites that run `make deb` again (tests/pkg) must not truncate the
# package a guest is installing from at the same time (make test runs them side by side: seen in CI as
# "tar: Unexpected EOF in archive" in layout B's sitewide/install).
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out.tmp.$$" >/dev/null
mv -f "$out.tmp.$$" "$out"
echo "deb: wrote $out ($(du -k "$out" | cut -f1) KiB; Depends: $depends)"
