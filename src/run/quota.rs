//! A declared quota (`--rate`) and the pacer that keeps a run inside it.
//!
//! `--rate 600` allows 600 requests per minute; `--rate 600rpm,90000tpm`
//! also 90,000 tokens per minute (counted from the providers' `usage`);
//! `--rate 90000tpm` tokens only. The [`Pacer`] spreads calls evenly: call
//! *n* starts no earlier than *n* · 60 s / rpm after the first (retries and
//! judge calls included: every attempt takes a turn), and no call starts
//! while the tokens spent exceed what the minutes so far allow. A server
//! that reports a quota window with nothing left (`x-ratelimit-remaining-*:
//! 0`, `anthropic-ratelimit-*-remaining: 0`) holds every call until that
//! window's reset ([`crate::client::rate_limits::Meter`]).
//!
//! Shards share one quota: under `--shard K/N` each shard paces itself to
//! [`Quota::share`] — an N-th of each rate — so N jobs on one API key stay
//! inside the key's limit together. Processes on one machine that call
//! with the same key at the same rate (several suites on one runner) take
//! their turns from one bucket in a file ([`super::shared_quota`]), so
//! together they stay inside it too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::shared_quota::SharedQuota;
use crate::client::rate_limits::Meter;

/// Requests and tokens per minute; `None` is unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quota {
    /// Requests per minute.
    pub requests_per_minute: Option<f64>,
    /// Tokens per minute (input and output together).
    pub tokens_per_minute: Option<f64>,
}

impl Quota {
    /// True when nothing is limited.
    pub fn is_unlimited(&self) -> bool {
        self.requests_per_minute.is_none() && self.tokens_per_minute.is_none()
    }

    /// Shard `shard` of `shards`' part of this quota: each rate divided by
    /// `shards` (the parts add up to the whole). `shard` is 1-based and
    /// only checked to be in range: every shard gets the same part.
    ///
    /// # Panics
    /// Never; `shards` of 0 is read as 1.
    pub fn share(self, shard: u32, shards: u32) -> Quota {
        debug_assert!(shard >= 1 && shard <= shards.max(1));
        let n = f64::from(shards.max(1));
        Quota {
            requests_per_minute: self.requests_per_minute.map(|r| r / n),
            tokens_per_minute: self.tokens_per_minute.map(|t| t / n),
        }
    }

    /// Read `--rate`: `N` or `Nrpm` (requests per minute), `Ntpm` (tokens
    /// per minute), or both joined by a comma.
    ///
    /// # Errors
    /// A sentence naming the value and the accepted forms.
    pub fn parse(text: &str) -> Result<Quota, String> {
        let bad = || {
            format!(
                "--rate '{text}' is not a rate: write requests per minute (600 or 600rpm), tokens per minute (90000tpm), or both (600rpm,90000tpm), each a number above 0"
            )
        };
        let mut quota = Quota::default();
        for part in text.split(',') {
            let part = part.trim();
            let (number, tokens) = if let Some(n) = part.strip_suffix("tpm") {
                (n, true)
            } else {
                (part.strip_suffix("rpm").unwrap_or(part), false)
            };
            let value: f64 = number.trim().parse().map_err(|_| bad())?;
            if !value.is_finite() || value <= 0.0 {
                return Err(bad());
            }
            let slot = if tokens {
                &mut quota.tokens_per_minute
            } else {
                &mut quota.requests_per_minute
            };
            if slot.replace(value).is_some() {
                return Err(bad());
            }
        }
        Ok(quota)
    }
}

/// Keeps the calls of one run inside a [`Quota`] and the servers' own
/// reported limits. Shared by the pool's workers.
#[derive(Debug)]
pub struct Pacer {
    quota: Quota,
    meters: Vec<Arc<Meter>>,
    state: Mutex<Turns>,
    shared: Option<Arc<SharedQuota>>,
    /// Tokens already added to the shared bucket.
    flushed: AtomicU64,
    /// The longest wait (`--max-wait`): a shared bucket asking for more is
    /// not believed, and this process paces alone.
    max_wait: Duration,
    /// Set once the shared bucket asked for more than `max_wait`.
    alone: AtomicBool,
}

#[derive(Debug)]
struct Turns {
    started: Option<Instant>,
    next: Option<Instant>,
}

impl Pacer {
    /// A pacer for `quota`, watching what `meters` (the target's and the
    /// judges' clients) report.
    pub fn new(quota: Quota, meters: Vec<Arc<Meter>>) -> Pacer {
        Pacer {
            quota,
            meters,
            state: Mutex::new(Turns {
                started: None,
                next: None,
            }),
            shared: None,
            flushed: AtomicU64::new(0),
            max_wait: super::retry::DEFAULT_MAX_WAIT,
            alone: AtomicBool::new(false),
        }
    }

    /// Never wait on the shared bucket longer than `max_wait` (`--max-wait`).
    #[must_use]
    pub fn with_max_wait(mut self, max_wait: Duration) -> Pacer {
        self.max_wait = max_wait;
        self
    }

    /// Take turns from `shared` (other processes' too) instead of this
    /// process's own grid.
    #[must_use]
    pub fn with_shared(mut self, shared: Option<Arc<SharedQuota>>) -> Pacer {
        self.shared = shared;
        self
    }

    /// The wait the servers asked every call to hold for, if any.
    fn held(&self, now: Instant) -> Option<Duration> {
        self.meters
            .iter()
            .filter_map(|m| m.held_until())
            .max()
            .filter(|h| *h > now)
            .map(|h| h - now)
    }

    /// How long to wait before the next call may start, taking its turn
    /// if it may start now (`Duration::ZERO`). `now` is the clock.
    pub fn turn_at(&self, now: Instant) -> Duration {
        if let Some(held) = self.held(now) {
            return held;
        }
        let mut turns = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let started = *turns.started.get_or_insert(now);
        if let Some(tpm) = self.quota.tokens_per_minute {
            let spent: u64 = self.meters.iter().map(|m| m.tokens()).sum();
            let allowed = tpm * now.duration_since(started).as_secs_f64() / 60.0;
            let over = spent as f64 - allowed;
            if over > 0.0 {
                return Duration::from_secs_f64(over * 60.0 / tpm);
            }
        }
        if let Some(rpm) = self.quota.requests_per_minute {
            let every = Duration::from_secs_f64(60.0 / rpm);
            let next = turns.next.unwrap_or(now);
            if next > now {
                return next - now;
            }
            // Late by less than a turn (a sleep overshoots): keep the
            // grid, so the rate does not drift down; idle for longer:
            // start again from now, banking no burst.
            let base = if now - next < every { next } else { now };
            turns.next = Some(base + every);
        }
        Duration::ZERO
    }

    /// Wait for this call's turn.
    pub fn take_turn(&self) {
        if self.quota.is_unlimited() && self.meters.is_empty() {
            return;
        }
        loop {
            let shared = self
                .shared
                .as_ref()
                .filter(|_| !self.alone.load(Ordering::SeqCst));
            let wait = match (shared, self.held(Instant::now())) {
                (_, Some(held)) => held,
                (Some(shared), None) => {
                    // Only what the answered calls reported: an estimate
                    // in flight is this process's own business.
                    let spent: u64 = self.meters.iter().map(|m| m.reported()).sum();
                    let delta = spent.saturating_sub(self.flushed.swap(spent, Ordering::SeqCst));
                    match shared.turn(delta) {
                        Some(wait) if wait <= self.max_wait => wait,
                        Some(wait) => {
                            // Longer than the user allows any wait to be:
                            // the bucket is not believed, this process paces
                            // alone from here on.
                            tracing::warn!(
                                bucket = %shared.path().display(),
                                wait_s = wait.as_secs(),
                                "the shared quota asked for a wait longer than --max-wait; pacing alone"
                            );
                            self.alone.store(true, Ordering::SeqCst);
                            self.turn_at(Instant::now())
                        }
                        None => self.turn_at(Instant::now()),
                    }
                }
                (None, None) => self.turn_at(Instant::now()),
            };
            if wait.is_zero() {
                return;
            }
            std::thread::sleep(wait);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse() {
        let rows: &[(&str, Option<f64>, Option<f64>)] = &[
            ("600", Some(600.0), None),
            ("600rpm", Some(600.0), None),
            ("0.5", Some(0.5), None),
            ("90000tpm", None, Some(90000.0)),
            ("600rpm,90000tpm", Some(600.0), Some(90000.0)),
            (" 90000tpm , 600 ", Some(600.0), Some(90000.0)),
        ];
        for (text, rpm, tpm) in rows {
            let q = Quota::parse(text).unwrap();
            assert_eq!(
                (q.requests_per_minute, q.tokens_per_minute),
                (*rpm, *tpm),
                "{text}"
            );
        }
        for text in [
            "",
            "0",
            "-5",
            "fast",
            "10rps",
            "1rpm,2rpm",
            "inf",
            "NaN",
            "5tpm,",
        ] {
            assert_eq!(
                Quota::parse(text).unwrap_err(),
                format!("--rate '{text}' is not a rate: write requests per minute (600 or 600rpm), tokens per minute (90000tpm), or both (600rpm,90000tpm), each a number above 0"),
            );
        }
    }

    #[test]
    fn shards_split_the_quota() {
        let whole = Quota {
            requests_per_minute: Some(600.0),
            tokens_per_minute: Some(90_000.0),
        };
        for shards in 1..=7u32 {
            let parts: Vec<Quota> = (1..=shards).map(|k| whole.share(k, shards)).collect();
            let rpm: f64 = parts.iter().map(|q| q.requests_per_minute.unwrap()).sum();
            let tpm: f64 = parts.iter().map(|q| q.tokens_per_minute.unwrap()).sum();
            assert!((rpm - 600.0).abs() < 1e-9, "{shards}");
            assert!((tpm - 90_000.0).abs() < 1e-6, "{shards}");
        }
        assert_eq!(whole.share(2, 4).requests_per_minute, Some(150.0));
        assert_eq!(Quota::default().share(1, 4), Quota::default());
    }

    /// A shared bucket dated ahead never holds a call past `--max-wait`:
    /// the turn comes from this process's own grid.
    #[test]
    fn a_shared_wait_over_max_wait_is_not_waited() {
        let dir = tempfile::tempdir().unwrap();
        let quota = Quota::parse("60").unwrap();
        let shared = Arc::new(SharedQuota::new(dir.path(), "e", quota));
        let pacer = Pacer::new(quota, Vec::new())
            .with_shared(Some(Arc::clone(&shared)))
            .with_max_wait(Duration::from_millis(300));
        // Another process took a turn: the next one is a second away.
        assert_eq!(shared.turn(0), Some(Duration::ZERO));
        let started = Instant::now();
        pacer.take_turn();
        assert!(
            started.elapsed() < Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
    }

    /// Turns at 600 rpm are 100 ms apart, whoever asks.
    #[test]
    fn requests_are_spread_evenly() {
        let pacer = Pacer::new(
            Quota {
                requests_per_minute: Some(600.0),
                tokens_per_minute: None,
            },
            Vec::new(),
        );
        let t0 = Instant::now();
        assert_eq!(pacer.turn_at(t0), Duration::ZERO);
        assert_eq!(pacer.turn_at(t0), Duration::from_millis(100));
        assert_eq!(
            pacer.turn_at(t0 + Duration::from_millis(40)),
            Duration::from_millis(60)
        );
        assert_eq!(
            pacer.turn_at(t0 + Duration::from_millis(100)),
            Duration::ZERO
        );
        assert_eq!(
            pacer.turn_at(t0 + Duration::from_millis(100)),
            Duration::from_millis(100)
        );
        // an idle pacer does not bank turns for a burst later
        let later = t0 + Duration::from_secs(10);
        assert_eq!(pacer.turn_at(later), Duration::ZERO);
        assert_eq!(pacer.turn_at(later), Duration::from_millis(100));
    }

    /// A pacer of 6000 tokens a minute (100 a second) over one meter.
    fn paced_at_6000_tpm() -> (Arc<Meter>, Pacer) {
        let meter = Arc::new(Meter::default());
        let pacer = Pacer::new(
            Quota {
                requests_per_minute: None,
                tokens_per_minute: Some(6000.0),
            },
            vec![Arc::clone(&meter)],
        );
        (meter, pacer)
    }

    #[test]
    fn tokens_are_spread_evenly() {
        let (meter, pacer) = paced_at_6000_tpm();
        let t0 = Instant::now();
        assert_eq!(pacer.turn_at(t0), Duration::ZERO);
        // 6000 tpm is 100 tokens a second: 250 spent waits 2.5 s
        meter.spent(250);
        assert_eq!(pacer.turn_at(t0), Duration::from_millis(2500));
        assert_eq!(
            pacer.turn_at(t0 + Duration::from_secs(1)),
            Duration::from_millis(1500)
        );
        assert_eq!(
            pacer.turn_at(t0 + Duration::from_millis(2500)),
            Duration::ZERO
        );
    }

    /// Calls in flight count by their estimate before any usage comes
    /// back, so parallel calls do not all start under a small `tpm`.
    #[test]
    fn calls_in_flight_count_by_their_estimate() {
        let (meter, pacer) = paced_at_6000_tpm();
        let t0 = Instant::now();
        assert_eq!(pacer.turn_at(t0), Duration::ZERO);
        meter.sending(200);
        assert_eq!(
            pacer.turn_at(t0),
            Duration::from_secs(2),
            "the next call waits"
        );
        // Answered: the estimate goes, the real usage counts instead.
        meter.settled(200);
        meter.spent(100);
        assert_eq!(pacer.turn_at(t0), Duration::from_secs(1));
        assert_eq!((meter.tokens(), meter.reported()), (100, 100));
        meter.settled(5);
        assert_eq!(meter.tokens(), 100, "never below what was reported");
    }

    #[test]
    fn an_exhausted_window_holds_every_call() {
        use crate::client::rate_limits::RateLimits;
        let meter = Arc::new(Meter::default());
        let pacer = Pacer::new(Quota::default(), vec![Arc::clone(&meter)]);
        let t0 = Instant::now();
        assert_eq!(pacer.turn_at(t0), Duration::ZERO);
        let limits = RateLimits::read(
            &|name| match name {
                "x-ratelimit-remaining-requests" => Some("0".into()),
                "x-ratelimit-reset-requests" => Some("1.5s".into()),
                _ => None,
            },
            std::time::SystemTime::now(),
        );
        meter.saw(&limits, t0);
        assert_eq!(pacer.turn_at(t0), Duration::from_millis(1500));
        assert_eq!(
            pacer.turn_at(t0 + Duration::from_millis(1500)),
            Duration::ZERO
        );
    }
}
