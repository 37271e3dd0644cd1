#!/usr/bin/env bash
# strip.sh IN OUT: strip a static binary of either architecture. The host's
# GNU strip reads only its own architecture; for the other one,
# aarch64-linux-gnu-strip (Debian's binutils-aarch64-linux-gnu) or
# llvm-strip (Debian's llvm) reads it.
set -euo pipefail
in="$1" out="$2"
for tool in strip aarch64-linux-gnu-strip x86_64-linux-gnu-strip llvm-strip; do
  command -v "$tool" >/dev/null || continue
  if "$tool" -o "$out" "$in" 2>/dev/null; then exit 0; fi
done
echo "strip.sh: cannot strip $in (apt-get install binutils-aarch64-linux-gnu, or llvm)" >&2
exit 69
