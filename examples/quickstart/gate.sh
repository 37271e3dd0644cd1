#!/usr/bin/env bash
# The quickstart, end to end: start the local stub, then `digline gate` —
# ask it every case, compare the run with the committed baseline, write the
# CI files (outcome.json, comment.md, summary.md, junit.xml, report.html)
# into target/quickstart-gate/, and exit with digline's code.
#
#   ./examples/quickstart/gate.sh        # 0 = nothing got worse
#
# Edit examples/quickstart/answers.json (the stub re-reads it) and run
# again to watch the gate say what got worse (exit 1).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

cargo build --quiet --release --bin digline --example quickstart-stub || exit 70
target="${CARGO_TARGET_DIR:-$repo/target}"
digline="$target/release/digline"
stub="$target/release/examples/quickstart-stub"

log="$(mktemp)"
"$stub" --answers "$here/answers.json" --port 8731 >"$log" 2>&1 &
stub_pid=$!
trap 'kill "$stub_pid" 2>/dev/null; wait "$stub_pid" 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  grep -q "listening" "$log" && break
  kill -0 "$stub_pid" 2>/dev/null || { cat "$log" >&2; exit 70; }
  sleep 0.05
done

"$digline" gate --suite "$here/suite.toml" --root "$here" \
  --out "$repo/target/quickstart-gate" --publish none
