//! The history a CI keeps of its base branch's gates: one compact line per
//! gate, what each flagged check did across them, and the references that
//! history shows to be lucky.
//!
//! A line holds no payload: when, the commit, the reference it was judged
//! against (`created_at` and config hash), the run's config hash, the exit
//! code, what the gate spent, per check the number of pairs judged and
//! passed, and only the pairs that did not pass (case, check, `f` failed or
//! `e` not judged, and the re-asks made and failed). A suite of 10,000
//! cases whose 2 % fail writes ≈ 8 KB a gate, not 10,000 entries.
//!
//! History informs, it never decides: nothing here is read by the exit
//! code. A line that fails its own checks (not JSON of this format, another
//! reference, another config hash, dated in the future or before its
//! reference) is skipped and counted, so the file a pull request could
//! touch cannot make a check look steadier than it was without it showing.
//!
//! Pure: the clock is passed in.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::core::compare::reask::{measured, ReaskRecord};
use crate::core::document::RunDocument;
use crate::core::verdict::Status;

/// The line format's version.
pub const FORMAT: u32 = 1;

/// How many gates a history keeps when the suite does not say.
pub const DEFAULT_KEEP: usize = 200;

/// How far in the future a line may be dated (clock skew between runners).
pub const SKEW_SECONDS: i64 = 300;

/// The most re-asks a gate makes of one check (the rule's cap is 12; a
/// line claiming more was not written by a gate).
pub const MOST_REASKS: u64 = 64;

/// How many gates a strip shows (and its count covers).
pub const STRIP: usize = 20;

/// How many gates must have judged a check before its reference is tested
/// against the history: a test read after every gate looks many times, and
/// a handful of gates names a sound reference by chance (measured in
/// `docs/statistics.md`, "Not before ten gates").
pub const LUCKY_AFTER: usize = 10;

/// Up to this many answers in the history a pair is tested with Boschloo's
/// exact test; beyond, with Fisher's (Boschloo's cost grows with the
/// product of the two counts, and with that many answers the two agree).
pub const BOSCHLOO_UP_TO: u64 = 200;

/// One gate, as the history keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    /// The format ([`FORMAT`]).
    pub v: u32,
    /// When the gate ran (RFC 3339).
    pub at: String,
    /// The commit gated, when known.
    pub commit: Option<String>,
    /// The reference's `created_at`.
    pub reference: String,
    /// The reference's config hash.
    pub reference_config: String,
    /// The run's config hash.
    pub config: String,
    /// The gate's exit code.
    pub exit: i32,
    /// What the gate spent (target and judges), USD, when known.
    pub usd: Option<f64>,
    /// Per check name: pairs judged, pairs passed.
    pub checks: Vec<(String, u64, u64)>,
    /// The pairs that did not pass: case, check, `f` or `e`, re-asks made, re-asks failed.
    pub flagged: Vec<(String, String, String, u64, u64)>,
}

impl Line {
    /// The line of a gate of `run` against `reference`, with the gate's re-asks.
    pub fn of(
        run: &RunDocument,
        reference: &RunDocument,
        reasks: Option<&ReaskRecord>,
        gate: (i32, Option<f64>, Option<String>, String),
    ) -> Line {
        let (exit, usd, commit, at) = gate;
        // Re-asks are kept by check id and occurrence; the history names checks.
        let mut again: HashMap<(&str, &str, usize), (u64, u64)> = HashMap::new();
        for p in reasks.map(|r| r.pairs.as_slice()).unwrap_or_default() {
            let failed = p.failed.iter().filter(|f| **f).count() as u64;
            again.insert(
                (&p.case_id, &p.assertion_id, p.occurrence),
                (p.failed.len() as u64, failed),
            );
        }
        let mut checks: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        let mut flagged = Vec::new();
        for case in run.results.iter().filter(|c| !c.suspended) {
            let mut seen: HashMap<&str, usize> = HashMap::new();
            for v in &case.verdicts {
                let occurrence = seen.entry(&v.assertion_id).or_insert(0);
                let entry = checks.entry(&v.assertion).or_default();
                entry.0 += 1;
                let code = match v.status {
                    Status::Pass => {
                        entry.1 += 1;
                        None
                    }
                    Status::Fail => Some("f"),
                    Status::Error => Some("e"),
                };
                if let Some(code) = code {
                    let (asked, failed) = again
                        .get(&(case.case_id.as_str(), v.assertion_id.as_ref(), *occurrence))
                        .copied()
                        .unwrap_or_default();
                    flagged.push((
                        case.case_id.clone(),
                        v.assertion.to_string(),
                        code.to_string(),
                        asked,
                        failed,
                    ));
                }
                *occurrence += 1;
            }
        }
        Line {
            v: FORMAT,
            at,
            commit,
            reference: reference.created_at.clone(),
            reference_config: reference.config_hash.clone(),
            config: run.config_hash.clone(),
            exit,
            usd,
            checks: checks
                .into_iter()
                .map(|(name, (judged, passed))| (name.to_string(), judged, passed))
                .collect(),
            flagged,
        }
    }

    /// The line as the file keeps it: one JSON line, no newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Why a line was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// Not a line of this format.
    Malformed,
    /// Judged against another reference.
    OtherReference,
    /// Its run's config hash is not the reference's.
    WrongConfig,
    /// Dated after now, or before its reference was made.
    Date,
    /// Its counts cannot come from a gate of this reference: more pairs
    /// than the reference has, a check passed more often than judged,
    /// more re-asks failed than made, an exit code or a spend no gate
    /// writes.
    Inconsistent,
    /// The same gate (time and commit) as a line read before it.
    Duplicate,
}

impl Skip {
    /// The word kept in `--json` and the catalogues' keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Malformed => "malformed",
            Skip::OtherReference => "other_reference",
            Skip::WrongConfig => "wrong_config",
            Skip::Date => "date",
            Skip::Inconsistent => "inconsistent",
            Skip::Duplicate => "duplicate",
        }
    }
}

/// One gate's mark for one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Passed.
    Pass,
    /// Failed.
    Fail,
    /// Could not be judged.
    Error,
}

/// What the history shows for one (case, check).
#[derive(Clone, Debug, PartialEq)]
pub struct PairHistory {
    /// One mark per gate that judged the check, oldest first.
    pub marks: Vec<Mark>,
    /// The date (`YYYY-MM-DD`) of the first gate that did not pass it.
    pub first_failed: Option<String>,
    /// First answers and re-asks made, across the gates.
    pub asked: u64,
    /// Of which failed.
    pub failed: u64,
}

impl PairHistory {
    /// The last [`STRIP`] gates as glyphs: `▇` passed, `▁` failed, `·` not judged.
    pub fn strip(&self) -> String {
        let from = self.marks.len().saturating_sub(STRIP);
        self.marks[from..]
            .iter()
            .map(|m| match m {
                Mark::Pass => '▇',
                Mark::Fail => '▁',
                Mark::Error => '·',
            })
            .collect()
    }

    /// Of the gates the strip shows: passed, shown.
    pub fn passed_of(&self) -> (usize, usize) {
        let shown = &self.marks[self.marks.len().saturating_sub(STRIP)..];
        let passed = shown.iter().filter(|m| **m == Mark::Pass).count();
        (passed, shown.len())
    }
}

/// A reference whose measured count the history contradicts.
#[derive(Clone, Debug, PartialEq)]
pub struct Lucky {
    /// The case.
    pub case: String,
    /// The check.
    pub check: String,
    /// The reference's passes of its samples.
    pub passed: u64,
    /// The reference's samples.
    pub samples: u64,
    /// Answers failed on the base branch.
    pub failed: u64,
    /// Answers asked on the base branch.
    pub asked: u64,
    /// The one-sided exact p ([`Lucky::worse_p`]), before it is compared
    /// with the declared rate divided among the family.
    pub p: f64,
}

impl Lucky {
    /// The one-sided exact p that the history's `failed` of `asked` answers
    /// fail more often than the reference's `passed` of `samples` allow:
    /// Boschloo's test up to [`BOSCHLOO_UP_TO`] answers, Fisher's beyond.
    pub fn worse_p(passed: u64, samples: u64, failed: u64, asked: u64) -> f64 {
        if asked <= BOSCHLOO_UP_TO {
            crate::core::stats::boschloo_worse(passed, samples, failed, asked)
        } else {
            crate::core::stats::fisher_worse(passed, samples, failed, asked)
        }
    }

    /// The least p any history of `asked` answers could reach for this
    /// pair with the failures it has in all (the reference's and the
    /// history's): the p of the table holding as many of them as it can in
    /// the history. A pair whose least p is above the level cannot be named
    /// whatever its answers were, so it does not widen the family
    /// (Tarone's count).
    pub fn least_p(passed: u64, samples: u64, failed: u64, asked: u64, alpha: f64) -> f64 {
        let failures = (samples - passed) + failed;
        let most = failures.min(asked);
        let reference_failed = failures - most;
        let fisher =
            crate::core::stats::fisher_worse(samples - reference_failed, samples, most, asked);
        if fisher > 10.0 * alpha {
            // Boschloo's p is never below a tenth of Fisher's on these tables.
            return fisher;
        }
        Lucky::worse_p(samples - reference_failed, samples, most, asked)
    }
}

/// One gate's non-pass entry of a pair: the line's index, its mark, the
/// re-asks made and failed.
type Flagged = (usize, Mark, u64, u64);

/// The history read against one reference.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// The lines kept, oldest first.
    pub lines: Vec<Line>,
    /// The lines skipped, by why.
    pub skipped: BTreeMap<Skip, usize>,
    /// The non-pass pairs: (case, check) → (line index, code, asked, failed).
    index: HashMap<(String, String), Vec<Flagged>>,
    /// Per check: the indexes of the lines that judged it.
    judged: HashMap<String, Vec<usize>>,
}

impl History {
    /// Read `text` (one line per gate) against `reference` at `now`.
    pub fn read(text: &str, reference: &RunDocument, now: OffsetDateTime) -> History {
        let made = OffsetDateTime::parse(&reference.created_at, &Rfc3339).ok();
        let shape = Shape::of(reference);
        let mut seen: std::collections::HashSet<(String, Option<String>)> = Default::default();
        let mut history = History::default();
        for raw in text.lines().filter(|l| !l.trim().is_empty()) {
            let checked = check_line(raw, reference, made, now).and_then(|line| {
                shape.admits(&line)?;
                if seen.insert((line.at.clone(), line.commit.clone())) {
                    Ok(line)
                } else {
                    Err(Skip::Duplicate)
                }
            });
            match checked {
                Ok(line) => history.push(line),
                Err(skip) => *history.skipped.entry(skip).or_insert(0) += 1,
            }
        }
        history
    }

    fn push(&mut self, line: Line) {
        let at = self.lines.len();
        for (check, _, _) in &line.checks {
            self.judged.entry(check.clone()).or_default().push(at);
        }
        for (case, check, code, asked, failed) in &line.flagged {
            let mark = if code == "e" { Mark::Error } else { Mark::Fail };
            self.index
                .entry((case.clone(), check.clone()))
                .or_default()
                .push((at, mark, *asked, *failed));
        }
        self.lines.push(line);
    }

    /// Lines skipped, all reasons together.
    pub fn skipped_total(&self) -> usize {
        self.skipped.values().sum()
    }

    /// What the history shows for `check` of `case`; `None` when no line judged the check.
    pub fn pair(&self, case: &str, check: &str) -> Option<PairHistory> {
        let judged = self.judged.get(check)?;
        let flagged = self
            .index
            .get(&(case.to_string(), check.to_string()))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut marks = Vec::with_capacity(judged.len());
        let (mut asked, mut failed) = (0, 0);
        let mut first_failed = None;
        let mut next = flagged.iter().peekable();
        for &at in judged {
            while next.peek().is_some_and(|f| f.0 < at) {
                next.next();
            }
            let mark = match next.peek() {
                Some(f) if f.0 == at => {
                    asked += f.2 + u64::from(f.1 == Mark::Fail);
                    failed += f.3 + u64::from(f.1 == Mark::Fail);
                    f.1
                }
                _ => {
                    asked += 1;
                    Mark::Pass
                }
            };
            if mark != Mark::Pass && first_failed.is_none() {
                first_failed = Some(self.lines[at].at.chars().take(10).collect());
            }
            marks.push(mark);
        }
        Some(PairHistory {
            marks,
            first_failed,
            asked,
            failed,
        })
    }

    /// Per check, its pass rate in each gate that judged it (oldest first).
    pub fn check_rates(&self) -> BTreeMap<String, Vec<f64>> {
        let mut rates: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for line in &self.lines {
            for (check, judged, passed) in &line.checks {
                if *judged > 0 {
                    rates
                        .entry(check.clone())
                        .or_default()
                        .push(*passed as f64 / *judged as f64);
                }
            }
        }
        rates
    }

    /// The references the history contradicts: every measured pair of
    /// `reference` (more than one sample) whose check at least
    /// [`LUCKY_AFTER`] gates judged, and whose failures on the base branch
    /// are more than its count allows — a one-sided exact test of the
    /// history's failures against the reference's ([`Lucky::worse_p`]) at
    /// `alpha` divided among the pairs that could reach `alpha` at all
    /// ([`Lucky::least_p`]; at least one). In case order.
    pub fn lucky(&self, reference: &RunDocument, alpha: f64) -> Vec<Lucky> {
        let candidates: Vec<Lucky> = reference
            .results
            .iter()
            .filter(|c| !c.suspended)
            .flat_map(|c| {
                c.verdicts
                    .iter()
                    .map(move |v| (c.case_id.as_str(), v.assertion.to_string(), measured(v)))
            })
            .filter(|(_, _, (_, samples))| *samples > 1)
            .filter(|(_, check, _)| {
                self.judged
                    .get(check)
                    .is_some_and(|gates| gates.len() >= LUCKY_AFTER)
            })
            .filter_map(|(case, check, (passed, samples))| {
                let (failed, asked) = self.answers(case, &check)?;
                Some(Lucky {
                    case: case.to_string(),
                    check,
                    passed,
                    samples,
                    failed,
                    asked,
                    p: 1.0,
                })
            })
            .collect();
        let family = candidates
            .iter()
            .filter(|l| {
                l.asked > 0
                    && Lucky::least_p(l.passed, l.samples, l.failed, l.asked, alpha) <= alpha
            })
            .count()
            .max(1) as f64;
        candidates
            .into_iter()
            .filter(|l| l.failed > 0)
            .filter_map(|mut l| {
                l.p = Lucky::worse_p(l.passed, l.samples, l.failed, l.asked);
                (l.p <= alpha / family).then_some(l)
            })
            .collect()
    }

    /// The answers that failed, of those asked, across the history of a
    /// pair whose check was judged: one first answer per gate that
    /// judged the check (none when it could not be judged), and the re-asks.
    /// As [`History::pair`] counts them, without walking every gate.
    fn answers(&self, case: &str, check: &str) -> Option<(u64, u64)> {
        let judged = self.judged.get(check)?.len() as u64;
        let flagged = self
            .index
            .get(&(case.to_string(), check.to_string()))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let (mut failed, mut asked) = (0_u64, judged);
        for (_, mark, again, again_failed) in flagged {
            match mark {
                Mark::Error => asked = asked.saturating_sub(1),
                _ => failed += 1,
            }
            asked += again;
            failed += again_failed;
        }
        Some((failed, asked))
    }
}

/// What a gate of one reference can write: per check, how many verdicts
/// it has across the cases, and per (case, check) how many.
struct Shape {
    checks: HashMap<String, u64>,
    pairs: HashMap<(String, String), u64>,
}

impl Shape {
    fn of(reference: &RunDocument) -> Shape {
        let mut checks: HashMap<String, u64> = HashMap::new();
        let mut pairs: HashMap<(String, String), u64> = HashMap::new();
        for case in &reference.results {
            for v in &case.verdicts {
                *checks.entry(v.assertion.to_string()).or_default() += 1;
                *pairs
                    .entry((case.case_id.clone(), v.assertion.to_string()))
                    .or_default() += 1;
            }
        }
        Shape { checks, pairs }
    }

    /// `Ok` when `line`'s counts could come from a gate of this reference:
    /// its checks and pairs are the reference's, none judged more often
    /// than the reference has it, passed at most as often as judged, the
    /// pairs that did not pass exactly the judged ones that did not pass,
    /// re-asks failed at most as made and at most [`MOST_REASKS`], an exit
    /// code a gate records (0, 1, 2) and a spend that is a finite amount.
    fn admits(&self, line: &Line) -> Result<(), Skip> {
        let bad = Err(Skip::Inconsistent);
        if !(0..=2).contains(&line.exit) || line.usd.is_some_and(|u| !u.is_finite() || u < 0.0) {
            return bad;
        }
        let mut not_passed: HashMap<&str, u64> = HashMap::new();
        for (check, judged, passed) in &line.checks {
            let most = self.checks.get(check).copied().unwrap_or(0);
            if passed > judged || *judged > most || not_passed.contains_key(check.as_str()) {
                return bad;
            }
            not_passed.insert(check, judged - passed);
        }
        let mut per_pair: HashMap<(&str, &str), u64> = HashMap::new();
        for (case, check, _, asked, failed) in &line.flagged {
            let count = per_pair.entry((case, check)).or_default();
            *count += 1;
            let most = self
                .pairs
                .get(&(case.clone(), check.clone()))
                .copied()
                .unwrap_or(0);
            let left = not_passed.get_mut(check.as_str());
            match left {
                Some(left)
                    if *left > 0 && *count <= most && failed <= asked && *asked <= MOST_REASKS =>
                {
                    *left -= 1;
                }
                _ => return bad,
            }
        }
        if not_passed.values().any(|left| *left > 0) {
            return bad;
        }
        Ok(())
    }
}

/// A line, or why it is skipped.
fn check_line(
    raw: &str,
    reference: &RunDocument,
    made: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> Result<Line, Skip> {
    let line: Line = serde_json::from_str(raw).map_err(|_| Skip::Malformed)?;
    if line.v != FORMAT || line.flagged.iter().any(|f| f.2 != "f" && f.2 != "e") {
        return Err(Skip::Malformed);
    }
    let when = OffsetDateTime::parse(&line.at, &Rfc3339).map_err(|_| Skip::Malformed)?;
    if line.reference != reference.created_at || line.reference_config != reference.config_hash {
        return Err(Skip::OtherReference);
    }
    if line.config != reference.config_hash {
        return Err(Skip::WrongConfig);
    }
    if (when - now).whole_seconds() > SKEW_SECONDS || made.is_some_and(|m| when < m) {
        return Err(Skip::Date);
    }
    Ok(line)
}

/// The file's new text: `old`'s last `keep − 1` lines that parse, then `line`.
pub fn appended(old: &str, line: &Line, keep: usize) -> String {
    let kept: Vec<&str> = old
        .lines()
        .filter(|l| serde_json::from_str::<Line>(l).is_ok())
        .collect();
    let from = kept.len().saturating_sub(keep.saturating_sub(1));
    let mut out = String::new();
    for l in &kept[from..] {
        out.push_str(l);
        out.push('\n');
    }
    if keep > 0 {
        out.push_str(&line.to_json());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
