#!/usr/bin/env bash
# Regenerate the slice goldens with digline 0.10.0 (the oracle). Not run by
# CI: its outputs are committed. Needs root and ../../../../shared/oracle set up.
#
# For each scenario: run the baseline answers, promote, run the run answers
# (with run-cases.json if present), compare (text and --json full).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
oracle="$(cd "$here/../../../.." && pwd)/shared/oracle/oracle-digline"
stub="${GSTUB:-/tmp/gstub.py}"
port=18951
for dir in "$here"/[0-9]*/; do
  name="$(basename "$dir")"
  work="$(mktemp -d /tmp/slice-XXXX)"
  cp "$dir/suite.toml" "$dir/cases.json" "$work/"
  cp "$dir/baseline-answers.json" "$work/answers.json"
  python3 "$stub" "$port" "$work/answers.json" & pid=$!
  sleep 0.5
  ( cd "$work"
    "$oracle" --v 0.10 run --suite suite.toml 2>"$dir/baseline-run.stderr" >/dev/null
    "$oracle" --v 0.10 promote --suite suite.toml --run latest >/dev/null
    cp .digline/*/runs/*/*.json "$dir/baseline-run.json"
    cp .digline/*/baselines/*.json "$dir/baseline.json"
    cp "$dir/run-answers.json" answers.json
    [ -f "$dir/run-cases.json" ] && cp "$dir/run-cases.json" cases.json
    sleep 0.01
    "$oracle" --v 0.10 run --suite suite.toml 2>"$dir/run.stderr" >"$dir/run.key"
    cp ".digline/$(ls .digline | grep -v '^\.')"/runs/*/"$(cat "$dir/run.key")".json "$dir/run.json"
    set +e
    "$oracle" --v 0.10 compare --suite suite.toml --run latest >"$dir/compare.stdout" 2>"$dir/compare.stderr"; echo $? >"$dir/compare.exit"
    "$oracle" --v 0.10 compare --suite suite.toml --run latest --json full >"$dir/compare-json-full.stdout" 2>/dev/null; echo $? >"$dir/compare-json-full.exit"
    set -e )
  kill $pid; wait $pid 2>/dev/null || true
  rm -rf "$work"
  echo "$name: compare exit $(cat "$dir/compare.exit")"
done
