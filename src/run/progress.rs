//! Progress while a run is under way.
//!
//! On a terminal: a progress bar (indicatif, drawn on stderr; the front end
//! chooses it only when stderr is a terminal). In CI logs: one plain line at
//! most every few seconds and one at the end, handed to the front end as a
//! [`Notice::Progress`] (the command line prints `digline: 40/200 cases,
//! 1 errored, 12.3 s, target $0.004210, judges $0.000900`). Quiet (`-q`):
//! nothing. Lines carry counts, time and money only — never payload, never
//! a secret — in the notices' locale ([`crate::report::progress`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::notice::{Notice, Notifier};
use crate::core::failed_calls::FailedCalls;
use crate::core::spend::Spend;
use crate::report::progress::{LineCounts, ProgressStrings};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    /// A bar on a terminal.
    Bar,
    /// A plain line at most every `every` (CI logs, pipes).
    Lines {
        /// The least time between two lines.
        every: Duration,
    },
    /// Nothing (`-q`, or tests).
    Quiet,
}

#[derive(Debug, Default)]
struct Money {
    target_usd: f64,
    judge_usd: f64,
    judge_calls: u64,
    judge_unpriced: u64,
    spend: Spend,
    last_line: Option<Instant>,
}

/// Counts what the run has done; shared by the workers.
#[derive(Debug)]
pub struct Progress {
    display: Display,
    total: usize,
    done: AtomicUsize,
    errored: AtomicUsize,
    money: Mutex<Money>,
    started: Instant,
    bar: Option<ProgressBar>,
    notices: Notifier,
    failed: Mutex<FailedCalls>,
}

/// The totals at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Totals {
    /// Cases asked.
    pub done: usize,
    /// Cases with at least one `error` verdict.
    pub errored: usize,
    /// Target spend, USD (calls that reported a cost).
    pub target_usd: f64,
    /// Judge spend, USD (priced judge calls): never part of a budget.
    pub judge_usd: f64,
    /// Judge calls that answered.
    pub judge_calls: u64,
    /// Judge calls whose model has no price.
    pub judge_unpriced: u64,
    /// Money and tokens by party, as recorded beside the run document.
    pub spend: Spend,
}

impl Progress {
    /// Progress over `total` cases; lines go to `notices`.
    pub fn new(total: usize, display: Display, notices: Notifier) -> Progress {
        let words = ProgressStrings::of(notices.locale());
        let bar = (display == Display::Bar).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            // The unit is a translated word: braces in it would be read as
            // indicatif's placeholders, so they are dropped.
            let unit: String = words
                .bar_unit
                .chars()
                .filter(|c| !"{}".contains(*c))
                .collect();
            if let Ok(style) = ProgressStyle::with_template(&format!(
                "{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit} {{msg}}"
            )) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            display,
            total,
            done: AtomicUsize::new(0),
            errored: AtomicUsize::new(0),
            money: Mutex::new(Money::default()),
            started: Instant::now(),
            bar,
            notices,
            failed: Mutex::new(FailedCalls::default()),
        }
    }

    /// Case `case_id`'s call to the target failed after `elapsed_ms`.
    pub fn call_failed(&self, case_id: &str, elapsed_ms: u64) {
        self.failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed_ms
            .insert(case_id.to_string(), elapsed_ms);
    }

    /// The failed target calls so far.
    pub fn failed_calls(&self) -> FailedCalls {
        self.failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn money(&self) -> std::sync::MutexGuard<'_, Money> {
        self.money.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A judge call answered; `cost_usd` is `None` for an unpriced model,
    /// `tokens` (input, output) when the provider reported them.
    pub fn judge_spent(&self, cost_usd: Option<f64>, tokens: Option<(u64, u64)>) {
        let mut m = self.money();
        m.spend.judges.add(cost_usd, tokens);
        m.judge_calls += 1;
        match cost_usd {
            Some(c) => m.judge_usd += c,
            None => m.judge_unpriced += 1,
        }
    }

    /// A request was sent to the target (an attempt: a retry counts again).
    pub fn target_sent(&self) {
        self.money().spend.target.sent += 1;
    }

    /// A case's first request was sent to the target.
    pub fn case_sent(&self) {
        self.money().spend.cases_asked += 1;
    }

    /// A request was sent to a judge (an attempt: a retry counts again).
    pub fn judge_sent(&self) {
        self.money().spend.judges.sent += 1;
    }

    /// The target answered one call (not a replayed one): its cost and
    /// tokens, when reported, for the run's spend record.
    pub fn target_answered(&self, cost_usd: Option<f64>, tokens: Option<(u64, u64)>) {
        self.money().spend.target.add(cost_usd, tokens);
    }

    /// A case is finished (all its samples and judges).
    pub fn case_done(&self, errored: bool, target_cost_usd: f64) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        if errored {
            self.errored.fetch_add(1, Ordering::SeqCst);
        }
        let mut m = self.money();
        m.target_usd += target_cost_usd;
        match self.display {
            Display::Quiet => {}
            Display::Bar => {
                if let Some(bar) = &self.bar {
                    bar.set_position(done as u64);
                    bar.set_message(ProgressStrings::of(self.notices.locale()).bar(
                        self.errored.load(Ordering::SeqCst),
                        m.target_usd,
                        m.judge_usd,
                    ));
                }
            }
            Display::Lines { every } => {
                let now = Instant::now();
                let last = m.last_line.unwrap_or(self.started);
                let due = now.duration_since(last) >= every && done < self.total;
                if due {
                    m.last_line = Some(now);
                    let totals = self.totals_with(&m);
                    drop(m);
                    self.notices.send(Notice::Progress(self.line(&totals)));
                }
            }
        }
    }

    fn totals_with(&self, m: &Money) -> Totals {
        Totals {
            done: self.done.load(Ordering::SeqCst),
            errored: self.errored.load(Ordering::SeqCst),
            target_usd: m.target_usd,
            judge_usd: m.judge_usd,
            judge_calls: m.judge_calls,
            judge_unpriced: m.judge_unpriced,
            spend: m.spend,
        }
    }

    /// The totals so far.
    pub fn totals(&self) -> Totals {
        let m = self.money();
        self.totals_with(&m)
    }

    /// `40/200 cases, 1 errored, 12.3 s, target $0.004210, judges $0.000900`,
    /// in the notices' locale.
    pub fn line(&self, t: &Totals) -> String {
        ProgressStrings::of(self.notices.locale()).line(&LineCounts {
            done: t.done,
            total: self.total,
            errored: t.errored,
            seconds: self.started.elapsed().as_secs_f64(),
            target_usd: t.target_usd,
            judge_usd: t.judge_usd,
            judge_calls: t.judge_calls,
            judge_unpriced: t.judge_unpriced,
        })
    }

    /// End the display: clear the bar, print the last line (not when quiet).
    pub fn finish(&self) -> Totals {
        let totals = self.totals();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if self.display != Display::Quiet {
            self.notices.send(Notice::Progress(self.line(&totals)));
        }
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_lines() {
        let p = Progress::new(3, Display::Quiet, Notifier::silent());
        p.case_done(false, 0.001);
        p.judge_spent(Some(0.0005), Some((100, 20)));
        p.judge_spent(None, None);
        p.case_done(true, 0.0);
        let t = p.totals();
        assert_eq!(
            (t.done, t.errored, t.judge_calls, t.judge_unpriced),
            (2, 1, 2, 1)
        );
        let line = p.line(&t);
        assert!(line.starts_with("2/3 cases, 1 errored, "), "{line}");
        assert!(
            line.ends_with(
                "target $0.001000, judges $0.000500 (1 unpriced judge calls not counted)"
            ),
            "{line}"
        );
        let q = Progress::new(1, Display::Quiet, Notifier::silent());
        assert!(!q.line(&q.totals()).contains("judges"));
    }

    #[test]
    fn lines_go_to_the_front_ends_sink_and_quiet_sends_none() {
        use crate::run::notice::Collected;
        use std::sync::Arc;
        let sink = Arc::new(Collected::default());
        let every = Duration::ZERO;
        let p = Progress::new(2, Display::Lines { every }, Notifier::new(sink.clone()));
        p.case_done(false, 0.0);
        p.case_done(true, 0.0);
        p.finish();
        let lines: Vec<String> = sink
            .taken()
            .into_iter()
            .map(|n| match n {
                Notice::Progress(line) => line,
                other => panic!("not a progress line: {other:?}"),
            })
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("1/2 cases, 0 errored, "), "{lines:?}");
        assert!(lines[1].starts_with("2/2 cases, 1 errored, "), "{lines:?}");
        let quiet = Arc::new(Collected::default());
        let q = Progress::new(1, Display::Quiet, Notifier::new(quiet.clone()));
        q.case_done(false, 0.0);
        q.finish();
        assert!(quiet.taken().is_empty());
    }
}
