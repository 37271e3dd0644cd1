//! What a server says about its rate limits, read one way for every caller:
//! the HTTP target, the providers, the judges and the forges
//! ([`RateLimits::from_headers`]; any other header by [`header_text`]).
//!
//! A response may ask for a wait ([`RateLimits::wait`]) and may say how
//! much of a quota is left ([`RateLimits::windows`]). The wait is read, in
//! this order, from:
//!
//! | header | form |
//! |---|---|
//! | `retry-after-ms` (OpenAI), `llm_provider-retry-after-ms` (LiteLLM) | milliseconds |
//! | `retry-after`, `llm_provider-retry-after` (LiteLLM forwards the provider's) | seconds (integer or decimal) or an HTTP-date |
//! | with none of those: the reset of every exhausted window (remaining `0`), the longest | see below |
//!
//! Windows (a remaining count and when it resets):
//!
//! | provider | remaining | reset |
//! |---|---|---|
//! | OpenAI (and gateways copying it, also with LiteLLM's `llm_provider-` prefix) | `x-ratelimit-remaining-requests`, `-tokens` | `x-ratelimit-reset-requests`, `-tokens`: a Go duration (`6m0s`, `1s`, `20ms`, `1m26.4s`) |
//! | Anthropic | `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining` | `…-reset`: an RFC 3339 time |
//! | GitHub | `x-ratelimit-remaining` | `x-ratelimit-reset`: Unix seconds |
//! | GitLab | `ratelimit-remaining` | `ratelimit-reset`: Unix seconds |
//!
//! A reset value is read as whichever form it has: an RFC 3339 time, an
//! HTTP-date, a Go duration, or a plain number — seconds to wait, or Unix
//! seconds when it is 1,000,000,000 or more (no wait is that long; every
//! Unix time since 2001 is). A value that is none of these, negative or not
//! finite is ignored (no hint), never an error. Reading is pure: the caller
//! passes the time "now".
//!
//! This module only reads. How long is actually waited — never below the
//! first backoff step, never above `--max-wait` — is `run::retry`'s (and
//! the forges') decision.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use ureq::http::HeaderMap;

/// A response header's value by its name, trimmed; `None` when it is
/// absent, empty or not visible ASCII. How every caller reads a header.
pub fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// Headers carrying a wait in milliseconds, first match wins.
const WAIT_MS: &[&str] = &["retry-after-ms", "llm_provider-retry-after-ms"];
/// Headers carrying a wait in seconds or as an HTTP-date.
const WAIT: &[&str] = &["retry-after", "llm_provider-retry-after"];

/// The windows read: which quota, the remaining header, the reset header.
const WINDOWS: &[(Quota, &str, &str)] = &[
    (
        Quota::Requests,
        "x-ratelimit-remaining-requests",
        "x-ratelimit-reset-requests",
    ),
    (
        Quota::Tokens,
        "x-ratelimit-remaining-tokens",
        "x-ratelimit-reset-tokens",
    ),
    (
        Quota::Requests,
        "llm_provider-x-ratelimit-remaining-requests",
        "llm_provider-x-ratelimit-reset-requests",
    ),
    (
        Quota::Tokens,
        "llm_provider-x-ratelimit-remaining-tokens",
        "llm_provider-x-ratelimit-reset-tokens",
    ),
    (
        Quota::Requests,
        "anthropic-ratelimit-requests-remaining",
        "anthropic-ratelimit-requests-reset",
    ),
    (
        Quota::Tokens,
        "anthropic-ratelimit-tokens-remaining",
        "anthropic-ratelimit-tokens-reset",
    ),
    (
        Quota::Tokens,
        "anthropic-ratelimit-input-tokens-remaining",
        "anthropic-ratelimit-input-tokens-reset",
    ),
    (
        Quota::Tokens,
        "anthropic-ratelimit-output-tokens-remaining",
        "anthropic-ratelimit-output-tokens-reset",
    ),
    (
        Quota::Requests,
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ),
    (Quota::Requests, "ratelimit-remaining", "ratelimit-reset"),
];

/// What a window counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quota {
    /// Calls.
    Requests,
    /// Tokens (input, output or both).
    Tokens,
}

/// One quota window a server reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// What it counts.
    pub quota: Quota,
    /// What is left of it (`None` when only the reset was sent).
    pub remaining: Option<u64>,
    /// How long until it is whole again (`None` when not sent or unreadable).
    pub reset: Option<Duration>,
}

impl Window {
    /// True when nothing is left until the reset.
    pub fn exhausted(&self) -> bool {
        self.remaining == Some(0)
    }
}

/// Everything one response said about rate limits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateLimits {
    /// How long the server asks to wait before the next call, if it said.
    pub wait: Option<Duration>,
    /// The quota windows it reported.
    pub windows: Vec<Window>,
}

impl RateLimits {
    /// Read a response's headers; `header` returns a header's value by its
    /// lower-case name. `now` is the time the response arrived.
    pub fn read(header: &dyn Fn(&str) -> Option<String>, now: SystemTime) -> RateLimits {
        let windows: Vec<Window> = WINDOWS
            .iter()
            .filter_map(|(quota, remaining, reset)| {
                let remaining = header(remaining).and_then(|v| v.trim().parse::<u64>().ok());
                let reset = header(reset).and_then(|v| reset_in(&v, now));
                (remaining.is_some() || reset.is_some()).then_some(Window {
                    quota: *quota,
                    remaining,
                    reset,
                })
            })
            .collect();
        let asked = WAIT_MS
            .iter()
            .find_map(|name| header(name).and_then(|v| seconds(&v, 0.001)))
            .or_else(|| {
                WAIT.iter()
                    .find_map(|name| header(name).and_then(|v| retry_after(&v, now)))
            });
        let wait = asked.or_else(|| {
            windows
                .iter()
                .filter(|w| w.exhausted())
                .filter_map(|w| w.reset)
                .max()
        });
        RateLimits { wait, windows }
    }

    /// Read a response's headers ([`RateLimits::read`] through [`header_text`]).
    pub fn from_headers(headers: &HeaderMap, now: SystemTime) -> RateLimits {
        RateLimits::read(&|name| header_text(headers, name), now)
    }

    /// The longest reset among the exhausted windows: how long the next
    /// call would be refused (`None` when nothing is exhausted).
    pub fn exhausted_for(&self) -> Option<Duration> {
        self.windows
            .iter()
            .filter(|w| w.exhausted())
            .filter_map(|w| w.reset)
            .max()
    }
}

/// What one client's calls reported, for the pacer (`run::quota`): the
/// tokens spent so far, and until when a server said a quota is used up
/// (a window with nothing remaining, even on a successful answer).
#[derive(Debug, Default)]
pub struct Meter {
    tokens: AtomicU64,
    /// The estimated tokens of the calls sent and not yet answered.
    in_flight: AtomicU64,
    held: Mutex<Option<Instant>>,
}

impl Meter {
    /// Count `tokens` spent by one call.
    pub fn spent(&self, tokens: u64) {
        self.tokens.fetch_add(tokens, Ordering::Relaxed);
    }

    /// A call estimated at `tokens` is sent: counted until it is
    /// [`Meter::settled`], so a `tpm` pace sees the calls in flight before
    /// any of them reports its usage.
    pub fn sending(&self, tokens: u64) {
        self.in_flight.fetch_add(tokens, Ordering::Relaxed);
    }

    /// The call estimated at `tokens` is done (its real usage, if any, is
    /// counted by [`Meter::spent`]).
    pub fn settled(&self, tokens: u64) {
        let _ = self
            .in_flight
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(tokens))
            });
    }

    /// Every token counted so far, and the estimates of the calls in flight.
    pub fn tokens(&self) -> u64 {
        self.tokens
            .load(Ordering::Relaxed)
            .saturating_add(self.in_flight.load(Ordering::Relaxed))
    }

    /// The tokens the answered calls reported (no estimate).
    pub fn reported(&self) -> u64 {
        self.tokens.load(Ordering::Relaxed)
    }

    /// A response arrived at `now` saying `limits`: an exhausted window
    /// holds every later call until its reset.
    pub fn saw(&self, limits: &RateLimits, now: Instant) {
        if let Some(reset) = limits.exhausted_for() {
            let until = now + reset;
            let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
            if held.is_none_or(|h| h < until) {
                *held = Some(until);
            }
        }
    }

    /// Until when no call should be made (`None`, or a past time: go).
    pub fn held_until(&self) -> Option<Instant> {
        *self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A `Retry-After` value: seconds (integer or decimal) or an HTTP-date.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    seconds(value, 1.0).or_else(|| {
        let at = httpdate::parse_http_date(value).ok()?;
        Some(at.duration_since(now).unwrap_or(Duration::ZERO))
    })
}

/// A reset value in any of the forms in the module doc.
pub fn reset_in(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(at) =
        time::OffsetDateTime::parse(value, &time::format_description::well_known::Rfc3339)
    {
        let at = SystemTime::from(at);
        return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
    }
    if let Ok(at) = httpdate::parse_http_date(value) {
        return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
    }
    if let Ok(n) = value.parse::<f64>() {
        if !n.is_finite() || n < 0.0 {
            return None;
        }
        if n >= 1e9 {
            let at = SystemTime::UNIX_EPOCH + Duration::try_from_secs_f64(n).ok()?;
            return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
        }
        return Duration::try_from_secs_f64(n).ok();
    }
    go_duration(value)
}

/// A non-negative number of seconds times `scale`.
fn seconds(value: &str, scale: f64) -> Option<Duration> {
    let x: f64 = value.trim().parse().ok()?;
    if !x.is_finite() || x < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(x * scale).ok()
}

/// A Go `time.Duration` as Go prints it: `6m0s`, `1h2m3.5s`, `20ms`,
/// `1.5µs`, `0`. No sign (a negative wait is no wait).
pub fn go_duration(value: &str) -> Option<Duration> {
    if value == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = value;
    let mut total = 0f64;
    let mut any = false;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            return None;
        }
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" | "μs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += number * scale;
        any = true;
    }
    if !any || !total.is_finite() {
        return None;
    }
    Duration::try_from_secs_f64(total).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(unix: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(unix)
    }

    /// 2015-10-21T07:28:00Z, the date in RFC 9110's example.
    const NOW: u64 = 1_445_412_480;

    fn read(pairs: &[(&str, &str)]) -> RateLimits {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        RateLimits::read(
            &|name| {
                owned
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            },
            at(NOW),
        )
    }

    fn ms(d: Option<Duration>) -> Option<u64> {
        d.map(|d| d.as_millis() as u64)
    }

    #[test]
    fn a_header_is_read_trimmed_and_an_empty_one_is_absent() {
        use ureq::http::header::HeaderValue;
        let mut headers = HeaderMap::new();
        headers.insert("x-next-page", HeaderValue::from_static(" 3 "));
        headers.insert("retry-after", HeaderValue::from_static(""));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        headers.insert("x-odd", HeaderValue::from_bytes(b"caf\xe9").unwrap());
        assert_eq!(header_text(&headers, "x-next-page").as_deref(), Some("3"));
        assert_eq!(header_text(&headers, "X-Next-Page").as_deref(), Some("3"));
        assert_eq!(header_text(&headers, "retry-after"), None);
        assert_eq!(header_text(&headers, "x-odd"), None);
        assert_eq!(header_text(&headers, "absent"), None);
        let limits = RateLimits::from_headers(&headers, SystemTime::now());
        assert_eq!(limits.wait, Some(Duration::from_millis(250)));
        assert_eq!(
            RateLimits::from_headers(&HeaderMap::new(), SystemTime::now()),
            RateLimits::default()
        );
    }

    #[test]
    fn go_durations() {
        let rows: &[(&str, Option<u64>)] = &[
            ("6m0s", Some(360_000)),
            ("1s", Some(1000)),
            ("20ms", Some(20)),
            ("1m26.4s", Some(86_400)),
            ("2.088s", Some(2088)),
            ("1h2m3s", Some(3_723_000)),
            ("0", Some(0)),
            ("0s", Some(0)),
            ("1500us", Some(1)),
            ("-1s", None),
            ("", None),
            ("s", None),
            ("5", None),
            ("5d", None),
            ("1.2.3s", None),
        ];
        for (text, want) in rows {
            assert_eq!(ms(go_duration(text)), *want, "{text}");
        }
    }

    #[test]
    fn retry_after_forms() {
        let rows: &[(&str, Option<u64>)] = &[
            ("1", Some(1000)),
            (" 2.5 ", Some(2500)),
            ("0", Some(0)),
            ("86400", Some(86_400_000)),
            ("Wed, 21 Oct 2015 07:28:30 GMT", Some(30_000)),
            // a date in the past: no wait
            ("Wed, 21 Oct 2015 07:27:00 GMT", Some(0)),
            ("-1", None),
            ("NaN", None),
            ("inf", None),
            ("soon", None),
        ];
        for (text, want) in rows {
            assert_eq!(ms(retry_after(text, at(NOW))), *want, "{text}");
        }
    }

    #[test]
    fn reset_forms() {
        let rows: &[(&str, Option<u64>)] = &[
            ("6m0s", Some(360_000)),
            ("20ms", Some(20)),
            ("2015-10-21T07:28:12Z", Some(12_000)),
            ("2015-10-21T09:28:12+02:00", Some(12_000)),
            ("2015-10-21T07:28:00.5Z", Some(500)),
            ("2015-10-21T07:00:00Z", Some(0)),
            ("Wed, 21 Oct 2015 07:29:00 GMT", Some(60_000)),
            ("1445412540", Some(60_000)),
            ("17", Some(17_000)),
            ("0.25", Some(250)),
            ("-3", None),
            ("later", None),
        ];
        for (text, want) in rows {
            assert_eq!(ms(reset_in(text, at(NOW))), *want, "{text}");
        }
    }

    #[test]
    fn the_wait_a_response_asks_for() {
        type Row<'a> = (&'a [(&'a str, &'a str)], Option<u64>);
        let rows: &[Row] = &[
            (&[], None),
            (&[("retry-after", "3")], Some(3000)),
            (
                &[("retry-after-ms", "150"), ("retry-after", "9")],
                Some(150),
            ),
            (
                &[("retry-after-ms", "junk"), ("retry-after", "3")],
                Some(3000),
            ),
            (&[("llm_provider-retry-after", "60")], Some(60_000)),
            (
                &[("retry-after", "Wed, 21 Oct 2015 07:28:10 GMT")],
                Some(10_000),
            ),
            // no retry-after: the exhausted window's reset
            (
                &[
                    ("x-ratelimit-remaining-requests", "0"),
                    ("x-ratelimit-reset-requests", "1s"),
                    ("x-ratelimit-remaining-tokens", "0"),
                    ("x-ratelimit-reset-tokens", "6m0s"),
                ],
                Some(360_000),
            ),
            (
                &[
                    ("x-ratelimit-remaining-requests", "12"),
                    ("x-ratelimit-reset-requests", "1s"),
                ],
                None,
            ),
            (
                &[
                    ("anthropic-ratelimit-requests-remaining", "0"),
                    ("anthropic-ratelimit-requests-reset", "2015-10-21T07:28:42Z"),
                ],
                Some(42_000),
            ),
            (
                &[
                    ("llm_provider-x-ratelimit-remaining-tokens", "0"),
                    ("llm_provider-x-ratelimit-reset-tokens", "20ms"),
                ],
                Some(20),
            ),
            (
                &[
                    ("x-ratelimit-remaining", "0"),
                    ("x-ratelimit-reset", "1445412500"),
                ],
                Some(20_000),
            ),
            // retry-after wins over the windows
            (
                &[
                    ("retry-after", "2"),
                    ("x-ratelimit-remaining-requests", "0"),
                    ("x-ratelimit-reset-requests", "6m0s"),
                ],
                Some(2000),
            ),
        ];
        for (pairs, want) in rows {
            assert_eq!(ms(read(pairs).wait), *want, "{pairs:?}");
        }
    }

    #[test]
    fn a_meter_counts_and_holds() {
        let meter = Meter::default();
        meter.spent(30);
        meter.spent(12);
        assert_eq!(meter.tokens(), 42);
        let now = Instant::now();
        meter.saw(
            &read(&[
                ("x-ratelimit-remaining-requests", "3"),
                ("x-ratelimit-reset-requests", "9s"),
            ]),
            now,
        );
        assert_eq!(meter.held_until(), None);
        meter.saw(
            &read(&[
                ("x-ratelimit-remaining-requests", "0"),
                ("x-ratelimit-reset-requests", "2s"),
            ]),
            now,
        );
        assert_eq!(meter.held_until(), Some(now + Duration::from_secs(2)));
        // a shorter hold does not shorten a longer one
        meter.saw(
            &read(&[
                ("x-ratelimit-remaining-tokens", "0"),
                ("x-ratelimit-reset-tokens", "1s"),
            ]),
            now,
        );
        assert_eq!(meter.held_until(), Some(now + Duration::from_secs(2)));
    }

    #[test]
    fn windows_are_read() {
        let got = read(&[
            ("x-ratelimit-remaining-requests", "59"),
            ("x-ratelimit-reset-requests", "1s"),
            ("anthropic-ratelimit-tokens-remaining", "0"),
            ("anthropic-ratelimit-tokens-reset", "2015-10-21T07:28:05Z"),
        ]);
        assert_eq!(
            got.windows,
            vec![
                Window {
                    quota: Quota::Requests,
                    remaining: Some(59),
                    reset: Some(Duration::from_secs(1)),
                },
                Window {
                    quota: Quota::Tokens,
                    remaining: Some(0),
                    reset: Some(Duration::from_secs(5)),
                },
            ]
        );
        assert_eq!(got.exhausted_for(), Some(Duration::from_secs(5)));
    }
}
