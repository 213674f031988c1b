#!/usr/bin/env bash
# Checks the shim's binary interface: libc alone in DT_NEEDED (preloading a library that needs libstdc++
# nearly doubles the cost of starting /bin/true), and exactly the wrapped functions exported (the names in
# shim/entry/wrapped.def, read through the same preprocessing that makes the library's version script).
# Usage: check-abi.sh [path/to/libnumabind.so]. Exit 0 when both hold.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-${BUILD:-build}/libnumabind.so}
list=$here/shim/entry/wrapped.def
[ -f "$lib" ] || { echo "check-abi: $lib: no such file"; exit 1; }
status=0

needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
if [ "$needed" != "libc.so.6 " ]; then
  echo "check-abi: $lib needs '$needed'; expected libc.so.6 alone"; status=1
fi

want=$(${CC:-cc} -E -P -x c -I"$here" "$here/shim/entry/exports.map.in" | sed -n '/global:/,/local:/p' |
       tr ';' '\n' | sed 's/global://; s/local:.*//' | tr -d ' \t' | grep -v '^$' | sort)
have=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | grep -v '^$' | sort)
if [ "$want" != "$have" ]; then
  echo "check-abi: exported symbols differ from $list:"
  diff <(echo "$want") <(echo "$have") | sed -n 's/^< /  missing: /p; s/^> /  extra:   /p'
  status=1
fi
[ $status -eq 0 ] && echo "check-abi: $lib needs libc.so.6 alone and exports $(echo "$have" | wc -l) wrapped functions"
exit $status
