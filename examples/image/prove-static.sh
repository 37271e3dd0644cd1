#!/usr/bin/env bash
# Prove, without a container engine, what the Dockerfile's runtime stage
# promises: the release binary is statically linked and, copied into an
# otherwise empty root filesystem holding only the CA bundle and a passwd
# entry, runs `digline gate` on the quickstart as uid 1000 with /work
# mounted. Exits with the gate's code (0 expected).
#
#   sudo ./examples/image/prove-static.sh     # needs root for chroot
#
# Builds the binary exactly as the Dockerfile's build stage does.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"

CC_x86_64_unknown_linux_musl=musl-gcc cargo build --quiet --release \
  --target x86_64-unknown-linux-musl --bin digline
cargo build --quiet --release --example quickstart-stub
bin="$repo/target/x86_64-unknown-linux-musl/release/digline"

echo "== file: $(file -b "$bin")"
if readelf -l "$bin" | grep -q INTERP; then echo "has an ELF interpreter: not static" >&2; exit 1; fi
if readelf -d "$bin" 2>/dev/null | grep -q NEEDED; then echo "needs shared libraries: not static" >&2; exit 1; fi
# As the Dockerfile does: cargo's `strip = true` leaves a musl static-pie's symbols.
stripped="$(mktemp)"
strip -o "$stripped" "$bin"
size="$(stat -c %s "$stripped")"
echo "== size: $size bytes stripped (budget: at most 12,000,000)"
if [ "$size" -gt 12000000 ]; then echo "over the 12,000,000-byte budget by $((size - 12000000)) bytes" >&2; exit 1; fi

rootfs="$(mktemp -d)"
log="$(mktemp)"
trap 'kill "${stub_pid:-0}" 2>/dev/null || true; rm -rf "$rootfs" "$log" "${stripped:-}"' EXIT
chmod 755 "$rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl/certs" "$rootfs/work" "$rootfs/tmp"
cp "$stripped" "$rootfs/usr/local/bin/digline"
chmod 755 "$rootfs/usr/local/bin/digline"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
printf 'digline:x:1000:1000:digline:/work:/nonexistent\n' > "$rootfs/etc/passwd"
chmod 1777 "$rootfs/tmp"
# /work: the quickstart with its committed baseline (the Action mounts the workspace here).
cp -r examples/quickstart/. "$rootfs/work/"
rm -rf "$rootfs/work/.digline/quickstart/runs"
# A checkout (detached HEAD, as on a PR): the commit is read from .git, with no git binary.
mkdir -p "$rootfs/work/.git" && git rev-parse HEAD > "$rootfs/work/.git/HEAD"
chown -R 1000:1000 "$rootfs/work"

"$repo/target/release/examples/quickstart-stub" --answers "$rootfs/work/answers.json" --port 8731 >"$log" 2>&1 &
stub_pid=$!
for _ in $(seq 1 100); do grep -q listening "$log" && break; sleep 0.05; done

echo "== the root filesystem:"; (cd "$rootfs" && find . -type f -not -path './work/*' | sort)
set +e
unshare -m chroot --userspec=1000:1000 "$rootfs" /usr/local/bin/digline gate \
  --suite /work/suite.toml --root /work --out /work/digline-gate --publish none
code=$?
set -e
echo "== exit $code; wrote: $(ls "$rootfs/work/digline-gate" | tr '\n' ' ')"
echo "== git commit recorded without git: $(grep -ho '"git_commit": [^,]*' "$rootfs"/work/.digline/quickstart/runs/support/*.json | head -1)"
exit "$code"
