#!/usr/bin/env bash
# Formats the C and C++ sources of the checkout with .clang-format, in place. `--check` changes nothing: it
# lists the files that differ from their formatted form and exits 1 when there is any.
set -euo pipefail
cd "$(dirname "$0")/.."
FORMAT=${CLANG_FORMAT:-clang-format}
command -v "$FORMAT" >/dev/null || { echo "format: $FORMAT not found (scripts/install-deps.sh)"; exit 2; }
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' 2>/dev/null || find config core cli shim tests bench packaging \
  -name '*.cc' -o -name '*.h' -o -name '*.c')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! "$FORMAT" --style=file "$f" | cmp -s - "$f"; then echo "format: $f differs from .clang-format"; bad=$((bad + 1)); fi
  done
  if [ "$bad" -gt 0 ]; then echo "format: $bad of ${#files[@]} files differ (scripts/format.sh fixes them)"; exit 1; fi
  echo "format: ${#files[@]} files formatted"
  exit 0
fi
"$FORMAT" --style=file -i "${files[@]}"
echo "format: formatted ${#files[@]} files"
