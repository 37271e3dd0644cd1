# Shared by the examples' gate.sh scripts (sourced, not run). Expects `$repo`
# (the repository root); sets `$digline` and `$examples` to the builds
# (under $CARGO_TARGET_DIR when set). `build ARGS…` builds them; `start NAME
# ARGS…` starts a helper binary from the built examples, waits until it says
# it is listening, and stops it when the script exits.
#
# The profile is Cargo's `dev` profile unless DIGLINE_PROFILE names another
# (`DIGLINE_PROFILE=release` builds the size-tuned binary that ships): a
# first run then compiles the dependencies once for both of the README's
# commands (`cargo test` reuses them) and skips the release profile's fat
# LTO. The times: docs/performance.md, "The first run".
#
# When the example cannot give a verdict for a reason outside digline — the
# build fails, a helper cannot start (its port is taken) — the script says
# so in one sentence and exits 64 (refused), never 70, which means a bug in
# digline. Otherwise it exits with digline's own code.
target="${CARGO_TARGET_DIR:-$repo/target}"
profile="${DIGLINE_PROFILE:-dev}"
case "$profile" in
  dev) profile_dir=debug ;;
  *) profile_dir="$profile" ;;
esac
digline="$target/$profile_dir/digline"
examples="$target/$profile_dir/examples"
pids=()
logs=()
# `|| true`: a script under `set -e` must keep its own exit code, not the
# stopped helper's 143.
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -f "${logs[@]}"' EXIT
refuse() {
  echo "$(basename "$(dirname "$0")")/gate.sh: $*" >&2
  exit 64
}
build() {
  [ -x "$digline" ] ||
    echo "$(basename "$(dirname "$0")")/gate.sh: building digline ($profile profile): the first time takes a few minutes; the binary is $digline" >&2
  cargo build --quiet --profile "$profile" "$@" ||
    refuse "the build failed (cargo build --profile $profile $* exited $?), so there is no verdict: fix the build and run this again"
}
start() {
  local name="$1" log port="" previous="" arg
  shift
  for arg in "$@"; do
    [ "$previous" = "--port" ] && port="$arg"
    previous="$arg"
  done
  log="$(mktemp)"
  logs+=("$log")
  "$examples/$name" "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    grep -q "listening" "$log" && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || {
      cat "$log" >&2
      refuse "$name stopped before it listened (its output is above): is port $port already taken? Free it and run this again"
    }
    sleep 0.05
  done
  cat "$log" >&2
  refuse "$name did not say it was listening on port $port within 5 s (its output is above), so there is no verdict"
}
