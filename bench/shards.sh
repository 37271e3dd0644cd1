#!/usr/bin/env bash
# The shard rows of docs/performance.md (docs/shards.md):
#   1. overhead: 10 shard runs of 1,000 cases + merge, against 1 run of
#      10,000 cases, 0 ms stub — total CPU, and the merged run byte for byte
#      the unsharded one (created_at aside);
#   2. merge + gate of CASES (default 100,000) cases from 10 shards: the
#      shard runs and the baseline are written by gen_shards.py from a real
#      10-case run (every case's verdicts copied from its first case), so the
#      stub is not asked 100,000 times; then `digline gate --shards` under
#      /usr/bin/time (wall, CPU, peak RSS).
#   bench/shards.sh [CASES]         # writes bench/results/shards.md
#   ROWS=gate bench/shards.sh 1000000   # the merge + gate row alone
#                                       # (writes bench/results/shards-CASES.md)
#   ROWS=overhead REPEAT=5 bench/shards.sh  # the overhead row alone, 5 times:
#                                       # the medians of user+sys CPU
#                                       # (writes bench/results/shards-overhead.md)
#   NO_BUILD=1 skips the build; CARGO_TARGET_DIR picks the binaries.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cases="${1:-100000}"
cd "$repo"
[ -n "${NO_BUILD:-}" ] || cargo build --quiet --release --locked --bin digline --example quickstart-stub
# The release binaries, whatever the examples' default profile is.
export DIGLINE_PROFILE=release
# shellcheck source=../examples/lib/start.sh
. "$repo/examples/lib/start.sh"
work="$(mktemp -d)"
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$work" "${logs[@]}"' EXIT
port=$((20000 + RANDOM % 20000))
python3 bench/gen.py answers "$work/answers.json" --latency 0 --size 120
start quickstart-stub --answers "$work/answers.json" --port "$port"
out="$repo/bench/results/shards.md"
# timed OUT CMD...: CMD's stdout into OUT; prints "wall user sys peak_kb".
timed() { local out="$1"; shift; /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$out"; cat "$work/time"; }

rows="${ROWS:-all}"
if [ "$rows" = gate ]; then out="$repo/bench/results/shards-$cases.md"; fi

# 1. Overhead: 10 x 1,000 against 1 x 10,000, REPEAT times (medians: the
# machine is shared, one measurement is noise).
repeat="${REPEAT:-1}"
if [ "$rows" = overhead ]; then out="$repo/bench/results/shards-overhead.md"; fi
median() { python3 -c "import statistics,sys; print(round(statistics.median(float(x) for x in sys.argv[1:]), 2))" "$@"; }
if [ "$rows" != gate ]; then
python3 bench/gen.py suite "$work/o" --cases 10000 --port "$port"
cd "$work/o"
ones=(); totals=(); ratios=(); walls=(); wms=(); same=yes
for rep in $(seq 1 "$repeat"); do
rm -rf .digline shards
read -r w1 u1 s1 m1 < <(timed whole.key "$digline" run --suite suite.toml -q --concurrency 32)
whole="$(cat whole.key)"
total_cpu=0; total_wall=0
for k in $(seq 1 10); do
  read -r w u s m < <(timed "shard-$k.key" "$digline" run --suite suite.toml -q --concurrency 32 --shard "$k/10")
  mkdir -p "shards/$k"; cp ".digline/bench/runs/bench10000/$(cat "shard-$k.key").json" "shards/$k/"
  total_cpu=$(python3 -c "print($total_cpu + $u + $s)"); total_wall=$(python3 -c "print(round($total_wall + $w, 2))")
done
read -r wm um sm mm < <(timed merged.key "$digline" merge --suite suite.toml --shards shards/ -q)
total_cpu=$(python3 -c "print(round($total_cpu + $um + $sm, 2))")
runs=.digline/bench/runs/bench10000
if ! diff <(grep -v '^  "created_at": ' "$runs/$(cat merged.key).json") <(grep -v '^  "created_at": ' "$runs/$whole.json") >/dev/null; then same=NO; fi
one_cpu=$(python3 -c "print(round($u1 + $s1, 2))")
ones+=("$one_cpu"); totals+=("$total_cpu"); walls+=("$total_wall"); wms+=("$wm")
ratios+=("$(python3 -c "print(round($total_cpu / $one_cpu, 2))")")
done
one_cpu=$(median "${ones[@]}"); total_cpu=$(median "${totals[@]}"); total_wall=$(median "${walls[@]}"); wm=$(median "${wms[@]}")
ratio=$(median "${ratios[@]}")
cd "$repo"
fi

# 2. Merge + gate of $cases cases from 10 shards.
if [ "$rows" != overhead ]; then
python3 bench/gen.py suite "$work/t" --cases 10 --port "$port"
sed -i 's/name = "bench10"/name = "bench"/' "$work/t/suite.toml"
(cd "$work/t" && "$digline" run --suite suite.toml -q >key)
mkdir -p "$work/big"
cp "$work/t/suite.toml" "$work/big/"
python3 bench/gen_shards.py build "$work/big" --template "$work/t/.digline/bench/runs/bench/$(cat "$work/t/key").json" --cases "$cases" --shards 10 >/dev/null
cd "$work/big"
read -r wg ug sg mg < <(timed gate.txt "$digline" gate --suite suite.toml --shards shards/ --publish none --out out -q)
junit=$(du -m out/junit.xml | cut -f1); report=$(du -m out/report.html 2>/dev/null | cut -f1 || echo -)
per_case=$(python3 -c "print(round($mg * 1024 / $cases))")
cd "$repo"
fi

{
  echo "# Shards (bench/shards.sh $cases, $(date -u +%Y-%m-%d))"
  echo
  echo "Machine: $(nproc) cores; load average at the end $(cut -d' ' -f1 /proc/loadavg)."
  echo
  echo "| measure | wall | CPU user+sys | peak RSS | note |"
  echo "|---|---|---|---|---|"
  if [ "$rows" != gate ]; then
  echo "| 1 run × 10,000 cases, 0 ms stub | ${w1} s | ${one_cpu} s | $((m1 / 1024)) MB | |"
  echo "| 10 shard runs × 1,000 cases + merge | ${total_wall} s (one after another) + ${wm} s | ${total_cpu} s (${ratio}× the single run) | $((mm / 1024)) MB (merge) | merged run byte-identical: ${same} |"
  if [ "$repeat" -gt 1 ]; then
  echo
  echo "Medians of $repeat repetitions. Single run CPU: ${ones[*]} s; shards + merge CPU: ${totals[*]} s; ratios: ${ratios[*]}."
  fi
  fi
  if [ "$rows" != overhead ]; then
  echo "| merge + gate, $cases cases from 10 shards | ${wg} s | $(python3 -c "print(round($ug + $sg, 2))") s | $((mg / 1024)) MB | ${per_case} bytes of peak per case; JUnit ${junit} MB, report ${report} MB |"
  fi
} >"$out"
cat "$out"
