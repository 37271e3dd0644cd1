# digline's image: one static musl binary on scratch.
#
#   docker build -t ghcr.io/digline/digline:0.11.0 .
#   docker run --rm -u "$(id -u):$(id -g)" -v "$PWD:/work" ghcr.io/digline/digline:0.11.0 \
#     gate --suite eval/suite.toml
#
# Targets: `runtime` (the default image, no shell) and `gitlab` (the same
# plus a static busybox as /bin/sh, so GitLab Runner can run `script:`;
# tagged `<version>-gitlab`).
#
# Where the binary comes from is a build argument, so the runtime stage is
# the same whichever way it is fed:
#   BINARY=build     (default) compile it in the `build` stage below;
#   BINARY=prebuilt  take it from the build context, laid out as
#                    <arch>/digline, <arch>/busybox and rootfs/ (etc/passwd,
#                    etc/group, the CA bundle, tmp/) — what examples/image/build.sh
#                    stages offline and the release workflow stages from
#                    its attested binaries. SHELL_FROM=shell-prebuilt takes
#                    busybox from there too.
# The profile's `strip = true` leaves the musl static-pie binary's symbol
# table in place, so it is stripped here (see docs/performance.md). The
# runtime stage holds only the binary, a CA bundle, a passwd entry for uid
# 1000 and a world-writable /tmp (HOME) — no shell, no package manager, no
# git (the run reads .git itself).
ARG BINARY=build
ARG SHELL_FROM=shell-debian

FROM rust:1.95-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends musl-tools ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && rustup target add "$(uname -m)-unknown-linux-musl"
WORKDIR /src
COPY . .
RUN triple="$(uname -m)-unknown-linux-musl" \
 && env "CC_$(uname -m)_unknown_linux_musl=musl-gcc" \
      cargo build --release --locked --target "$triple" --bin digline \
 && mkdir -p /out/rootfs/tmp /out/rootfs/etc/ssl/certs /out/rootfs/usr/local/bin \
 && chmod 1777 /out/rootfs/tmp \
 && strip -o /out/rootfs/usr/local/bin/digline "target/$triple/release/digline" \
 && cp /etc/ssl/certs/ca-certificates.crt /out/rootfs/etc/ssl/certs/ \
 && cp examples/image/passwd examples/image/group /out/rootfs/etc/

FROM scratch AS prebuilt
ARG TARGETARCH
COPY rootfs/ /out/rootfs/
COPY ${TARGETARCH}/digline /out/rootfs/usr/local/bin/digline

FROM --platform=$BUILDPLATFORM debian:bookworm-slim AS shell-debian
ARG TARGETARCH
WORKDIR /deb
# hadolint ignore=DL3008
RUN dpkg --add-architecture "$TARGETARCH" \
 && apt-get update \
 && apt-get download "busybox-static:$TARGETARCH" \
 && dpkg-deb -x busybox-static_*.deb /deb/root \
 && mkdir -p /out \
 && cp /deb/root/bin/busybox /out/busybox \
 && rm -rf /var/lib/apt/lists/*

FROM scratch AS shell-prebuilt
ARG TARGETARCH
COPY ${TARGETARCH}/busybox /out/busybox

FROM ${BINARY} AS binary
FROM ${SHELL_FROM} AS shell

FROM scratch AS runtime
ARG VERSION=0.11.0
LABEL org.opencontainers.image.title="digline" \
      org.opencontainers.image.description="A regression gate for LLM applications: run a suite, compare with the approved baseline, exit with a contract code." \
      org.opencontainers.image.source="https://github.com/digline/digline" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
# The binary, the CA bundle, passwd/group and a world-writable /tmp.
COPY --from=binary /out/rootfs/ /
ENV PATH=/usr/local/bin \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    HOME=/tmp
WORKDIR /work
USER 1000:1000
ENTRYPOINT ["digline"]
CMD ["--help"]

# GitLab Runner runs `script:` through a shell it finds in the image: busybox
# (static) as /bin/sh, its applets built in. No entrypoint, so
# `entrypoint: [""]` in a job is harmless and not needed.
FROM runtime AS gitlab
COPY --from=shell /out/busybox /bin/sh
ENV PATH=/usr/local/bin:/bin
ENTRYPOINT []
CMD ["sh"]

FROM runtime
