//! Retries and the pool's pace: what the driver does with a [`Failure`].
//!
//! A transient failure (429, 5xx, a reset, a timeout) is tried again up to
//! `--max-retries` times (default 4; 0 = never). Before attempt *n* + 1 the
//! worker waits the server's asked wait when it gave one (`Retry-After` and
//! its relatives, read by `client::rate_limits`), else a capped exponential
//! backoff with jitter: a random time in [d/2, d] with d = min(cap, base ·
//! 2ⁿ). An asked wait shorter than the first backoff step (`Retry-After:
//! 0` above all) is no hint: the backoff applies. An asked wait longer than
//! `--max-wait` fails that call at once, with a sentence naming both; no
//! wait is ever longer than `--max-wait`. Every retry counts against
//! `--max-retries`, a 429 as much as a 5xx, for the target's calls and the
//! judges' alike: `--max-retries N` means at most N + 1 attempts of any one
//! call. (Behind a per-minute limit, `--rate` paces the calls inside it.) A
//! permanent failure is not retried. An exhausted retry is the last cause — recorded as an `error`
//! verdict, never a fail. Every retry is counted by its reason
//! ([`Retried`]): counts only, never a cause or a payload.
//!
//! The [`Throttle`] is shared by the pool. A 429 (or 529) sets a pool-wide
//! pause (every worker waits it out before its next attempt) and halves the
//! number of cases in flight, at most once per pause — retries included:
//! a throttled call leaves the pool while it waits and re-enters after; every run of
//! successes as long as the current limit raises it by one again, up to
//! `--concurrency`. So repeated 429s slow the pool down and it recovers
//! when they stop.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::quota::Pacer;
use crate::client::failure::{Failure, RetryReason};
use crate::report::locale::Locale;
use crate::report::progress::ProgressStrings;

/// How failed attempts are retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = none).
    pub max_retries: u32,
    /// The first backoff before jitter.
    pub base: Duration,
    /// The longest backoff.
    pub cap: Duration,
    /// The longest wait (`--max-wait`): a server asking for more fails the
    /// call at once.
    pub max_wait: Duration,
}

/// `--max-wait`'s default: 120 s.
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(120);

impl Default for RetryPolicy {
    /// 4 retries, 0.5 s doubling to at most 30 s, waits of at most 120 s.
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_retries: 4,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_wait: DEFAULT_MAX_WAIT,
        }
    }
}

/// A duration as the sentences print it: `86400 s`, `0.25 s`.
pub fn seconds_text(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        let text = format!("{:.3}", d.as_secs_f64());
        format!("{} s", text.trim_end_matches('0'))
    }
}

/// The sentence for an asked wait over the limit, after `who`'s cause
/// (`h:1 could not be called: HTTP Error 429: Too Many Requests`, `GitHub's
/// rate limit`).
pub fn wait_too_long(who: &str, asked: Duration, limit: Duration) -> String {
    format!(
        "{who} asked for a wait of {}, longer than the longest wait allowed (--max-wait {}), so digline did not wait",
        seconds_text(asked),
        seconds_text(limit)
    )
}

/// How many calls were tried again, and why: counts only. Cheap to clone
/// (the clones share the counts), so the caller can keep one and read it
/// after the run.
#[derive(Clone, Debug, Default)]
pub struct Retried {
    counts: Arc<Mutex<RetryCounts>>,
}

/// The counts a [`Retried`] holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RetryCounts {
    /// Calls tried more than once.
    pub calls: u64,
    /// Retries by reason.
    pub retries: BTreeMap<RetryReason, u64>,
    /// Calls failed at once because the server asked for a wait longer than `--max-wait`.
    pub waits_refused: u64,
}

impl Retried {
    /// The counts so far.
    pub fn counts(&self) -> RetryCounts {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn note(&self, first_retry: bool, reason: RetryReason) {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if first_retry {
            c.calls += 1;
        }
        *c.retries.entry(reason).or_insert(0) += 1;
    }

    fn refused_wait(&self) {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .waits_refused += 1;
    }
}

impl RetryCounts {
    /// Retries of every reason.
    pub fn total(&self) -> u64 {
        self.retries.values().sum()
    }

    /// One line for stderr, or `None` when nothing was retried or refused:
    /// `12 call(s) were tried again (15 retries: rate_limited 14, server_error 1); 1 call(s) failed at once: the asked wait was over --max-wait`.
    pub fn sentence(&self) -> Option<String> {
        self.sentence_in(Locale::En)
    }

    /// [`RetryCounts::sentence`] in `locale` (the reasons keep their slugs).
    pub fn sentence_in(&self, locale: Locale) -> Option<String> {
        if self.calls == 0 && self.waits_refused == 0 {
            return None;
        }
        let words = ProgressStrings::of(locale);
        let mut parts = Vec::new();
        if self.calls > 0 {
            let why = self
                .retries
                .iter()
                .map(|(r, n)| format!("{} {n}", r.as_str()))
                .collect::<Vec<_>>()
                .join(", ");
            parts.push(words.retried(self.calls, self.total(), &why));
        }
        if self.waits_refused > 0 {
            parts.push(words.waits_refused(self.waits_refused));
        }
        Some(parts.join("; "))
    }
}

impl RetryPolicy {
    /// The backoff before retry number `retry` (0-based), without jitter.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(20));
        self.base.saturating_mul(factor).min(self.cap)
    }
}

/// The pool's shared pace: a pause after 429s and a limit on cases in
/// flight that halves under throttling and grows back with successes.
#[derive(Debug)]
pub struct Throttle {
    max: usize,
    state: Mutex<Pace>,
    wake: Condvar,
    seed: AtomicU64,
    pacer: Option<Pacer>,
    retried: Retried,
}

#[derive(Debug)]
struct Pace {
    limit: usize,
    active: usize,
    streak: usize,
    answered: u64,
    paused_until: Option<Instant>,
    throttled_total: u64,
}

impl Throttle {
    /// A pool of at most `max` cases in flight (≥ 1); `seed` varies the jitter.
    pub fn new(max: usize, seed: u64) -> Throttle {
        let max = max.max(1);
        Throttle {
            max,
            state: Mutex::new(Pace {
                limit: max,
                active: 0,
                streak: 0,
                answered: 0,
                paused_until: None,
                throttled_total: 0,
            }),
            wake: Condvar::new(),
            seed: AtomicU64::new(seed | 1),
            pacer: None,
            retried: Retried::default(),
        }
    }

    /// Pace every attempt with `pacer` (`--rate`, the servers' reported limits).
    pub fn with_pacer(mut self, pacer: Pacer) -> Throttle {
        self.pacer = Some(pacer);
        self
    }

    /// Count retries into `retried` (a handle the caller keeps).
    pub fn with_retried(mut self, retried: Retried) -> Throttle {
        self.retried = retried;
        self
    }

    /// The retry counts so far.
    pub fn retried(&self) -> RetryCounts {
        self.retried.counts()
    }

    fn pace(&self) -> std::sync::MutexGuard<'_, Pace> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current limit on cases in flight.
    pub fn limit(&self) -> usize {
        self.pace().limit
    }

    /// How many calls the pool has had answered so far.
    pub fn answered(&self) -> u64 {
        self.pace().answered
    }

    /// How many throttled answers (429/529) the pool has seen.
    pub fn throttled(&self) -> u64 {
        self.pace().throttled_total
    }

    /// Wait for a free place in the pool, then take it (give it back with
    /// [`Throttle::leave`]).
    pub fn enter(&self) {
        let mut pace = self.pace();
        while pace.active >= pace.limit {
            pace = self
                .wake
                .wait_timeout(pace, Duration::from_millis(50))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        pace.active += 1;
    }

    /// Give back a place taken with [`Throttle::enter`].
    pub fn leave(&self) {
        let mut pace = self.pace();
        pace.active = pace.active.saturating_sub(1);
        drop(pace);
        self.wake.notify_all();
    }

    /// Wait out a pool-wide pause, if one is set, then the pacer's turn.
    pub fn wait_turn(&self) {
        let until = self.pace().paused_until;
        if let Some(until) = until {
            let now = Instant::now();
            if until > now {
                std::thread::sleep(until - now);
            }
        }
        if let Some(pacer) = &self.pacer {
            pacer.take_turn();
        }
    }

    /// A throttled answer: pause the pool for `wait`, and halve the limit
    /// unless a pause is already running (one halving per pause).
    fn throttle(&self, wait: Duration) {
        let now = Instant::now();
        let mut pace = self.pace();
        pace.throttled_total += 1;
        pace.streak = 0;
        let already = pace.paused_until.is_some_and(|u| u > now);
        if !already {
            pace.limit = (pace.limit / 2).max(1);
        }
        let until = now + wait;
        if pace.paused_until.is_none_or(|u| u < until) {
            pace.paused_until = Some(until);
        }
        tracing::debug!(
            limit = pace.limit,
            wait_ms = wait.as_millis() as u64,
            "throttled: the pool slows down"
        );
    }

    /// A successful attempt: after as many successes in a row as the
    /// current limit, raise it by one (up to the maximum).
    fn succeeded(&self) {
        let mut pace = self.pace();
        pace.streak += 1;
        pace.answered += 1;
        if pace.limit < self.max && pace.streak >= pace.limit {
            pace.limit += 1;
            pace.streak = 0;
            drop(pace);
            self.wake.notify_all();
        }
    }

    /// A number in [0, 1) for jitter (splitmix64; no clock, no global state).
    fn jitter(&self) -> f64 {
        let mut z = self
            .seed
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Call `attempt` until it succeeds, fails permanently, or the retries run
/// out, pacing with `throttle`. `what` names the call in debug logs (a case
/// id, never payload).
///
/// # Errors
/// The cause of the last failure, word for word (so a recorded reason reads
/// as digline 0.10.0's for the same failure); how many attempts were made
/// is logged at info level. A server asking for a wait over
/// `policy.max_wait`: the cause and [`wait_too_long`]'s sentence.
pub fn retrying<T>(
    policy: &RetryPolicy,
    throttle: &Throttle,
    what: &str,
    mut attempt: impl FnMut() -> Result<T, Failure>,
) -> Result<T, String> {
    let mut retry = 0u32;
    let mut again = 0u32;
    loop {
        throttle.wait_turn();
        match attempt() {
            Ok(value) => {
                throttle.succeeded();
                return Ok(value);
            }
            Err(failure) => {
                let Some(transient) = failure.transient else {
                    return Err(failure.cause);
                };
                // Below the first step (`Retry-After: 0`) is no hint.
                let asked = transient.retry_after.filter(|d| *d >= policy.base);
                // Every retry counts, a throttled one included: the bound
                // is the user's word.
                if retry >= policy.max_retries {
                    if retry > 0 {
                        tracing::info!(
                            call = what,
                            attempts = again + 1,
                            "gave up: the retries ran out"
                        );
                    }
                    return Err(failure.cause);
                }
                if let Some(asked) = asked.filter(|d| *d > policy.max_wait) {
                    throttle.retried.refused_wait();
                    return Err(format!(
                        "{}; {}",
                        failure.cause,
                        wait_too_long("the server", asked, policy.max_wait)
                    ));
                }
                let backoff = policy.backoff(retry);
                let jittered = backoff.mul_f64(0.5 + 0.5 * throttle.jitter());
                let wait = asked.unwrap_or(jittered).min(policy.max_wait);
                throttle.retried.note(again == 0, transient.reason());
                if transient.throttled {
                    throttle.throttle(wait);
                }
                // A throttled call gives its place in the pool back while it
                // waits and takes one again after, so the halved limit bounds
                // the retries too: after a pause, not every waiting call
                // comes back at once.
                let regate = transient.throttled;
                if regate {
                    throttle.leave();
                }
                tracing::debug!(
                    call = what,
                    retry = again + 1,
                    wait_ms = wait.as_millis() as u64,
                    "retrying after a transient failure"
                );
                std::thread::sleep(wait);
                if regate {
                    throttle.enter();
                }
                again += 1;
                retry += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn quick(max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            max_retries,
            base: Duration::from_millis(1),
            cap: Duration::from_millis(4),
            max_wait: Duration::from_secs(1),
        }
    }

    #[test]
    fn backoff_doubles_to_the_cap() {
        let p = RetryPolicy::default();
        let got: Vec<u64> = (0..8).map(|n| p.backoff(n).as_millis() as u64).collect();
        assert_eq!(got, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        assert_eq!(p.backoff(u32::MAX), Duration::from_secs(30));
    }

    #[test]
    fn outcomes() {
        type Row = (u32, Vec<Failure>, Result<u32, &'static str>, u32);
        let t = |c: &str| Failure::transient(c, None, false);
        let p = |c: &str| Failure::permanent(c);
        let rows: Vec<Row> = vec![
            (4, vec![], Ok(1), 1),
            (4, vec![t("a"), t("b")], Ok(3), 3),
            (2, vec![t("a"), t("b"), t("c")], Err("c"), 3),
            (0, vec![t("a")], Err("a"), 1),
            (4, vec![t("a"), p("bad request")], Err("bad request"), 2),
        ];
        for (max, failures, want, calls) in rows {
            let throttle = Throttle::new(4, 7);
            let n = Cell::new(0u32);
            let got = retrying(&quick(max), &throttle, "c", || {
                let i = n.get();
                n.set(i + 1);
                match failures.get(i as usize) {
                    Some(f) => Err(f.clone()),
                    None => Ok(i + 1),
                }
            });
            assert_eq!(got, want.map_err(str::to_string), "{failures:?}");
            assert_eq!(n.get(), calls, "{failures:?}");
        }
    }

    #[test]
    fn retry_after_is_honoured() {
        let throttle = Throttle::new(4, 1);
        let n = Cell::new(0);
        let started = Instant::now();
        let got = retrying(&quick(3), &throttle, "c", || {
            n.set(n.get() + 1);
            if n.get() == 1 {
                Err(Failure::transient(
                    "429",
                    Some(Duration::from_millis(120)),
                    true,
                ))
            } else {
                Ok(())
            }
        });
        assert!(got.is_ok());
        assert!(started.elapsed() >= Duration::from_millis(120));
        assert_eq!(throttle.throttled(), 1);
    }

    /// A 429 asking for a day fails at once, naming the wait and the limit
    /// (0.10.0 and the first Rust releases clamped it to 120 s and retried).
    #[test]
    fn a_wait_over_the_limit_fails_at_once() {
        let throttle = Throttle::new(4, 1);
        let n = Cell::new(0);
        let started = Instant::now();
        let policy = RetryPolicy {
            max_wait: Duration::from_secs(120),
            ..quick(4)
        };
        let got = retrying(&policy, &throttle, "c", || {
            n.set(n.get() + 1);
            Err::<(), _>(Failure::from_status(
                429,
                "h:1 could not be called: HTTP Error 429: Too Many Requests".into(),
                Some(Duration::from_secs(86400)),
            ))
        });
        assert_eq!(
            got.unwrap_err(),
            "h:1 could not be called: HTTP Error 429: Too Many Requests; the server asked for a wait of 86400 s, longer than the longest wait allowed (--max-wait 120 s), so digline did not wait"
        );
        assert_eq!(n.get(), 1);
        assert!(started.elapsed() < Duration::from_secs(1));
        let counts = throttle.retried();
        assert_eq!((counts.calls, counts.waits_refused), (0, 1));
    }

    /// `Retry-After: 0` (or anything below the first step) is no hint: the
    /// retries back off as without one.
    #[test]
    fn a_zero_wait_is_no_hint() {
        let policy = RetryPolicy {
            max_retries: 3,
            base: Duration::from_millis(40),
            cap: Duration::from_secs(1),
            max_wait: Duration::from_secs(120),
        };
        for asked in [Duration::ZERO, Duration::from_millis(10)] {
            let throttle = Throttle::new(4, 1);
            let n = Cell::new(0);
            let started = Instant::now();
            let got = retrying(&policy, &throttle, "c", || {
                n.set(n.get() + 1);
                if n.get() <= 3 {
                    Err(Failure::from_status(429, "429".into(), Some(asked)))
                } else {
                    Ok(())
                }
            });
            assert!(got.is_ok());
            // jittered backoffs of at least 20 + 40 + 80 ms
            assert!(
                started.elapsed() >= Duration::from_millis(140),
                "{asked:?}: {:?}",
                started.elapsed()
            );
        }
    }

    /// No wait is longer than `--max-wait`, the backoff's included.
    #[test]
    fn max_wait_bounds_the_backoff() {
        let policy = RetryPolicy {
            max_retries: 2,
            base: Duration::from_secs(10),
            cap: Duration::from_secs(30),
            max_wait: Duration::from_millis(20),
        };
        let throttle = Throttle::new(4, 1);
        let started = Instant::now();
        let got = retrying(&policy, &throttle, "c", || {
            Err::<(), _>(Failure::transient("reset", None, false))
        });
        assert_eq!(got.unwrap_err(), "reset");
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn retries_are_counted_by_reason() {
        let throttle = Throttle::new(4, 1);
        let fails = [
            Failure::from_status(429, "a".into(), None),
            Failure::from_status(503, "b".into(), None),
            Failure::transient("c", None, false),
        ];
        let n = Cell::new(0usize);
        let got = retrying(&quick(4), &throttle, "c", || {
            let i = n.get();
            n.set(i + 1);
            fails.get(i).cloned().map_or(Ok(()), Err)
        });
        assert!(got.is_ok());
        let n = Cell::new(0usize);
        let _ = retrying(&quick(4), &throttle, "d", || {
            n.set(n.get() + 1);
            if n.get() == 1 {
                Err(Failure::from_status(429, "a".into(), None))
            } else {
                Ok(())
            }
        });
        let counts = throttle.retried();
        assert_eq!(counts.calls, 2);
        assert_eq!(counts.total(), 4);
        assert_eq!(
            counts.sentence().unwrap(),
            "2 call(s) were tried again (4 retries: rate_limited 2, server_error 1, connection 1)"
        );
        assert_eq!(RetryCounts::default().sentence(), None);
        assert_eq!(seconds_text(Duration::from_millis(250)), "0.25 s");
        assert_eq!(seconds_text(Duration::from_secs(60)), "60 s");
    }

    /// `--max-retries` bounds every call: a 429 refused while the pool
    /// gets answers uses up a retry like any other (before, such refusals
    /// were free: 6 attempts of one call against `--max-retries 1`).
    #[test]
    fn refusals_while_others_are_answered_use_up_retries_too() {
        for max_retries in [0u32, 1, 4] {
            let throttle = Throttle::new(4, 1);
            let n = Cell::new(0);
            let got = retrying(&quick(max_retries), &throttle, "c", || {
                n.set(n.get() + 1);
                // another call of the pool was answered meanwhile
                throttle.succeeded();
                Err::<(), _>(Failure::from_status(
                    429,
                    "429".into(),
                    Some(Duration::from_millis(2)),
                ))
            });
            assert_eq!(got.unwrap_err(), "429");
            assert_eq!(n.get(), max_retries + 1);
            assert_eq!(throttle.retried().total(), u64::from(max_retries));
        }
    }

    #[test]
    fn the_pool_slows_down_and_recovers() {
        let throttle = Throttle::new(8, 3);
        throttle.throttle(Duration::from_millis(200));
        assert_eq!(throttle.limit(), 4);
        // a second 429 inside the same pause does not halve again
        throttle.throttle(Duration::from_millis(1));
        assert_eq!(throttle.limit(), 4);
        std::thread::sleep(Duration::from_millis(210));
        throttle.throttle(Duration::from_millis(1));
        assert_eq!(throttle.limit(), 2);
        std::thread::sleep(Duration::from_millis(5));
        throttle.throttle(Duration::from_millis(1));
        assert_eq!(throttle.limit(), 1);
        for _ in 0..40 {
            throttle.succeeded();
        }
        assert_eq!(throttle.limit(), 8);
        for _ in 0..1000 {
            let j = throttle.jitter();
            assert!((0.0..1.0).contains(&j));
        }
    }
}
