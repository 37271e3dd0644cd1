#!/usr/bin/env bash
# The spring-http example, end to end: start the stand-in for the Spring API,
# run every case, compare with the committed baseline, exit with digline's
# code (0 nothing got worse, 1 something got worse, 2 could not be judged).
#
#   ./examples/spring-http/gate.sh
#
# See examples/spring-http/README.md for the change that makes it exit 1. The
# gate's files (report.html, junit.xml, …) land in target/digline-gate/spring-http/.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

# shellcheck source=../lib/start.sh
. "$repo/examples/lib/start.sh"
build --bin digline --example spring-stub
# The token the stand-in accepts and digline sends (Authorization: Bearer …).
export ASSISTANT_TOKEN="${ASSISTANT_TOKEN:-local-dev-token}"
start spring-stub --answers "$here/answers.json" --port 8732

"$digline" gate --suite "$here/suite.toml" --root "$here" --publish none \
  --out "$repo/target/digline-gate/spring-http"
