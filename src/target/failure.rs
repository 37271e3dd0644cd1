//! A failed call, and whether trying again could help.
//!
//! Every target (HTTP, providers) and every judge reports a failed attempt
//! as a [`Failure`]: the one-line cause that would be recorded (naming the
//! endpoint by host:port at most, never a URL, a key or a header value) and,
//! for failures worth retrying — HTTP 429, 5xx (529 included), a connection
//! reset or refused mid-run, a timeout — a [`Transient`] saying how. The
//! driver (`run::retry`) decides how long to wait; the target only reports.

use std::time::Duration;

/// Why a transient failure is worth another attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transient {
    /// The server's `Retry-After` (or `retry-after-ms`), if it gave one.
    pub retry_after: Option<Duration>,
    /// True for HTTP 429 (and Anthropic's 529 "overloaded"): the pool slows down.
    pub throttled: bool,
}

/// One failed attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The one-line cause, safe to record (no secret, no URL).
    pub cause: String,
    /// `Some` when another attempt could succeed.
    pub transient: Option<Transient>,
}

impl Failure {
    /// A failure that another attempt would repeat (a 400, a bad answer,
    /// a missing template variable).
    pub fn permanent(cause: impl Into<String>) -> Failure {
        Failure {
            cause: cause.into(),
            transient: None,
        }
    }

    /// A failure worth another attempt.
    pub fn transient(
        cause: impl Into<String>,
        retry_after: Option<Duration>,
        throttled: bool,
    ) -> Failure {
        Failure {
            cause: cause.into(),
            transient: Some(Transient {
                retry_after,
                throttled,
            }),
        }
    }

    /// The failure an HTTP status is: 429 and 529 throttle, other 5xx and
    /// 408 are transient, everything else is permanent.
    pub fn from_status(status: u16, cause: String, retry_after: Option<Duration>) -> Failure {
        match status {
            429 | 529 => Failure::transient(cause, retry_after, true),
            408 | 500..=599 => Failure::transient(cause, retry_after, false),
            _ => Failure::permanent(cause),
        }
    }
}

/// The longest `Retry-After` honoured (a server asking for more is waited
/// for this long, then asked again): 120 s.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// Read `retry-after-ms` (milliseconds, as OpenAI sends it) or `Retry-After`
/// (seconds, integer or decimal). The HTTP-date form is not read (`None`:
/// the driver's own backoff applies). Capped at [`MAX_RETRY_AFTER`].
pub fn retry_after(retry_after_ms: Option<&str>, retry_after: Option<&str>) -> Option<Duration> {
    let parse = |s: &str, scale: f64| {
        let x: f64 = s.trim().parse().ok()?;
        if !x.is_finite() || x < 0.0 {
            return None;
        }
        Duration::try_from_secs_f64(x * scale).ok()
    };
    retry_after_ms
        .and_then(|s| parse(s, 0.001))
        .or_else(|| retry_after.and_then(|s| parse(s, 1.0)))
        .map(|d| d.min(MAX_RETRY_AFTER))
}

/// Whether an I/O failure during a call is worth another attempt: a reset,
/// an abort, a broken pipe, a refused connection (the service restarting),
/// a timeout, an answer cut short.
pub fn io_is_transient(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind as K;
    matches!(
        kind,
        K::ConnectionReset
            | K::ConnectionAborted
            | K::ConnectionRefused
            | K::BrokenPipe
            | K::TimedOut
            | K::WouldBlock
            | K::UnexpectedEof
            | K::Interrupted
    )
}

/// Whether a `ureq` error is worth another attempt (see [`io_is_transient`]).
pub fn ureq_is_transient(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::Timeout(_) | ureq::Error::ConnectionFailed => true,
        ureq::Error::Io(io) => io_is_transient(io.kind()),
        ureq::Error::Protocol(_) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_classify() {
        let rows: &[(u16, Option<bool>)] = &[
            (400, None),
            (401, None),
            (404, None),
            (408, Some(false)),
            (429, Some(true)),
            (500, Some(false)),
            (502, Some(false)),
            (503, Some(false)),
            (529, Some(true)),
        ];
        for (status, want) in rows {
            let f = Failure::from_status(*status, "x".into(), None);
            assert_eq!(f.transient.map(|t| t.throttled), *want, "{status}");
        }
    }

    #[test]
    fn retry_after_headers() {
        let rows: &[(Option<&str>, Option<&str>, Option<u64>)] = &[
            (None, None, None),
            (None, Some("1"), Some(1000)),
            (None, Some(" 2.5 "), Some(2500)),
            (Some("150"), Some("9"), Some(150)),
            (Some("junk"), Some("3"), Some(3000)),
            (None, Some("Wed, 21 Oct 2015 07:28:00 GMT"), None),
            (None, Some("-1"), None),
            (None, Some("99999"), Some(120_000)),
            (None, Some("NaN"), None),
        ];
        for (ms, s, want) in rows {
            let got = retry_after(*ms, *s).map(|d| d.as_millis() as u64);
            assert_eq!(got, *want, "{ms:?} {s:?}");
        }
    }
}
