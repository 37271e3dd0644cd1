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
    /// The wait the server asked for, if it gave one (read by
    /// [`super::rate_limits::RateLimits::read`]; never clamped here).
    pub retry_after: Option<Duration>,
    /// True for HTTP 429 (and Anthropic's 529 "overloaded"): the pool slows down.
    pub throttled: bool,
    /// The HTTP status, when the server answered (`None`: a reset, a
    /// refused connection, a timeout).
    pub status: Option<u16>,
}

/// Why a call was tried again: what the retry counts are kept by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RetryReason {
    /// HTTP 429, or Anthropic's 529 "overloaded".
    RateLimited,
    /// HTTP 5xx or 408.
    ServerError,
    /// A reset, a refused connection, a timeout, an answer cut short.
    Connection,
}

impl RetryReason {
    /// The reason's name in counts (`outcome.json`, the stderr line).
    pub fn as_str(self) -> &'static str {
        match self {
            RetryReason::RateLimited => "rate_limited",
            RetryReason::ServerError => "server_error",
            RetryReason::Connection => "connection",
        }
    }
}

impl Transient {
    /// Why another attempt is made.
    pub fn reason(&self) -> RetryReason {
        if self.throttled {
            RetryReason::RateLimited
        } else if self.status.is_some() {
            RetryReason::ServerError
        } else {
            RetryReason::Connection
        }
    }
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
                status: None,
            }),
        }
    }

    /// The failure an HTTP status is: 429 and 529 throttle, other 5xx and
    /// 408 are transient, everything else is permanent.
    pub fn from_status(status: u16, cause: String, retry_after: Option<Duration>) -> Failure {
        let mut failure = match status {
            429 | 529 => Failure::transient(cause, retry_after, true),
            408 | 500..=599 => Failure::transient(cause, retry_after, false),
            _ => Failure::permanent(cause),
        };
        if let Some(t) = failure.transient.as_mut() {
            t.status = Some(status);
        }
        failure
    }
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
}
