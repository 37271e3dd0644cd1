# Shared by the examples' gate.sh scripts (sourced, not run). Expects `$repo`
# (the repository root); sets `$digline` and `$examples` to the release
# builds (under $CARGO_TARGET_DIR when set). `start NAME ARGS…` starts a
# helper binary from the built examples, waits until it says it is
# listening, and stops it when the script exits.
target="${CARGO_TARGET_DIR:-$repo/target}"
digline="$target/release/digline"
examples="$target/release/examples"
pids=()
logs=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -f "${logs[@]}"' EXIT
start() {
  local name="$1" log
  shift
  log="$(mktemp)"
  logs+=("$log")
  "$examples/$name" "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    grep -q "listening" "$log" && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; exit 70; }
    sleep 0.05
  done
  cat "$log" >&2
  exit 70
}
