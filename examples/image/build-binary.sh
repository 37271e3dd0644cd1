#!/usr/bin/env bash
# Build the static musl binary for one architecture, as the release does:
#
#   examples/image/build-binary.sh --arch amd64|arm64
#
# amd64: rustup's x86_64-unknown-linux-musl target with Debian's musl-gcc
# (ring's C code). arm64: aarch64-unknown-linux-musl through cargo-zigbuild
# (zig, from PyPI's ziglang, is the C cross compiler). Prints the path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"
arch=amd64
case "${1:-}" in --arch) arch="${2:-}" ;; "") ;; *) echo "build-binary.sh: usage: --arch amd64|arm64" >&2; exit 64 ;; esac
case "$arch" in
  amd64)
    command -v musl-gcc >/dev/null || { echo "build-binary.sh: musl-gcc is missing (apt-get install musl-tools)" >&2; exit 69; }
    CC_x86_64_unknown_linux_musl=musl-gcc cargo build --quiet --release --locked \
      --target x86_64-unknown-linux-musl --bin digline
    triple=x86_64-unknown-linux-musl ;;
  arm64)
    command -v cargo-zigbuild >/dev/null || { echo "build-binary.sh: cargo-zigbuild is missing (pip install ziglang cargo-zigbuild)" >&2; exit 69; }
    cargo zigbuild --quiet --release --locked --target aarch64-unknown-linux-musl --bin digline
    triple=aarch64-unknown-linux-musl ;;
  *) echo "build-binary.sh: --arch must be amd64 or arm64, not '$arch'" >&2; exit 64 ;;
esac
echo "${CARGO_TARGET_DIR:-$repo/target}/$triple/release/digline"
