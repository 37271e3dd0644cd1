#!/usr/bin/env bash
# Regenerate the sampled goldens with digline 0.10.0 (the oracle). Not run by
# CI: its outputs are committed. Needs root and ../../../../shared/oracle set up.
#
# Same flow as ../slice/generate.sh (baseline run, promote, second run,
# compare text and --json full), with this crate's own loopback stub
# (examples/quickstart, byte-compatible with the goldens' stub, `answers`
# lists included) on port 18952.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
oracle="${ORACLE:-$(cd "$here/../../../.." && pwd)/shared/oracle/oracle-digline}"
port=18952
(cd "$repo" && cargo build --quiet --example quickstart-stub)
stub="$repo/target/debug/examples/quickstart-stub"
for dir in "$here"/[0-9]*/; do
  name="$(basename "$dir")"
  work="$(mktemp -d /tmp/sampled-XXXX)"
  cp "$dir/suite.toml" "$dir/cases.json" "$work/"
  cp "$dir/baseline-answers.json" "$work/answers.json"
  "$stub" --answers "$work/answers.json" --port "$port" >/dev/null & pid=$!
  sleep 0.5
  ( cd "$work"
    "$oracle" --v 0.10 run --suite suite.toml 2>"$dir/baseline-run.stderr" >/dev/null
    cp .digline/*/runs/*/*.json "$dir/baseline-run.json"
    set +e
    "$oracle" --v 0.10 promote --suite suite.toml --run latest >/dev/null 2>"$dir/promote.stderr"; echo $? >"$dir/promote.exit"
    set -e
    if [ "$(cat "$dir/promote.exit")" != 0 ]; then
      # 0.10.0 refuses to promote a run with an errored case: promote by hand,
      # as the headline goldens do (sorted keys, indent 2, raw UTF-8).
      mkdir -p .digline/gold/baselines
      python3 - "$dir/baseline-run.json" ".digline/gold/baselines/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suite"])' "$dir/baseline-run.json").json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
doc["promoted_at"] = doc["created_at"]
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n")
PY
    fi
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
  echo "$name: promote exit $(cat "$dir/promote.exit"), compare exit $(cat "$dir/compare.exit")"
done
