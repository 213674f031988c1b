#!/usr/bin/env bash
# Checks the shim's binary interface:
#  - nothing in DT_NEEDED (the C library is the program's: base/libc_imports.h; preloading a library that
#    needs libstdc++ nearly doubles the cost of starting /bin/true, and even libc.so.6 as a dependency costs
#    every process about 2,300 instructions of version checks);
#  - every undefined symbol weak (a dynamic program with no C library still starts) and defined by the C
#    library (LIBC, default the one /bin/sh loads): what -z defs checked when the library linked libc;
#  - exactly the wrapped functions exported (the names in shim/state/wrapped.def, read through the same
#    preprocessing that makes the library's version script).
# Usage: check-abi.sh [path/to/libnumabind.so]. Exit 0 when all hold.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-${BUILD:-build}/libnumabind.so}
list=$here/shim/state/wrapped.def
libc=${LIBC:-$(ldd /bin/sh | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')}
[ -f "$lib" ] || { echo "check-abi: $lib: no such file"; exit 1; }
[ -f "$libc" ] || { echo "check-abi: no C library to check against (LIBC='$libc')"; exit 1; }
status=0
first() { awk -v n="$(wc -w <<<"$1")" '{for (i = 1; i <= NF && i <= 8; i++) printf "%s ", $i} END {if (n > 8) printf "... (%d in all)", n}' <<<"$1"; }

needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
if [ -n "$needed" ]; then
  echo "check-abi: $lib needs '$needed'; expected nothing in DT_NEEDED"; status=1
fi

strong=$(nm -D --undefined-only "$lib" | awk '$1 == "U" {print $2}' | sed 's/@.*//' | sort | tr '\n' ' ')
if [ -n "$strong" ]; then
  echo "check-abi: strong undefined symbols (declare them in base/libc_imports.h): $(first "$strong")"; status=1
fi
libc_defs=$(nm -D --defined-only "$libc" | awk '{print $3}' | sed 's/@.*//' | sort -u)
unknown=$(nm -D --undefined-only "$lib" | awk '{print $2}' | sed 's/@.*//' | sort -u | comm -23 - <(echo "$libc_defs") |
          tr '\n' ' ')
if [ -n "$unknown" ]; then
  echo "check-abi: undefined symbols that $libc does not define: $(first "$unknown")"; status=1
fi

want=$(${CC:-cc} -E -P -x c -I"$here" "$here/shim/entry/exports.map.in" | sed -n '/global:/,/local:/p' |
       tr ';' '\n' | sed 's/global://; s/local:.*//' | tr -d ' \t' | grep -v '^$' | sort)
have=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | grep -v '^$' | sort)
if [ "$want" != "$have" ]; then
  echo "check-abi: exported symbols differ from $list:"
  diff <(echo "$want") <(echo "$have") | sed -n 's/^< /  missing: /p; s/^> /  extra:   /p'
  status=1
fi
# Every process maps the writable segment (data, bss) at start: a third page is one more fault and, past the
# file, one more anonymous mapping in every program the library is preloaded into (docs/figures.md).
rw_pages=0
while read -r vaddr memsz; do
  rw_pages=$(( (vaddr + memsz + 4095) / 4096 - vaddr / 4096 ))
done < <(readelf -lW "$lib" | awk '$1 == "LOAD" && $7 ~ /W/ { print $3, $6 }')
if [ "${rw_pages:-0}" -gt 2 ]; then
  echo "check-abi: the writable segment spans $rw_pages pages; keep it to 2 (large buffers belong on the stack or in a mapping made when needed)"
  status=1
fi
imports=$(nm -D --undefined-only "$lib" | wc -l)
[ $status -eq 0 ] &&
  echo "check-abi: $lib needs nothing, imports $imports weak C library symbols and exports $(echo "$have" | wc -l) wrapped functions, writable data in $rw_pages pages"
exit $status
