# Shared by the examples' gate.sh scripts (sourced, not run). Expects `$repo`
# (the repository root); sets `$digline` and `$examples` to the builds
# (under $CARGO_TARGET_DIR when set). `build ARGS…` builds them, `start NAME
# ARGS…` starts a helper binary from the built examples, waits until it says
# it is listening, and stops it when the script exits.
#
# The profile is Cargo's `dev` profile unless DIGLINE_PROFILE names another
# (`DIGLINE_PROFILE=release` builds the size-tuned binary that ships): a
# first run then compiles the dependencies once for both of the README's
# commands (`cargo test` reuses them) and skips the release profile's fat
# LTO. The times: docs/performance.md, "The first run".
target="${CARGO_TARGET_DIR:-$repo/target}"
profile="${DIGLINE_PROFILE:-dev}"
case "$profile" in
  dev) profile_dir=debug ;;
  *) profile_dir="$profile" ;;
esac
digline="$target/$profile_dir/digline"
examples="$target/$profile_dir/examples"
build() {
  cargo build --quiet --profile "$profile" "$@"
}
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
