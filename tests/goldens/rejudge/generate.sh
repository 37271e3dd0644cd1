#!/usr/bin/env bash
# Regenerate the rejudge goldens with digline 0.10.0 (the oracle). Not run by
# CI: its outputs are committed. Needs root and ../../../../shared/oracle set up.
#
# Per folder: run suite.toml (record_responses = true) against this crate's
# loopback stub on port 18956 answering answers.json, keep that run as
# source.json; stop the stub (a re-judge never calls the target); then
# re-judge it with rejudge-suite.toml (the changed rules, and the changed
# cases it names) and the flags in rejudge-args.txt, keeping the new run as
# rejudged.json with its key, stderr and exit status.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
oracle="${ORACLE:-$(cd "$here/../../../.." && pwd)/shared/oracle/oracle-digline}"
port=18956
(cd "$repo" && cargo build --quiet --example quickstart-stub)
stub="$repo/target/debug/examples/quickstart-stub"
for dir in "$here"/[0-9]*/; do
  name="$(basename "$dir")"
  work="$(mktemp -d /tmp/rejudge-XXXX)"
  cp "$dir"/*.toml "$dir"/*.json "$work/"
  "$stub" --answers "$work/answers.json" --port "$port" >/dev/null & pid=$!
  sleep 0.5
  ( cd "$work"
    "$oracle" --v 0.10 run --suite suite.toml >"$dir/source.key" 2>"$dir/source.stderr" )
  kill $pid; wait $pid 2>/dev/null || true
  ( cd "$work"
    cp .digline/*/runs/*/"$(cat "$dir/source.key")".json "$dir/source.json"
    # The oracle takes its suite from suite.toml: swap in the changed one.
    cp rejudge-suite.toml suite.toml
    set +e
    # shellcheck disable=SC2046
    "$oracle" --v 0.10 rejudge --suite suite.toml --run "$(cat "$dir/source.key")" $(cat "$dir/rejudge-args.txt") \
      >"$dir/rejudged.key" 2>"$dir/rejudge.stderr"; echo $? >"$dir/rejudge.exit"
    set -e
    cp .digline/*/runs/*/"$(cat "$dir/rejudged.key")".json "$dir/rejudged.json" )
  rm -rf "$work"
  echo "$name: rejudge exit $(cat "$dir/rejudge.exit")"
done
