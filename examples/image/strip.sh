#!/usr/bin/env bash
# strip.sh IN OUT: strip a static binary of either architecture. GNU strip
# reads only the host's; zig's objcopy (PyPI ziglang) reads both.
set -euo pipefail
in="$1" out="$2"
if strip -o "$out" "$in" 2>/dev/null; then exit 0; fi
if command -v python3 >/dev/null && python3 -m ziglang objcopy --strip-all "$in" "$out" 2>/dev/null; then exit 0; fi
echo "strip.sh: cannot strip $in (install binutils, or pip install ziglang)" >&2
exit 69
