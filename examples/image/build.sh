#!/usr/bin/env bash
# Build digline's image offline with podman (or docker) from the
# repository's Dockerfile, fed the static binary built on this machine.
#
#   examples/image/build.sh [--arch amd64|arm64] [--target runtime|gitlab]
#
# Builds the static musl binary for the architecture (amd64: musl-gcc;
# arm64: cargo-zigbuild), stages it with the CA bundle, the passwd/group
# entries and an empty world-writable /tmp as the Dockerfile's `prebuilt` context, and runs
# the Dockerfile with BINARY=prebuilt (the runtime stage is the one the
# release ships). `--target gitlab` adds the static busybox shell (from
# Debian's busybox-static; for a foreign architecture set BUSYBOX=PATH).
# No registry is contacted. The last line printed is the image reference.
#
# Environment: ENGINE (default podman), IMAGE_NAME (default
# localhost/digline), CARGO_TARGET_DIR; DIGLINE_BINARY=PATH takes an
# already built (stripped) binary instead of building one (the release's
# attested binary); SHELL_FROM=shell-debian takes busybox from Debian's
# busybox-static through the Dockerfile's stage (needs a registry).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

arch=amd64
target=runtime
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="${2:-}"; shift 2 ;;
    --target) target="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown argument '$1' (expected --arch amd64|arm64, --target runtime|gitlab)" >&2; exit 64 ;;
  esac
done
case "$arch" in
  amd64) triple=x86_64-unknown-linux-musl ;;
  arm64) triple=aarch64-unknown-linux-musl ;;
  *) echo "build.sh: --arch must be amd64 or arm64, not '$arch'" >&2; exit 64 ;;
esac
case "$target" in
  runtime) suffix="" ;;
  gitlab) suffix="-gitlab" ;;
  *) echo "build.sh: --target must be runtime or gitlab, not '$target'" >&2; exit 64 ;;
esac
engine="${ENGINE:-podman}"
command -v "$engine" >/dev/null || { echo "build.sh: $engine is not installed (apt-get install podman runc)" >&2; exit 69; }

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
ref="${IMAGE_NAME:-localhost/digline}:${version}${suffix}-${arch}"

# The binary, built here (a no-op when it is current), or the one given.
if [ -n "${DIGLINE_BINARY:-}" ]; then
  bin="$DIGLINE_BINARY"
  [ -f "$bin" ] || { echo "build.sh: DIGLINE_BINARY=$bin is not a file" >&2; exit 66; }
else
  "$here/build-binary.sh" --arch "$arch" >&2
  bin="${CARGO_TARGET_DIR:-$repo/target}/$triple/release/digline"
fi
shell_from="${SHELL_FROM:-shell-prebuilt}"

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/$arch" "$ctx/rootfs/tmp" "$ctx/rootfs/etc/ssl/certs"
chmod 1777 "$ctx/rootfs/tmp"
# cargo's `strip = true` leaves a musl static-pie's symbol table: strip it
# (examples/image/strip.sh strips either architecture).
"$here/strip.sh" "$bin" "$ctx/$arch/digline"
cp /etc/ssl/certs/ca-certificates.crt "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
cp "$here/passwd" "$here/group" "$ctx/rootfs/etc/"
chmod 644 "$ctx/rootfs/etc/passwd" "$ctx/rootfs/etc/group" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
if [ "$target" = gitlab ] && [ "$shell_from" = shell-prebuilt ]; then
  busybox="${BUSYBOX:-}"
  if [ -z "$busybox" ]; then
    host_arch="$(dpkg --print-architecture 2>/dev/null || echo unknown)"
    if [ "$host_arch" = "$arch" ] && [ -x /bin/busybox ] && file -b /bin/busybox | grep -q 'statically linked'; then
      busybox=/bin/busybox
    else
      echo "build.sh: the gitlab image needs a static busybox for $arch: apt-get install busybox-static (on $arch), or set BUSYBOX=PATH" >&2
      exit 69
    fi
  fi
  cp "$busybox" "$ctx/$arch/busybox"
fi

# The previous image of this tag goes first, so rebuilds do not pile up.
"$engine" rmi "$ref" >/dev/null 2>&1 || true
# --no-cache: buildah 1.28 reuses a cached layer across platforms.
# podman: runc and explicit limits, below any host's hard limits (its
# defaults may exceed what runc may set: "error setting rlimit type 6").
limits=()
if [ "$(basename "$engine")" = podman ]; then
  limits=(--runtime runc --ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
fi
"$engine" build --quiet --no-cache --platform "linux/$arch" "${limits[@]}" \
  --build-arg BINARY=prebuilt --build-arg "SHELL_FROM=$shell_from" \
  --build-arg "VERSION=$version" \
  --target "$target" -f "$repo/Dockerfile" -t "$ref" "$ctx" >&2
echo "$ref"
