#!/usr/bin/env bash
# The benchmark harness: one command, see bench/README.md.
#
#   bench/run.sh            # the full table (≈7 min on 2 cores)
#   QUICK=1 bench/run.sh    # a smoke pass: one repetition, small sizes
#
# Builds the release binary and the loopback stub, generates the suites,
# starts the stub, measures every row (wall, user+sys CPU, peak RSS) for
# digline, the Python digline 0.10.0 (../shared/oracle, needs root) and
# promptfoo (npm, in $PF_DIR), and writes bench/results/latest.{tsv,md}.
# Knobs (environment): REPS (digline, default 3), SLOW_REPS (Python and
# promptfoo, default 1), LATENCY_MS (default 100), SIZE (answer characters,
# default 120), PORT (default 8791), WORK (scratch, default /tmp/digline-bench),
# PF_DIR (where promptfoo is installed, default /tmp/pf; empty = skip),
# ORACLE (the oracle-digline script; empty = skip).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
REPS="${REPS:-3}"
SLOW_REPS="${SLOW_REPS:-1}"
LATENCY_MS="${LATENCY_MS:-100}"
SIZE="${SIZE:-120}"
PORT="${PORT:-8791}"
WORK="${WORK:-/tmp/digline-bench}"
PF_DIR="${PF_DIR-/tmp/pf}"
ORACLE="${ORACLE-$(cd "$repo/.." && pwd)/shared/oracle/oracle-digline}"
QUICK="${QUICK:-}"
if [ -n "$QUICK" ]; then REPS=1; SLOW_REPS=1; fi
[ -x "$ORACLE" ] && [ "$(id -u)" = 0 ] || ORACLE=""
PF="${PF_DIR:+$PF_DIR/node_modules/.bin/promptfoo}"
[ -n "$PF" ] && [ -x "$PF" ] || PF=""
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CACHE_ENABLED=false \
  PROMPTFOO_DISABLE_SHARING=1 PROMPTFOO_SELF_HOSTED=1 PROMPTFOO_CONFIG_DIR="$WORK/pf-home" \
  NO_COLOR=1

echo "bench: building (release)…" >&2
(cd "$repo" && cargo build --release --quiet --bin digline --example quickstart-stub)
DL="$repo/target/release/digline"
STUB="$repo/target/release/examples/quickstart-stub"
rm -rf "$WORK" && mkdir -p "$WORK"
# The static binary (what the image ships), when the musl target is installed:
# stripped as the Dockerfile does, sized, and measured on the heavy rows.
STATIC=""
if rustup target list --installed 2>/dev/null | grep -q x86_64-unknown-linux-musl; then
  echo "bench: building the static binary (musl)…" >&2
  # ring's C code wants musl-gcc where it is installed (as in the Dockerfile).
  if command -v musl-gcc >/dev/null; then export CC_x86_64_unknown_linux_musl=musl-gcc; fi
  (cd "$repo" && cargo build --release --quiet --locked --target x86_64-unknown-linux-musl --bin digline) \
    && strip -o "$WORK/digline-static" "$repo/target/x86_64-unknown-linux-musl/release/digline" \
    && STATIC="$WORK/digline-static"
fi
mkdir -p "$here/results"
RAW="$here/results/latest.tsv"
printf 'row\ttool\trep\twall_s\tcpu_s\tpeak_kb\texit\tlimit_s\n' >"$RAW"

python3 "$here/gen.py" answers "$WORK/answers.json" --latency "$LATENCY_MS" --size "$SIZE"
"$STUB" --answers "$WORK/answers.json" --port "$PORT" >"$WORK/stub.log" 2>&1 &
stub_pid=$!
trap 'kill $stub_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$WORK/stub.log" && break; sleep 0.1; done
latency() { python3 "$here/gen.py" answers "$WORK/answers.json" --latency "$1" --size "$SIZE"; }

# measure ROW TOOL REPS LIMIT DIR CMD... : wall, CPU (user+sys), peak RSS per rep.
measure() {
  local row="$1" tool="$2" reps="$3" limit="$4" dir="$5"; shift 5
  local i
  for i in $(seq "$reps"); do
    local rc=0
    (cd "$dir" && /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$@" >"$WORK/last.out" 2>"$WORK/last.err") || rc=$?
    read -r wall user sys kb < <(tail -1 "$WORK/time.txt")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$tool" "$i" "$wall" \
      "$(echo "$user + $sys" | bc)" "$kb" "$rc" "$limit" >>"$RAW"
    echo "bench: $row · $tool · rep $i: ${wall}s, ${kb} KB, exit $rc" >&2
    if [ "$rc" -gt 2 ]; then sed 's/^/  /' "$WORK/last.err" | tail -5 >&2; fi
  done
}
limit() { echo "scale=3; $1 * $2 * $LATENCY_MS / 1000 / $3" | bc; }
suite() { python3 "$here/gen.py" suite "$WORK/$1" --cases "$2" --samples "${3:-1}" --port "$PORT" --size "$SIZE"; }
dl_run() { measure "$1" digline "$REPS" "$2" "$WORK/$3" "$DL" run --suite suite.toml --concurrency "$4"; }
pf_run() {
  [ -n "$PF" ] || return 0
  measure "$1" promptfoo "$SLOW_REPS" "$2" "$WORK/$3" "$PF" eval -c promptfooconfig.yaml -j "$4" \
    --repeat "${5:-1}" --no-cache --no-table --no-progress-bar -o "$WORK/$3/pf-out.json"
}
py_run() {
  [ -n "$ORACLE" ] || return 0
  measure "$1" "digline 0.10.0" "$SLOW_REPS" "$2" "$WORK/$3" "$ORACLE" --v 0.10 run --suite suite.toml
}

if [ -n "$QUICK" ]; then N1=100 N2=200 N3=1000; else N1=100 N2=1000 N3=10000; fi
suite s100 100; suite s1k "$N2"; suite s1k2 "$N2" 2; suite s10k "$N3"; suite s100k 100000

# 1. run against the latency (the physical limit: cases × samples × latency / concurrency).
latency "$LATENCY_MS"
dl_run "run 100 cases, c=1" "$(limit 100 1 1)" s100 1
pf_run "run 100 cases, c=1" "$(limit 100 1 1)" s100 1
py_run "run 100 cases, c=1" "$(limit 100 1 1)" s100
dl_run "run $N2 cases, c=8" "$(limit "$N2" 1 8)" s1k 8
pf_run "run $N2 cases, c=8" "$(limit "$N2" 1 8)" s1k 8
dl_run "run $N2 cases x 2 samples, c=32" "$(limit "$N2" 2 32)" s1k2 32
pf_run "run $N2 cases x 2 samples, c=32" "$(limit "$N2" 2 32)" s1k2 32 2

# 2. overhead: a 0 ms stub, 4 deterministic checks (limit 0: everything is overhead).
latency 0
rm -rf "$WORK"/s1k/.digline "$WORK"/s10k/.digline
dl_run "overhead $N2 cases, 0 ms, c=32" 0 s1k 32
pf_run "overhead $N2 cases, 0 ms, c=32" 0 s1k 32
py_run "overhead $N2 cases, 0 ms, c=32" 0 s1k
py_run "overhead $N3 cases, 0 ms, c=32" 0 s10k
dl_run "overhead $N3 cases, 0 ms, c=32" 0 s10k 32
[ -z "$STATIC" ] || measure "overhead $N3 cases, 0 ms, c=32" "digline (static)" "$REPS" 0 "$WORK/s10k" "$STATIC" run --suite suite.toml --concurrency 32
# promptfoo at ≈160 cases/s would take a minute here: the 1,000-case row stands for it.
[ -z "$QUICK" ] || pf_run "overhead $N3 cases, 0 ms, c=32" 0 s10k 32
[ -n "$QUICK" ] || measure "overhead 100000 cases, 0 ms, c=32" digline 1 0 "$WORK/s100k" "$DL" run --suite suite.toml --concurrency 32

# 3. compare two N3-case runs (digline's own documents, read by both).
d="$WORK/s10k"
"$DL" promote --suite "$d/suite.toml" --root "$d" --run "$(cd "$d" && ls .digline/bench/runs/*/ | head -1 | sed 's/\.json$//')" >/dev/null
measure "compare $N3 cases" digline "$REPS" 0 "$d" "$DL" compare --suite suite.toml --run latest
[ -z "$STATIC" ] || measure "compare $N3 cases" "digline (static)" "$REPS" 0 "$d" "$STATIC" compare --suite suite.toml --run latest
[ -z "$ORACLE" ] || measure "compare $N3 cases" "digline 0.10.0" "$SLOW_REPS" 0 "$d" "$ORACLE" --v 0.10 compare --suite suite.toml --run latest

# 4. report for N3 cases (HTML, against the baseline).
measure "report $N3 cases" digline "$REPS" 0 "$d" "$DL" report --suite suite.toml --run latest --locale en --out "$WORK/report.html"
report_bytes=$(stat -c %s "$WORK/report.html")
[ -z "$STATIC" ] || measure "report $N3 cases" "digline (static)" "$REPS" 0 "$d" "$STATIC" report --suite suite.toml --run latest --locale en --out "$WORK/report-static.html"
[ -z "$ORACLE" ] || measure "report $N3 cases" "digline 0.10.0" "$SLOW_REPS" 0 "$d" "$ORACLE" --v 0.10 report --suite suite.toml --run latest --locale en --out "$d/report-py.html"

# 5. list over 1,000 stored runs of 100 cases each.
one="$(ls "$WORK"/s100/.digline/bench/runs/*/*.json | head -1)"
mkdir -p "$WORK/list" && cp "$WORK/s100/suite.toml" "$WORK/s100/cases.json" "$WORK/list/"
python3 "$here/gen.py" store "$WORK/list" --from "$one" --runs 1000
measure "list 1,000 runs" digline "$REPS" 0 "$WORK/list" "$DL" list --suite suite.toml
[ -z "$ORACLE" ] || measure "list 1,000 runs" "digline 0.10.0" "$SLOW_REPS" 0 "$WORK/list" "$ORACLE" --v 0.10 list --suite suite.toml

# 6. --version, cold start (new process; page cache warm).
measure "--version" digline "$((REPS * 4))" 0 "$WORK" "$DL" --version
[ -z "$ORACLE" ] || measure "--version" "digline 0.10.0" "$SLOW_REPS" 0 "$WORK" "$ORACLE" --v 0.10 --version
[ -z "$ORACLE" ] || measure "--version" "(chroot floor: python -c pass)" "$SLOW_REPS" 0 "$WORK" "$ORACLE" --v 0.10 --exec python -c pass
[ -z "$PF" ] || measure "--version" promptfoo "$SLOW_REPS" 0 "$WORK" "$PF" --version
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs 200 --export-json "$WORK/version.json" "$DL --version" >&2 || true
fi

crates=$(cd "$repo" && cargo tree -e normal --prefix none 2>/dev/null | sed 's/ (\*)$//' | sort -u | wc -l)

python3 "$here/summarize.py" "$RAW" --report-bytes "$report_bytes" \
  --hyperfine "$WORK/version.json" --binary "$DL" --static "$STATIC" --crates "$crates" \
  >"$here/results/latest.md"
cat "$here/results/latest.md"
