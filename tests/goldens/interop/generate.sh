#!/usr/bin/env bash
# Interop goldens between this binary and digline 0.10.0 (the oracle).
#   cargo build --bin digline --example quickstart-stub && tests/goldens/interop/generate.sh
# Needs root and a built oracle (../../../../shared/oracle/setup-oracle.sh).
#
# ours-read-by-0.10/: a store written by OUR binary (the quickstart slice:
#   a baseline run, promote, a second run with one answer made worse), then
#   what 0.10.0 prints for list / compare / diff / promote on it
#   (<name>.stdout, <name>.stderr, <name>.exit; <name>.args is the command).
#   tests/cli/interop.rs runs ours on the same store and expects the same
#   stdout and exit code.
# diff-0.10/<scenario>/: each headlines/ scenario's two 0.10.0 runs in one
#   store, and what 0.10.0's `diff` prints for them (text and --json full).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$HERE/../../.." && pwd -P)
ORACLE=${ORACLE:-$REPO/../shared/oracle/oracle-digline}
[ -x "$ORACLE" ] || ORACLE=/work/shared/oracle/oracle-digline
OURS=$REPO/target/debug/digline
STUB=$REPO/target/debug/examples/quickstart-stub
PORT=${INTEROP_PORT:-18977}
W=$(mktemp -d)
STUB_PID=""
cleanup() { [ -n "$STUB_PID" ] && kill "$STUB_PID" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

record() { # dir name args...
  local dir=$1 name=$2; shift 2
  echo "$*" >"$dir/$name.args"
  set +e
  (cd "$W/s" && "$ORACLE" --v 0.10 "$@" >"$dir/$name.stdout" 2>"$dir/$name.stderr")
  echo $? >"$dir/$name.exit"
  set -e
}

# --- ours read by 0.10.0 -------------------------------------------------
OUT=$HERE/ours-read-by-0.10
rm -rf "$OUT"; mkdir -p "$OUT"
SLICE=$REPO/tests/goldens/slice/01-quickstart
mkdir -p "$W/s"
cp "$SLICE/suite.toml" "$SLICE/cases.json" "$W/s/"
sed -i "s/127.0.0.1:18951/127.0.0.1:$PORT/" "$W/s/suite.toml"
cp "$SLICE/baseline-answers.json" "$W/answers.json"
"$STUB" --answers "$W/answers.json" --port "$PORT" >/dev/null 2>&1 &
STUB_PID=$!
sleep 1
(cd "$W/s" && "$OURS" run --suite suite.toml >/dev/null 2>&1)
(cd "$W/s" && "$OURS" promote --suite suite.toml --run latest >/dev/null 2>&1)
cp "$SLICE/run-answers.json" "$W/answers.json"
(cd "$W/s" && "$OURS" run --suite suite.toml >/dev/null 2>&1)
kill "$STUB_PID"; STUB_PID=""
cp "$W/s/suite.toml" "$W/s/cases.json" "$OUT/"
cp -r "$W/s/.digline" "$OUT/store"
K1=$(ls "$W/s/.digline/quickstart/runs/support" | sort | head -1 | sed 's/\.json$//')
K2=$(ls "$W/s/.digline/quickstart/runs/support" | sort | tail -1 | sed 's/\.json$//')
record "$OUT" 1-list list --suite suite.toml
record "$OUT" 2-compare compare --suite suite.toml --run "$K2"
record "$OUT" 3-compare-json compare --suite suite.toml --run "$K2" --json full
record "$OUT" 4-diff diff --suite suite.toml "$K1" "$K2"
record "$OUT" 5-diff-json diff --suite suite.toml "$K1" "$K2" --json full
record "$OUT" 6-promote-errored-free promote --suite suite.toml --run "$K1"
record "$OUT" 7-compare-after-promote compare --suite suite.toml --run "$K1"
record "$OUT" 8-list-after-promote list --suite suite.toml
chmod -R u+rwX,go+rX "$OUT"

# --- 0.10.0's runs diffed ------------------------------------------------
DIFFS=$HERE/diff-0.10
rm -rf "$DIFFS"; mkdir -p "$DIFFS"
for sc in "$REPO"/tests/goldens/headlines/*/; do
  name=$(basename "$sc")
  [ -f "$sc/keys.json" ] || continue
  rm -rf "$W/s"; mkdir -p "$W/s"
  suite=$sc/run-suite.toml; [ -f "$suite" ] || suite=$sc/baseline-suite.toml
  cp "$suite" "$W/s/suite.toml"
  cases=$sc/run-cases.json; [ -f "$cases" ] || cases=$sc/baseline-cases.json
  cp "$cases" "$W/s/cases.json"
  tenant=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['tenant'])" "$sc/run.json")
  suitename=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['suite'])" "$sc/run.json")
  bk=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['baseline_run_key'])" "$sc/keys.json")
  rk=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['run_key'])" "$sc/keys.json")
  mkdir -p "$W/s/.digline/$tenant/runs/$suitename"
  cp "$sc/baseline-run.json" "$W/s/.digline/$tenant/runs/$suitename/$bk.json"
  cp "$sc/run.json" "$W/s/.digline/$tenant/runs/$suitename/$rk.json"
  D=$DIFFS/$name; mkdir -p "$D"
  echo "$bk $rk" >"$D/keys"
  record "$D" diff diff --suite suite.toml "$bk" "$rk"
  record "$D" diff-json diff --suite suite.toml "$bk" "$rk" --json full
  record "$D" diff-swapped diff --suite suite.toml "$rk" "$bk" --json counts
done
