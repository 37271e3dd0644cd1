#!/usr/bin/env bash
# A shared provider quota: a loopback provider enforcing RPM requests a
# minute with OpenAI's real headers (mock_provider.py), and SHARDS digline
# processes sharing it, each running its part of the cases with its share
# of the quota (`--rate RPM/SHARDS`, what `--shard K/N` computes with
# run::quota::Quota::share). Prints the mock's summary (summary.py) and
# each shard's errored cases.
#
#   bench/quota/run.sh        # 600 requests/min, 4 shards × 300 cases (≈2 min)
#
# Knobs: RPM (600), SHARDS (4), CASES (per shard, 300), PACED (1; 0 runs
# the shards without --rate, for comparison), PORT (8795),
# WORK (/tmp/digline-quota), DL (the binary; default target/release/digline
# if built, else target/debug/digline — the run is paced by the quota, not
# by digline's CPU).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
RPM="${RPM:-600}"
SHARDS="${SHARDS:-4}"
CASES="${CASES:-300}"
PORT="${PORT:-8795}"
PACED="${PACED:-1}"
WORK="${WORK:-/tmp/digline-quota}"
if [ -z "${DL:-}" ]; then
  DL="$repo/target/release/digline"
  [ -x "$DL" ] || DL="$repo/target/debug/digline"
fi
[ -x "$DL" ] || { echo "bench/quota: build digline first (cargo build)" >&2; exit 64; }
rm -rf "$WORK" && mkdir -p "$WORK"
python3 "$here/mock_provider.py" "$PORT" "$RPM" "$WORK/requests.log" &
mock=$!
trap 'kill "$mock" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null && break
  sleep 0.1
done
share=$(python3 -c "print($RPM / $SHARDS)")
rate=(--rate "$share")
[ "$PACED" = 1 ] || rate=()
pids=()
for k in $(seq 1 "$SHARDS"); do
  d="$WORK/shard$k"
  mkdir -p "$d"
  printf 'Say hello to {name}.\n' > "$d/prompt.txt"
  python3 - "$d/cases.json" "$k" "$CASES" <<'PY'
import json, sys
path, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
json.dump([{"id": f"s{k}-c{i:04d}", "vars": {"name": f"n{i}"}} for i in range(n)], open(path, "w"))
PY
  cat > "$d/suite.toml" <<TOML
[suite]
tenant = "bench"
environment = "local"
name = "quota"
cases = "cases.json"

[target]
type = "provider"
provider = "openai/gpt-4o-mini"
base_url = "http://127.0.0.1:$PORT/v1"
prompt_file = "prompt.txt"
max_tokens = 16

[[assertions]]
type = "contains"
needle = "Hello"
TOML
  (cd "$d" && OPENAI_API_KEY=sk-bench "$DL" -q run --suite suite.toml "${rate[@]}" > key.txt 2> err.txt; echo $? > code.txt) &
  pids+=($!)
done
start=$(date +%s.%N)
for p in "${pids[@]}"; do wait "$p"; done
end=$(date +%s.%N)
python3 "$here/summary.py" "$WORK/requests.log" "$RPM"
python3 -c "print(f'wall_seconds\t{$end - $start:.1f}')"
errored=0
for k in $(seq 1 "$SHARDS"); do
  d="$WORK/shard$k"
  [ "$(cat "$d/code.txt")" = 0 ] || { echo "shard $k exited $(cat "$d/code.txt"): $(cat "$d/err.txt")" >&2; exit 1; }
  n=$(python3 - "$d" "$(cat "$d/key.txt")" <<'PY'
import json, sys, glob
d, key = sys.argv[1], sys.argv[2]
doc = json.load(open(glob.glob(f"{d}/.digline/bench/runs/quota/{key}.json")[0]))
print(sum(1 for r in doc["results"] if any(v["status"] == "error" for v in r["verdicts"])))
PY
)
  errored=$((errored + n))
done
printf 'errored_cases\t%s\n' "$errored"
