#!/usr/bin/env bash
# The history's cost (docs/performance.md, "The base branch's history"):
# a gate of a stored 10,000-case run reading 1,000 history lines, against
# the same gate with --history off. Prints wall seconds and peak RSS (KB)
# of each, REPEAT times. DIGLINE: the binary (default target/release/digline).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
digline="${DIGLINE:-$here/../../target/release/digline}"
cases="${CASES:-10000}" gates="${GATES:-1000}" repeat="${REPEAT:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/gen.py" "$work" --cases "$cases" --gates "$gates"
cd "$work"
echo "history file: $(wc -c < .digline/bench/history/hist.jsonl) bytes, $gates lines, $cases cases"
for mode in off read; do
  for _ in $(seq "$repeat"); do
    /usr/bin/time -f "$mode wall=%e s cpu=%U+%S s rss=%M KB" "$digline" gate --suite suite.toml --run latest \
      --publish none --out "out-$mode" --history "$mode" -q > /dev/null || true
  done
done
