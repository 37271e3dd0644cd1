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

# shellcheck source=../lib/start.sh
. "$repo/examples/lib/start.sh"
build --bin digline --example quickstart-stub
start quickstart-stub --answers "$here/answers.json" --port 8731

"$digline" gate --suite "$here/suite.toml" --root "$here" \
  --out "$repo/target/quickstart-gate" --publish none
