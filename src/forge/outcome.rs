//! The gate's machine-readable outcome (`outcome.json`): what `publish`
//! reads, what the Action's outputs come from.
//!
//! Verdict-only, like everything the gate writes: names, keys, counts, the
//! headline sentence (composed from facts), paths — never an output, a
//! reason, a case's vars or the run's metadata.
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `output_version` | int | [`crate::wire::OUTPUT_VERSION`] |
//! | `exit_code` | int | the contract code the gate exited with |
//! | `outcome` | string | one of the five [`Kind`]s (`nothing_got_worse`, …) |
//! | `no_baseline` | bool | no baseline was found: no verdict (exit 64) |
//! | `headline` | string | the headline sentence (do not parse) |
//! | `tenant`, `suite`, `suite_path`, `root` | string | which suite |
//! | `run_key`, `baseline_key`, `baseline_path` | string or null | the two documents |
//! | `counts` | object | outcome (or, with no baseline, status) → int, in checks |
//! | `cases` | object | how the cases fared, in the headline's words (`got_worse`, `could_not_be_judged`, `stayed_the_same`, `set_aside`, …; with no baseline `fell_short`, `met_every_bar`, …) → int |
//! | `causes` | object | why checks could not be judged: cause category (`http_status`, `timeout`, …) → int |
//! | `spent_usd` | object | `target`, `reference_target`, `judges`, `reference_judges`: spend in USD as the runs recorded it (`null` when not recorded) |
//! | `spent` | object or null | this run's spend record: `target` and `judges`, each `calls` (answered), `sent` (every request: retries and re-asks that could not be judged included), `usd`, `input_tokens`, `output_tokens` (`null` when not reported); `cases_asked`; `memo` (`hits`, `misses`, `saved_usd`) when the judge memo was asked; `max_usd` and `budget_exhausted` under a spending cap, and `overbilled` (`calls`, `usd`) when a call was billed over its reservation |
//! | `reference_spent` | object or null | the reference's, carried to it on promote |
//! | `locale` | string | the language the comment, summary and report were written in |
//! | `marker` | string | the hidden marker that finds the comment again |
//! | `evaluation_changes` | int | changes to `[suite]`, `[target]`, the cases and the store root against the base (0 without one) |
//! | `unverified_knobs` | array, absent with a readable base | when the base could not be read (a shallow clone): each knob the pull request's suite declares (`false_alarm_rate`, `samples`, `min_agreement`, thresholds, tolerances) as `knob` (`[suite] false_alarm_rate`, `[[assertions]] helpful threshold`) and `value`, none verified against the base |
//! | `baseline_changed` | bool or null | the pull request replaces the baseline file (read at the base ref); `null`: no base could be read |
//! | `paths` | object | `outcome`, `comment`, `summary`, `junit`, `report` (null until the HTML report exists) |
//! | `judges` | list, absent without anchors | one object per judged check read on its judge anchors: `check`, `coordinate`, `reference_coordinate`, `reading` (`steady`, `renamed`, `moved`, `unproven`), `gates`, `anchors`, `lost`, `gained`, `shift`, `moved_low`, `moved_high`, `p`, `detectable`, `changed` (identity field names), `kappa`, `kappa_low`, `kappa_high`, `labels_needed` (numbers or null) |
//! | `retries` | object, absent with `--run` | when the gate ran the suite: `calls` (calls tried more than once), retries by reason (`rate_limited`, `server_error`, `connection`) and `waits_refused` (calls failed at once: the asked wait was over `--max-wait`); counts only |

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::core::exit::ExitStatus;
use crate::core::spend::Spend;

/// The five things a gate can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Exit 0.
    NothingGotWorse,
    /// Exit 1.
    SomethingGotWorse,
    /// Exit 2.
    CouldNotBeJudged,
    /// Exit 64 (including "no baseline").
    Refused,
    /// Exit 70, or any code that is not digline's.
    InternalError,
}

impl Kind {
    /// The kind for an exit status.
    pub fn of(status: ExitStatus) -> Kind {
        match status {
            ExitStatus::Proceed => Kind::NothingGotWorse,
            ExitStatus::Worse => Kind::SomethingGotWorse,
            ExitStatus::Unjudged => Kind::CouldNotBeJudged,
            ExitStatus::Refused => Kind::Refused,
            ExitStatus::Internal => Kind::InternalError,
        }
    }

    /// The kind for a process exit code (one digline never exits with
    /// reads as an internal error).
    pub fn of_code(code: i32) -> Kind {
        ExitStatus::of_code(code).map_or(Kind::InternalError, Kind::of)
    }

    /// The annotation title: names the outcome (tests grep these).
    pub fn title(self) -> &'static str {
        match self {
            Kind::NothingGotWorse => "digline: nothing got worse",
            Kind::SomethingGotWorse => "digline: something got worse",
            Kind::CouldNotBeJudged => "digline: the run could not be judged",
            Kind::Refused => "digline refused the request (exit 64)",
            Kind::InternalError => "digline: internal error (exit 70)",
        }
    }

    /// `::notice` for 0, `::error` otherwise.
    pub fn is_error(self) -> bool {
        self != Kind::NothingGotWorse
    }
}

/// Where the gate wrote its files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paths {
    /// `outcome.json`.
    pub outcome: String,
    /// `comment.md`.
    pub comment: String,
    /// `summary.md`.
    pub summary: String,
    /// `junit.xml`.
    pub junit: String,
    /// `report.html`, once the HTML report exists; `null` until then.
    pub report: Option<String>,
}

/// The outcome file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The shape's version.
    pub output_version: u32,
    /// The contract exit code.
    pub exit_code: i32,
    /// Which of the five outcomes.
    pub outcome: Kind,
    /// No baseline was found: the run is rendered on its own, exit 64.
    pub no_baseline: bool,
    /// The headline sentence.
    pub headline: String,
    /// The suite's tenant.
    pub tenant: String,
    /// The suite's name.
    pub suite: String,
    /// The suite file as given.
    pub suite_path: String,
    /// The root as given.
    pub root: String,
    /// The run's key.
    pub run_key: Option<String>,
    /// The baseline's run key.
    pub baseline_key: Option<String>,
    /// Where the baseline is (or was looked for).
    pub baseline_path: Option<String>,
    /// Tallies: the six comparison outcomes, or with no baseline pass/fail/error/suspended.
    pub counts: BTreeMap<String, usize>,
    /// How the cases fared, in the headline's words.
    #[serde(default)]
    pub cases: BTreeMap<String, usize>,
    /// Checks that could not be judged, by cause category.
    #[serde(default)]
    pub causes: BTreeMap<String, usize>,
    /// What the target spent, in USD, in this run and in the reference
    /// (`null` when a run did not record it).
    #[serde(default)]
    pub spent_usd: BTreeMap<String, Option<f64>>,
    /// What this run spent, the target's and the judges' (USD, tokens,
    /// calls), when recorded.
    #[serde(default)]
    pub spent: Option<Spend>,
    /// What the reference spent, when recorded.
    #[serde(default)]
    pub reference_spent: Option<Spend>,
    /// The language of the comment, summary and report (`en`, `it`, …).
    #[serde(default = "english")]
    pub locale: String,
    /// The hidden marker of this (root, tenant, suite)'s comment.
    pub marker: String,
    /// The pull request replaces the baseline file: `true` / `false` as
    /// read at the base ref, `null` when no base could be read (unknown,
    /// never `false`).
    #[serde(default)]
    pub baseline_changed: Option<bool>,
    /// How many changes to what is evaluated (`[suite]`, `[target]`, the
    /// cases) the pull request makes against its base; 0 without a base.
    #[serde(default)]
    pub evaluation_changes: usize,
    /// With a base that could not be read: the knobs the pull request's
    /// suite declares (`false_alarm_rate`, `samples`, `min_agreement`,
    /// thresholds, tolerances), none verified against the base. Absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unverified_knobs: Vec<UnverifiedKnob>,
    /// The files written.
    pub paths: Paths,
    /// Retry counts of the run the gate made (absent when it gated a stored run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<BTreeMap<String, u64>>,
    /// Each judge read on its anchors (`wire::compare::judges_json`); absent
    /// when neither the run nor the reference graded anchors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judges: Vec<serde_json::Value>,
}

/// One knob of `unverified_knobs`: where it is declared and its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnverifiedKnob {
    /// `[suite] false_alarm_rate`, `[[assertions]] helpful threshold`.
    pub knob: String,
    /// The value as the suite wrote it.
    pub value: String,
}

/// The `retries` object: every key present, zeros included.
pub fn retry_counts(counts: &crate::run::retry::RetryCounts) -> BTreeMap<String, u64> {
    use crate::client::failure::RetryReason;
    let mut out = BTreeMap::new();
    out.insert("calls".to_string(), counts.calls);
    for reason in [
        RetryReason::RateLimited,
        RetryReason::ServerError,
        RetryReason::Connection,
    ] {
        let n = counts.retries.get(&reason).copied().unwrap_or(0);
        out.insert(reason.as_str().to_string(), n);
    }
    out.insert("waits_refused".to_string(), counts.waits_refused);
    out
}

fn english() -> String {
    "en".to_string()
}

impl Outcome {
    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_string());
        text.push('\n');
        text
    }

    /// Parse an outcome file.
    ///
    /// # Errors
    /// The parser's sentence when the text is not an outcome file.
    pub fn from_json(text: &str) -> Result<Outcome, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// Check the recorded `marker` against the one digline computes for
    /// the recorded root, tenant and suite ([`super::marker`]): the
    /// comment found (and overwritten) by an empty or foreign marker
    /// could be anyone's.
    ///
    /// # Errors
    /// A sentence naming what the marker should have been computed from.
    pub fn check_marker(&self) -> Result<(), String> {
        let expected = super::marker(&self.root, &self.tenant, &self.suite);
        if self.marker == expected {
            Ok(())
        } else {
            Err(format!(
                "its marker is not the one digline computes for root '{}', tenant '{}' and \
                 suite '{}', and a marker that does not match could find and overwrite another \
                 comment, so nothing was published",
                self.root, self.tenant, self.suite
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_kinds_five_titles() {
        let titles: std::collections::BTreeSet<_> = [0, 1, 2, 64, 70]
            .iter()
            .map(|c| Kind::of_code(*c).title())
            .collect();
        assert_eq!(titles.len(), 5);
        assert_eq!(Kind::of_code(137), Kind::InternalError);
        assert!(!Kind::of_code(0).is_error());
    }
}
