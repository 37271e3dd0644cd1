# digline's image: one static musl binary on scratch.
#
#   docker build -t ghcr.io/digline/digline:0.11.0 .
#   docker run --rm -u "$(id -u):$(id -g)" -v "$PWD:/work" ghcr.io/digline/digline:0.11.0 \
#     gate --suite eval/suite.toml
#
# Build stage: rustup's x86_64-unknown-linux-musl target and Debian's
# musl-tools (ring's C code needs musl-gcc). TLS is rustls with ring: no
# OpenSSL. The profile's `strip = true` leaves the musl static-pie binary's
# symbol table in place, so it is stripped here (≈2 MB; see
# docs/performance.md). The runtime stage holds only the binary, a CA bundle and a
# passwd entry for uid 1000 — no shell, no package manager, no git (the
# run records the commit by reading .git itself).
FROM rust:1.95-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends musl-tools ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && rustup target add x86_64-unknown-linux-musl
WORKDIR /src
COPY . .
ENV CC_x86_64_unknown_linux_musl=musl-gcc
RUN cargo build --release --locked --target x86_64-unknown-linux-musl --bin digline \
 && cp target/x86_64-unknown-linux-musl/release/digline /digline \
 && strip /digline \
 && printf 'digline:x:1000:1000:digline:/work:/nonexistent\n' > /passwd \
 && printf 'digline:x:1000:\n' > /group

FROM scratch
LABEL org.opencontainers.image.title="digline" \
      org.opencontainers.image.description="A regression gate for LLM applications: run a suite, compare with the approved baseline, exit with a contract code." \
      org.opencontainers.image.source="https://github.com/digline/digline" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="0.11.0"
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /passwd /etc/passwd
COPY --from=build /group /etc/group
COPY --from=build /digline /usr/local/bin/digline
ENV PATH=/usr/local/bin \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    HOME=/tmp
WORKDIR /work
USER 1000:1000
ENTRYPOINT ["digline"]
CMD ["--help"]
