#!/usr/bin/env bash
# The sampled-canary example, end to end: start the stub assistant,
# run every case, compare with the committed baseline, exit with digline's
# code (0 nothing got worse, 1 something got worse, 2 could not be judged).
#
#   ./examples/sampled-canary/gate.sh
#
# See examples/sampled-canary/README.md for the change that makes it exit 1. The
# gate's files (report.html, junit.xml, …) land in target/digline-gate/sampled-canary/.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

# shellcheck source=../lib/start.sh
. "$repo/examples/lib/start.sh"
build --bin digline --example quickstart-stub
start quickstart-stub --answers "$here/answers.json" --port 8736

"$digline" gate --suite "$here/suite.toml" --root "$here" --publish none \
  --out "$repo/target/digline-gate/sampled-canary"
