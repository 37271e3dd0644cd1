# Shared by the examples' gate.sh scripts (sourced, not run): `start NAME
# ARGS…` starts a helper binary from target/release/examples, waits until it
# says it is listening, and stops it when the script exits. Expects
# `$examples` to point at the built examples.
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
