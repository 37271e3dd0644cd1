//! TLS for every HTTP client digline builds (targets, providers, judges,
//! GitLab): rustls with ring, trusting the system's CA bundle.
//!
//! The roots come from the platform verifier, which on Linux reads
//! `SSL_CERT_FILE` / `SSL_CERT_DIR` or the distribution's bundle
//! (`/etc/ssl/certs/ca-certificates.crt`, the file the image carries). So a
//! private or corporate CA in front of a target is trusted by adding it to
//! that bundle, and the image's bundle is the one its HTTPS calls use
//! (`.ci/image-checks.sh` proves it against a loopback HTTPS server).

/// The TLS configuration of every agent: the system's roots.
#[must_use]
pub fn config() -> ureq::tls::TlsConfig {
    ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .build()
}
