#!/usr/bin/env bash
# The rag example, end to end: start the stub assistant and the mock judge,
# run every case, compare with the committed baseline, exit with digline's
# code (0 nothing got worse, 1 something got worse, 2 could not be judged).
#
#   ./examples/rag/gate.sh
#
# See examples/rag/README.md for the change that makes it exit 1. The
# gate's files (report.html, junit.xml, …) land in target/digline-gate/rag/.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

# shellcheck source=../lib/start.sh
. "$repo/examples/lib/start.sh"
build --bin digline --example quickstart-stub --example rag-mock-judge
# The judge: the local mock instead of api.anthropic.com (no key needed).
start rag-mock-judge --port 8734
export ANTHROPIC_BASE_URL="http://127.0.0.1:8734"
start quickstart-stub --answers "$here/answers.json" --port 8735

"$digline" gate --suite "$here/suite.toml" --root "$here" --publish none \
  --out "$repo/target/digline-gate/rag"
