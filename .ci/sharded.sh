#!/usr/bin/env bash
# The sharded pipeline on one machine (docs/shards.md): N shard processes
# at once against one loopback stub, one merge, one gate — and the exit
# codes a CI pipeline relies on:
#   merge + gate of the N shards            0, and the merged run is the
#                                             unsharded run byte for byte
#                                             (its created_at aside)
#   one case regressed in one shard          gate exits 1 and names it
#   one shard missing                        gate exits 64 (never green)
# Bounded: every digline call under `timeout`.
#   .ci/sharded.sh [N] [CASES]     # default 4 shards, 400 cases
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
shards="${1:-4}"
cases="${2:-400}"
cd "$repo"
# shellcheck source=../examples/lib/start.sh
. "$repo/examples/lib/start.sh"
# The same build as the examples (the dev profile unless DIGLINE_PROFILE
# names another): `$digline` and the stub come from it.
[ -n "${NO_BUILD:-}" ] || build --locked --bin digline --example quickstart-stub
work="$(mktemp -d)"
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work" "${logs[@]}"' EXIT
fail() { echo "sharded: FAIL: $*" >&2; exit 1; }
d() { timeout 120 "$digline" "$@"; }

# A quickstart-shaped suite of $cases cases; one answer for all of them.
port=$((20000 + RANDOM % 20000))
{
  echo '['
  for i in $(seq 1 "$cases"); do
    sep=','; [ "$i" = "$cases" ] && sep=''
    printf '  {"id": "case-%04d", "vars": {"question": "question %d"}}%s\n' "$i" "$i" "$sep"
  done
  echo ']'
} >"$work/cases.json"
echo '{"*": "Order 4821 ships Thursday. — Northwind Support"}' >"$work/answers.json"
sed -e "s/127.0.0.1:8731/127.0.0.1:$port/" examples/quickstart/suite.toml >"$work/suite.toml"
start quickstart-stub --answers "$work/answers.json" --port "$port"
cd "$work"

# The reference: one run over every case, promoted.
whole="$(d run --suite suite.toml -q)"
d promote --suite suite.toml --run "$whole" >/dev/null 2>&1
runs=.digline/quickstart/runs/support

# N shard jobs at once; each keeps its run in its own artifact directory.
run_shards() {
  local dir="$1" k pid status=0
  local -a jobs=()
  for k in $(seq 1 "$shards"); do
    ( key="$(d run --suite suite.toml --shard "$k/$shards" -q)" &&
      mkdir -p "$dir/shard-$k" && cp "$runs/$key.json" "$dir/shard-$k/" ) &
    jobs+=($!)
  done
  for pid in "${jobs[@]}"; do wait "$pid" || status=$?; done
  [ "$status" = 0 ] || fail "a shard process exited $status"
}
run_shards artifacts
merged="$(d merge --suite suite.toml --shards artifacts/ -q)" || fail "merge exited $?"
diff <(grep -v '^  "created_at": ' "$runs/$merged.json") \
     <(grep -v '^  "created_at": ' "$runs/$whole.json") >/dev/null ||
  fail "the merged run differs from the unsharded run"
code=0
d gate --suite suite.toml --shards artifacts/ --publish none --out out >/dev/null 2>&1 || code=$?
[ "$code" = 0 ] || fail "gate --shards of $shards unchanged shards exited $code, not 0"
echo "sharded: $shards shards of $cases cases merged byte for byte; gate 0"

# One case regresses: its shard carries it, and the gate says so.
echo '{"*": "Order 4821 ships Thursday. — Northwind Support", "case-0007": "Order 4821 ships Thursday."}' >answers.json
run_shards regressed
code=0
d gate --suite suite.toml --shards regressed/ --publish none --out out >gate.txt 2>&1 || code=$?
[ "$code" = 1 ] || { cat gate.txt >&2; fail "a regression in one shard: gate exited $code, not 1"; }
grep -q 'case-0007' gate.txt || fail "the gate did not name case-0007"
echo "sharded: a regression in one shard; gate 1 naming case-0007"

# A shard job failed: its run never arrives.
holder="$(grep -l '"case_id": "case-0007"' regressed/shard-*/*.json)"
rm -r "$(dirname "$holder")"
rm -rf out
code=0
d gate --suite suite.toml --shards regressed/ --publish none --out out >gate.txt 2>&1 || code=$?
[ "$code" = 64 ] || { cat gate.txt >&2; fail "a missing shard: gate exited $code, not 64"; }
grep -q 'shard(s) missing' gate.txt || { cat gate.txt >&2; fail "the refusal did not name the missing shard"; }
[ ! -e out/outcome.json ] || fail "a refused merge wrote an outcome"
echo "sharded: a missing shard; gate 64"
echo "sharded: ok"
