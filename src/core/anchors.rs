//! Judge anchors: fixed answers a person labelled, graded by a suite's
//! judges in the reference and again on every gate, so that a judge that
//! moved is seen as a moved instrument — *could not be judged, the judge
//! changed* (exit 2) — and never read as a worse product (exit 1).
//!
//! Pure: the anchors as loaded ([`Anchor`]), the judge's identity and which
//! of its fields changed ([`JudgeIdentity`]), and the reading of one
//! judge's anchors now against the reference's ([`Drift`]): an exact
//! McNemar test on the verdicts, the share that moved with its exact
//! interval, and — with labels — the judge's agreement with people
//! (true-pass and true-fail rates, Cohen's κ, each with an interval).
//! Spec: issue 32; `docs/checks.md` "Judge anchors".

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::identity::digest;
use super::stats::{clopper_pearson, cohen_kappa, detectable_shift, labels_to_decide, Kappa};

/// What a person said of an anchor's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// The answer deserves to pass the check.
    Pass,
    /// The answer deserves to fail it.
    Fail,
}

/// One entry of the anchors file: `{"check", "answer", "vars", "context",
/// "label"}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    /// The judged check (its reported name) that grades this answer.
    pub check: String,
    /// The fixed answer the judge grades.
    pub answer: String,
    /// The variables the rubric is filled with.
    pub vars: Map<String, Value>,
    /// Retrieval context, for `faithfulness`.
    pub context: Vec<String>,
    /// What a person said, when one did.
    pub label: Option<Label>,
}

impl Anchor {
    /// 16 hex chars naming what the judge is shown (check, answer, vars,
    /// context — not the label): how a gate's grading finds the
    /// reference's grading of the same anchor.
    pub fn key(&self) -> String {
        digest(&json!([self.check, self.answer, self.vars, self.context]))
    }
}

/// Who a judge is, as far as a gate can tell: what the suite asked for and
/// what the provider says answered. Recorded in the run document under
/// `judge_anchors.judges[].identity` with these field names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeIdentity {
    /// The provider (`openai`, `anthropic`, …).
    pub provider: String,
    /// The model the suite names.
    pub requested_model: String,
    /// The model the provider says answered (a dated name, a
    /// `system_fingerprint`), when it says one.
    pub answered_model: Option<String>,
    /// The endpoint's `host:port`.
    pub endpoint: String,
    /// 16 hex of the base URL (its path can route to another model).
    pub base_url_hash: String,
    /// 16 hex of the rubric and prompt the judge is sent.
    pub prompt_hash: String,
    /// The protocol the reply is read with.
    pub protocol: String,
}

impl JudgeIdentity {
    /// The fields of `self` (the reference's) that differ in `now`, by
    /// name, in declaration order. An answered model the provider stopped
    /// or started reporting counts as changed.
    pub fn changed(&self, now: &JudgeIdentity) -> Vec<&'static str> {
        [
            ("provider", self.provider != now.provider),
            (
                "requested_model",
                self.requested_model != now.requested_model,
            ),
            ("answered_model", self.answered_model != now.answered_model),
            ("endpoint", self.endpoint != now.endpoint),
            ("base_url_hash", self.base_url_hash != now.base_url_hash),
            ("prompt_hash", self.prompt_hash != now.prompt_hash),
            ("protocol", self.protocol != now.protocol),
        ]
        .into_iter()
        .filter_map(|(name, differs)| differs.then_some(name))
        .collect()
    }
}

/// How the judges graded the anchors in one run: the run document's
/// `judge_anchors` (absent for a suite without anchors, so such documents
/// keep their bytes). Outside the case results: it takes no part in
/// `config_hash`, the case counts or any comparison of cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorsRecord {
    /// Every anchor, in the anchors file's order.
    pub anchors: Vec<GradedAnchor>,
    /// One per judged check that has anchors, in declaration order.
    pub judges: Vec<JudgeRecord>,
}

/// One anchor's grading: its [`Anchor::key`], its check and the verdict.
/// Never its answer, vars or context (payload), nor the judge's reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradedAnchor {
    /// [`Anchor::key`].
    pub key: String,
    /// The judged check that graded it.
    pub check: String,
    /// `pass`, `fail`, or `error` (the judge could not be called or read:
    /// left out of the drift).
    pub verdict: AnchorVerdict,
}

/// What the judge said of one anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnchorVerdict {
    /// The check passed the anchor's answer.
    Pass,
    /// It failed it.
    Fail,
    /// It could not grade it.
    Error,
}

impl AnchorVerdict {
    /// Pass or fail; `None` for an error.
    pub fn passed(self) -> Option<bool> {
        match self {
            AnchorVerdict::Pass => Some(true),
            AnchorVerdict::Fail => Some(false),
            AnchorVerdict::Error => None,
        }
    }
}

/// One judged check's judge in one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeRecord {
    /// The judged check (its reported name).
    pub check: String,
    /// The judge's coordinate as the suite names it (`provider/model`).
    pub coordinate: String,
    /// Who the judge was.
    pub identity: JudgeIdentity,
    /// How many of its anchors were graded by a live call (the rest came
    /// from the judge memo).
    pub live: u64,
}

impl AnchorsRecord {
    /// The recorded judge of `check`.
    pub fn judge(&self, check: &str) -> Option<&JudgeRecord> {
        self.judges.iter().find(|j| j.check == check)
    }

    /// `check`'s anchors graded both in `reference` and here (errors on
    /// either side left out), paired by key, each with its label in
    /// `anchors` (the suite's file as it is now).
    pub fn regraded(
        &self,
        reference: &AnchorsRecord,
        check: &str,
        anchors: &[Anchor],
    ) -> Vec<Regraded> {
        let then: std::collections::HashMap<&str, bool> = reference
            .anchors
            .iter()
            .filter(|a| a.check == check)
            .filter_map(|a| Some((a.key.as_str(), a.verdict.passed()?)))
            .collect();
        let labels: std::collections::HashMap<String, Option<Label>> =
            anchors.iter().map(|a| (a.key(), a.label)).collect();
        self.anchors
            .iter()
            .filter(|a| a.check == check)
            .filter_map(|a| {
                Some(Regraded {
                    reference: *then.get(a.key.as_str())?,
                    now: a.verdict.passed()?,
                    label: labels.get(&a.key).copied().flatten(),
                })
            })
            .collect()
    }
}

/// One anchor graded twice: in the reference and now (pass = `true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Regraded {
    /// The reference's verdict.
    pub reference: bool,
    /// This gate's verdict.
    pub now: bool,
    /// What a person said, when one did.
    pub label: Option<Label>,
}

/// A rate with its exact interval: `hits` of `n`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// How many agreed.
    pub hits: u64,
    /// Of how many.
    pub n: u64,
    /// The Clopper–Pearson interval's ends.
    pub low: f64,
    /// The upper end.
    pub high: f64,
}

impl Rate {
    fn of(hits: u64, n: u64, alpha: f64) -> Rate {
        let (low, high) = clopper_pearson(hits, n, alpha);
        Rate { hits, n, low, high }
    }
}

/// The judge against people on the labelled anchors, graded now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agreement {
    /// Of the answers people passed, the share the judge passes.
    pub true_pass: Rate,
    /// Of the answers people failed, the share the judge fails.
    pub true_fail: Rate,
    /// Cohen's κ, judge against people; `None` when undefined (every
    /// rating the same).
    pub kappa: Option<Kappa>,
}

/// What one judge's anchors say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// It did not move beyond what the anchors can see.
    Steady,
    /// Only its name or route changed: its verdicts on the anchors did not.
    Renamed,
    /// It moved: its checks could not be judged (exit 2).
    Moved,
    /// `[suite] min_judge_kappa` is not shown to hold: its checks cannot
    /// gate (exit 2).
    Unproven,
    /// The reference graded anchors of this judge that this run did not
    /// grade again (the anchors file or `judge_anchors` changed, or the
    /// judge could not grade them): nothing says it held, so its checks
    /// cannot gate (exit 2).
    Unanchored,
}

impl Reading {
    /// Whether the judge's checks can gate: a judge that moved or whose
    /// agreement with people is unproven cannot.
    pub fn gates(self) -> bool {
        matches!(self, Reading::Steady | Reading::Renamed)
    }
}

/// One judge's anchors now against the reference's.
#[derive(Clone, Debug, PartialEq)]
pub struct Drift {
    /// Anchors graded both times.
    pub anchors: u64,
    /// Anchors the reference graded (pass or fail) for this judge: every
    /// one must be graded again for the judge to be read.
    pub expected: u64,
    /// Passed in the reference, fail now.
    pub lost: u64,
    /// Failed in the reference, pass now.
    pub gained: u64,
    /// The pass rate's change, now − reference, as a share of the anchors.
    pub shift: f64,
    /// The share of anchors whose verdict moved, with its exact interval.
    pub moved: Rate,
    /// The exact McNemar p-value, two-sided.
    pub p: f64,
    /// The smallest one-way shift these anchors could have shown at the
    /// level; `None` when too few anchors for any.
    pub detectable: Option<f64>,
    /// Which identity fields changed (empty when none).
    pub changed: Vec<&'static str>,
    /// The judge against people, with labels.
    pub agreement: Option<Agreement>,
    /// With `min_judge_kappa`: how many labelled anchors in all would
    /// decide it (`None`: κ itself is under the floor).
    pub labels_needed: Option<u64>,
    /// The suite's `min_judge_kappa`, when it has one.
    pub floor: Option<f64>,
    /// What it all says.
    pub reading: Reading,
}

impl Drift {
    /// Read `graded` (one judge's anchors) at level `alpha`, given which
    /// identity fields changed and the suite's `min_judge_kappa`.
    ///
    /// A judge moved when the McNemar test rejects at `alpha`, or when its
    /// identity changed and any anchor's verdict moved: a changed judge
    /// has no benefit of the doubt. A changed identity whose verdicts all
    /// held is a rename. With a floor, κ's lower bound under it (or κ
    /// undefined) leaves the checks unproven.
    pub fn measure(
        graded: &[Regraded],
        changed: Vec<&'static str>,
        alpha: f64,
        min_kappa: Option<f64>,
    ) -> Drift {
        let n = graded.len() as u64;
        let count = |f: &dyn Fn(&Regraded) -> bool| graded.iter().filter(|g| f(g)).count() as u64;
        let lost = count(&|g| g.reference && !g.now);
        let gained = count(&|g| !g.reference && g.now);
        let shift = if n == 0 {
            0.0
        } else {
            (gained as f64 - lost as f64) / n as f64
        };
        let p = super::stats::mcnemar_exact(lost, gained);
        let agreement = agreement(graded, alpha);
        let kappa = agreement.and_then(|a| a.kappa);
        let labelled = count(&|g| g.label.is_some());
        let labels_needed = match (min_kappa, kappa) {
            (Some(floor), Some(k)) => labels_to_decide(&k, labelled, floor, alpha),
            _ => None,
        };
        let reading = if p < alpha || (!changed.is_empty() && lost + gained > 0) {
            Reading::Moved
        } else if min_kappa.is_some_and(|floor| kappa.is_none_or(|k| k.low < floor)) {
            Reading::Unproven
        } else if !changed.is_empty() {
            Reading::Renamed
        } else {
            Reading::Steady
        };
        Drift {
            anchors: n,
            expected: n,
            lost,
            gained,
            shift,
            moved: Rate::of(lost + gained, n, alpha),
            p,
            detectable: detectable_shift(n, alpha),
            changed,
            agreement,
            labels_needed,
            floor: min_kappa,
            reading,
        }
    }
}

impl Drift {
    /// This reading, held to the `expected` anchors the reference graded:
    /// fewer graded again here (none included) is [`Reading::Unanchored`]
    /// — an anchor a pull request edited, dropped or moved to another
    /// check is one a moved judge is not read on, so a judge is never said
    /// to hold on fewer anchors than the reference graded, nor on none.
    pub fn held_to(mut self, expected: u64) -> Drift {
        self.expected = expected;
        if self.anchors < expected || self.anchors == 0 {
            self.reading = Reading::Unanchored;
        }
        self
    }
}

/// One judged check's judge read against the reference's: what the gate
/// says of it and whether its checks can gate.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeReading {
    /// The judged check (its reported name).
    pub check: String,
    /// The check's `assertion_id` in this run: the verdicts it cannot gate
    /// when the judge moved.
    pub assertion_id: String,
    /// The judge's coordinate now.
    pub coordinate: String,
    /// Its coordinate in the reference.
    pub reference_coordinate: String,
    /// The anchors now against the reference's.
    pub drift: Drift,
}

/// Every judge of the suite that the reference recorded, read at level
/// `alpha` (the suite's `false_alarm_rate`) with the suite's
/// `min_judge_kappa`, in `checks` order. `checks`: the suite's judged
/// checks as (name, assertion id, coordinate); `anchors`: the anchors file
/// as it is now (its labels); `now`: this run's record, `None` when it
/// graded none. A judge the reference did not record is not read (nothing
/// to read it against); one it recorded is read even when this run graded
/// none of its anchors — then it is [`Reading::Unanchored`]: removing
/// `judge_anchors` or editing the anchors never turns a moved judge into
/// one that held.
pub fn read_judges(
    now: Option<&AnchorsRecord>,
    reference: &AnchorsRecord,
    checks: &[(String, String, String)],
    anchors: &[Anchor],
    alpha: f64,
    min_kappa: Option<f64>,
) -> Vec<JudgeReading> {
    let empty = AnchorsRecord {
        anchors: Vec::new(),
        judges: Vec::new(),
    };
    let now = now.unwrap_or(&empty);
    checks
        .iter()
        .filter_map(|(check, assertion_id, coordinate)| {
            let before = reference.judge(check)?;
            let expected = (reference.anchors.iter())
                .filter(|a| a.check == *check && a.verdict.passed().is_some())
                .count() as u64;
            let graded = now.regraded(reference, check, anchors);
            let (coordinate, changed) = match now.judge(check) {
                Some(judge) => (
                    judge.coordinate.clone(),
                    before.identity.changed(&judge.identity),
                ),
                None => (coordinate.clone(), Vec::new()),
            };
            Some(JudgeReading {
                check: check.clone(),
                assertion_id: assertion_id.clone(),
                coordinate,
                reference_coordinate: before.coordinate.clone(),
                drift: Drift::measure(&graded, changed, alpha, min_kappa).held_to(expected),
            })
        })
        .collect()
}

/// [`read_judges`] for two documents, with `checks` taken from the suite's
/// declared checks: empty when the reference recorded no anchors.
pub fn read_documents(
    run: &super::document::RunDocument,
    reference: &super::document::RunDocument,
    suite: &super::suite::Suite,
    anchors: &[Anchor],
    min_kappa: Option<f64>,
) -> Vec<JudgeReading> {
    let Some(then) = &reference.judge_anchors else {
        return Vec::new();
    };
    let checks: Vec<(String, String, String)> = (suite.checks.iter())
        .filter_map(|c| {
            let coordinate = c.judge_coordinate()?;
            Some((
                c.name.clone(),
                c.assertion_id.clone(),
                coordinate.to_string(),
            ))
        })
        .collect();
    read_judges(
        run.judge_anchors.as_ref(),
        then,
        &checks,
        anchors,
        suite.false_alarm_rate,
        min_kappa,
    )
}

/// The judge (graded now) against people, over the labelled anchors;
/// `None` without any label.
fn agreement(graded: &[Regraded], alpha: f64) -> Option<Agreement> {
    // [[judge pass · people pass, judge fail · people pass],
    //  [judge pass · people fail, judge fail · people fail]]
    let mut table = [[0u64; 2]; 2];
    for g in graded {
        let Some(label) = g.label else { continue };
        let row = usize::from(label == Label::Fail);
        let col = usize::from(!g.now);
        table[row][col] += 1;
    }
    let people_pass = table[0][0] + table[0][1];
    let people_fail = table[1][0] + table[1][1];
    (people_pass + people_fail > 0).then(|| Agreement {
        true_pass: Rate::of(table[0][0], people_pass, alpha),
        true_fail: Rate::of(table[1][1], people_fail, alpha),
        kappa: cohen_kappa(table, alpha),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graded(pairs: &[(bool, bool)], label: impl Fn(usize) -> Option<Label>) -> Vec<Regraded> {
        pairs
            .iter()
            .enumerate()
            .map(|(i, &(reference, now))| Regraded {
                reference,
                now,
                label: label(i),
            })
            .collect()
    }

    fn unlabelled(pairs: &[(bool, bool)]) -> Vec<Regraded> {
        graded(pairs, |_| None)
    }

    #[test]
    fn a_judge_that_turned_strict_has_moved() {
        // 20 anchors, 12 passed in the reference; now 8 of them fail.
        let mut pairs = vec![(true, true); 4];
        pairs.extend(vec![(true, false); 8]);
        pairs.extend(vec![(false, false); 8]);
        let drift = Drift::measure(&unlabelled(&pairs), Vec::new(), 0.05, None);
        assert_eq!((drift.lost, drift.gained), (8, 0));
        assert!((drift.shift + 0.4).abs() < 1e-12);
        assert!(drift.p < 0.01, "{}", drift.p);
        assert_eq!(drift.reading, Reading::Moved);
        assert!(!drift.reading.gates());
        assert!(
            drift.moved.low > 0.15 && drift.moved.high < 0.7,
            "{:?}",
            drift.moved
        );
    }

    #[test]
    fn an_unchanged_judge_is_steady_and_says_what_it_could_see() {
        let mut pairs = vec![(true, true); 12];
        pairs.extend(vec![(false, false); 7]);
        pairs.push((true, false));
        let drift = Drift::measure(&unlabelled(&pairs), Vec::new(), 0.05, None);
        assert_eq!(drift.reading, Reading::Steady);
        assert!(drift.reading.gates());
        // 20 anchors: six moving one way is the least McNemar sees at 5 %.
        assert_eq!(drift.detectable, Some(0.3));
    }

    #[test]
    fn a_changed_identity_whose_anchors_held_is_a_rename_and_one_that_moved_is_a_move() {
        let pairs = vec![(true, true), (false, false), (true, true)];
        let same = Drift::measure(&unlabelled(&pairs), vec!["answered_model"], 0.05, None);
        assert_eq!(same.reading, Reading::Renamed);
        assert!(same.reading.gates());
        // One anchor moved is no significant shift, but the judge changed.
        let pairs = vec![(true, false), (false, false), (true, true)];
        let moved = Drift::measure(&unlabelled(&pairs), vec!["requested_model"], 0.05, None);
        assert!(moved.p > 0.05);
        assert_eq!(moved.reading, Reading::Moved);
        let unchanged = Drift::measure(&unlabelled(&pairs), Vec::new(), 0.05, None);
        assert_eq!(unchanged.reading, Reading::Steady);
    }

    #[test]
    fn labels_give_agreement_and_a_kappa_floor_can_leave_the_checks_unproven() {
        // The table [[6, 2], [1, 11]]: people pass 8 (judge passes 6),
        // people fail 12 (judge fails 11).
        let mut pairs = Vec::new();
        let mut labels = Vec::new();
        for (now, label, times) in [
            (true, Label::Pass, 6),
            (false, Label::Pass, 2),
            (true, Label::Fail, 1),
            (false, Label::Fail, 11),
        ] {
            for _ in 0..times {
                pairs.push((now, now));
                labels.push(label);
            }
        }
        let graded = graded(&pairs, |i| Some(labels[i]));
        let drift = Drift::measure(&graded, Vec::new(), 0.05, None);
        let agreement = drift.agreement.expect("labelled");
        assert_eq!((agreement.true_pass.hits, agreement.true_pass.n), (6, 8));
        assert_eq!((agreement.true_fail.hits, agreement.true_fail.n), (11, 12));
        let kappa = agreement.kappa.expect("defined");
        assert!((kappa.kappa - 0.680_851_063_829_787_3).abs() < 1e-9);
        assert_eq!(drift.reading, Reading::Steady);
        // κ's lower bound is about 0.35: a floor of 0.5 is not shown.
        let floor = Drift::measure(&graded, Vec::new(), 0.05, Some(0.5));
        assert_eq!(floor.reading, Reading::Unproven);
        assert!(floor.labels_needed.is_some_and(|n| n > 20));
        let low_floor = Drift::measure(&graded, Vec::new(), 0.05, Some(0.3));
        assert_eq!(low_floor.reading, Reading::Steady);
        // A floor with no labels at all is never shown.
        let bare = Drift::measure(&unlabelled(&pairs), Vec::new(), 0.05, Some(0.3));
        assert_eq!(bare.reading, Reading::Unproven);
    }

    #[test]
    fn fewer_anchors_graded_again_than_the_reference_graded_leave_the_judge_unread() {
        let held = vec![(false, false); 10];
        let all = Drift::measure(&unlabelled(&held), Vec::new(), 0.05, None).held_to(10);
        assert_eq!(all.reading, Reading::Steady);
        // Ten that did not move, of the twenty the reference graded.
        let some = Drift::measure(&unlabelled(&held), Vec::new(), 0.05, None).held_to(20);
        assert_eq!(
            (some.reading, some.anchors, some.expected),
            (Reading::Unanchored, 10, 20)
        );
        assert!(!some.reading.gates());
        // None graded again is never "held", whatever the reference graded.
        for expected in [0, 20] {
            let none = Drift::measure(&[], Vec::new(), 0.05, None).held_to(expected);
            assert_eq!(none.reading, Reading::Unanchored);
        }
    }

    #[test]
    fn a_run_without_anchors_against_a_reference_with_them_reads_every_judge_unanchored() {
        let anchor = |answer: &str| Anchor {
            check: "polite".into(),
            answer: answer.into(),
            vars: Map::new(),
            context: Vec::new(),
            label: None,
        };
        let identity = JudgeIdentity::default();
        let record = |answers: &[&str]| AnchorsRecord {
            anchors: (answers.iter())
                .map(|a| GradedAnchor {
                    key: anchor(a).key(),
                    check: "polite".into(),
                    verdict: AnchorVerdict::Pass,
                })
                .collect(),
            judges: vec![JudgeRecord {
                check: "polite".into(),
                coordinate: "openai/gpt-4o".into(),
                identity: identity.clone(),
                live: 1,
            }],
        };
        let reference = record(&["a", "b"]);
        let checks = [(
            "polite".to_string(),
            "0123456789abcdef".to_string(),
            "openai/gpt-4o".to_string(),
        )];
        let read = |now: Option<&AnchorsRecord>| {
            read_judges(now, &reference, &checks, &[], 0.05, None)
                .into_iter()
                .map(|r| (r.drift.reading, r.drift.anchors, r.drift.expected))
                .collect::<Vec<_>>()
        };
        assert_eq!(read(None), vec![(Reading::Unanchored, 0, 2)]);
        assert_eq!(
            read(Some(&record(&["a", "c"]))),
            vec![(Reading::Unanchored, 1, 2)]
        );
        assert_eq!(
            read(Some(&record(&["b", "a"]))),
            vec![(Reading::Steady, 2, 2)]
        );
    }

    #[test]
    fn identity_fields_are_named_when_they_change() {
        let before = JudgeIdentity {
            provider: "openai".into(),
            requested_model: "gpt-4o".into(),
            answered_model: Some("gpt-4o-2024-08-06".into()),
            endpoint: "127.0.0.1:4000".into(),
            base_url_hash: "aa".into(),
            prompt_hash: "bb".into(),
            protocol: "chat-v1".into(),
        };
        assert!(before.changed(&before).is_empty());
        let mut after = before.clone();
        after.answered_model = Some("gpt-4o-2024-11-20".into());
        after.endpoint = "127.0.0.1:4001".into();
        assert_eq!(before.changed(&after), vec!["answered_model", "endpoint"]);
        after.answered_model = None;
        assert_eq!(before.changed(&after), vec!["answered_model", "endpoint"]);
    }

    #[test]
    fn an_anchors_key_ignores_its_label_and_sees_its_answer() {
        let anchor = Anchor {
            check: "helpful".into(),
            answer: "Paris".into(),
            vars: Map::new(),
            context: Vec::new(),
            label: Some(Label::Pass),
        };
        let relabelled = Anchor {
            label: Some(Label::Fail),
            ..anchor.clone()
        };
        assert_eq!(anchor.key(), relabelled.key());
        let other = Anchor {
            answer: "Lyon".into(),
            ..anchor.clone()
        };
        assert_ne!(anchor.key(), other.key());
        assert_eq!(anchor.key().len(), 16);
    }
}
