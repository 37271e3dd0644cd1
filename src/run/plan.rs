//! The plan: how many calls a run will make, said before the first one,
//! how often a `repeated` check grades each answer, how many calls go to
//! judges, and the `--max-calls` guard; for `rejudge`, the same plan said
//! as answers replayed (no call to the target) and calls to judges.

use crate::core::suite::Suite;
use crate::report::locale::Locale;
use crate::report::progress::ProgressStrings;

/// The calls a run will make to the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Cases that will be asked (suspended ones are not).
    pub cases: usize,
    /// Target calls per case.
    pub samples: u32,
    /// Each `repeated` check as (reported name, gradings per answer), in
    /// declaration order.
    pub repeated: Vec<(String, u32)>,
    /// Judge calls per answer: one per judged check (`llm_rubric`,
    /// `faithfulness`), `samples` for one wrapped in `repeated`.
    pub judge_calls_per_answer: usize,
    /// The judge anchors this run grades (0 without, or on a shard other
    /// than the first): each is a judge call at most.
    pub anchors: usize,
    /// Of them, the canaries graded live on every run: one per judged
    /// check with anchors.
    pub canaries: usize,
}

impl Plan {
    /// The plan for `suite`.
    pub fn of(suite: &Suite) -> Plan {
        Plan {
            cases: suite.cases.iter().filter(|c| c.suspended.is_none()).count(),
            samples: suite.samples,
            repeated: suite
                .repeated()
                .into_iter()
                .map(|(name, times)| (name.to_string(), times))
                .collect(),
            judge_calls_per_answer: suite
                .checks
                .iter()
                .filter(|c| c.judge_coordinate().is_some())
                .map(|c| c.gradings() as usize)
                .sum(),
            anchors: 0,
            canaries: 0,
        }
    }

    /// This plan grading `anchors` judge anchors, `canaries` of them live
    /// on every run (`run::driver::grade_anchors`).
    pub fn with_anchors(self, anchors: usize, canaries: usize) -> Plan {
        Plan {
            anchors,
            canaries,
            ..self
        }
    }

    /// Judge calls at most (`calls × judge calls per answer`; fewer when a
    /// call fails).
    pub fn judge_calls(&self) -> usize {
        self.calls() * self.judge_calls_per_answer
    }

    /// `plus 10 calls to judges (2 per answer × 5 answers)`, or `None`
    /// without judged checks.
    pub fn judge_sentence(&self) -> Option<String> {
        self.judge_sentence_in(Locale::En)
    }

    /// [`Plan::judge_sentence`] in `locale`; with judge anchors, the
    /// canaries' live calls are counted in and named
    /// (`plus 11 calls to judges (2 per answer × 5 answers, and 1 judge
    /// anchor canary)`).
    pub fn judge_sentence_in(&self, locale: Locale) -> Option<String> {
        (self.judge_calls_per_answer > 0).then(|| {
            let strings = ProgressStrings::of(locale);
            if self.canaries > 0 {
                strings.judges_anchored(
                    self.judge_calls() + self.canaries,
                    self.judge_calls_per_answer,
                    self.calls(),
                    self.canaries,
                )
            } else {
                strings.judges(
                    self.judge_calls(),
                    self.judge_calls_per_answer,
                    self.calls(),
                )
            }
        })
    }

    /// The `--max-calls` problem, if the plan needs more calls (target and
    /// judges together; retries are not planned) than `max`.
    pub fn over(&self, max: Option<usize>) -> Option<String> {
        let max = max?;
        // Every anchor may be graded live (a judge that may have moved).
        let judges = self.judge_calls() + self.anchors;
        let total = self.calls() + judges;
        (total > max).then(|| {
            let (up_to, anchors) = if self.anchors > 0 {
                (
                    "up to ",
                    format!(", {} of them the judge anchors", self.anchors),
                )
            } else {
                ("", String::new())
            };
            format!(
                "the run needs {up_to}{total} calls ({} to the target, {judges} to \
                 judges{anchors}), more than --max-calls {max}; raise --max-calls or run fewer \
                 cases",
                self.calls(),
            )
        })
    }

    /// `2 cases × 1 recorded answer = 2 answers replayed; no call to the
    /// target` as digline 0.10.0 says it for `rejudge`, then the `repeated`
    /// clauses, then `; 4 calls to judges (2 per answer × 2 answers)` when
    /// checks are judged.
    pub fn replay_sentence(&self) -> String {
        let mut sentence = format!(
            "{} × {} = {} replayed; no call to the target",
            plural(self.cases, "case"),
            plural(self.samples as usize, "recorded answer"),
            plural(self.calls(), "answer")
        );
        for (name, times) in &self.repeated {
            sentence.push_str(&format!("; each answer is judged {times} times by {name}"));
        }
        if self.judge_calls_per_answer > 0 {
            sentence.push_str(&format!(
                "; {} to judges ({} per answer × {})",
                plural(self.judge_calls(), "call"),
                self.judge_calls_per_answer,
                plural(self.calls(), "answer")
            ));
        }
        sentence
    }

    /// The `--max-calls` problem of a re-judge (judge calls only: the target
    /// is not called), if it needs more than `max`.
    pub fn replay_over(&self, max: Option<usize>) -> Option<String> {
        let max = max?;
        let total = self.judge_calls();
        (total > max).then(|| {
            format!(
                "the re-judge needs {} to judges (none to the target), more than --max-calls \
                 {max}; raise --max-calls or re-judge fewer cases",
                plural(total, "call")
            )
        })
    }

    /// Total target calls (`cases × samples`).
    pub fn calls(&self) -> usize {
        self.cases * self.samples as usize
    }

    /// `5 cases × 1 sample = 5 calls to the target`, as digline 0.10.0 says
    /// it, then `; each answer is judged 3 times by contains` per `repeated`.
    pub fn sentence(&self) -> String {
        self.sentence_in(Locale::En)
    }

    /// [`Plan::sentence`] in `locale` (English: the same bytes).
    pub fn sentence_in(&self, locale: Locale) -> String {
        ProgressStrings::of(locale).plan(self.cases, self.samples as usize, &self.repeated)
    }
}

/// `n` and `word`, with an `s` unless `n` is 1 (English only).
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_match_0_10_0() {
        let plan = |cases, samples, repeated: &[(&str, u32)]| Plan {
            cases,
            samples,
            repeated: repeated.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
            judge_calls_per_answer: 0,
            anchors: 0,
            canaries: 0,
        };
        let rows: &[(Plan, &str)] = &[
            (plan(5, 1, &[]), "5 cases × 1 sample = 5 calls to the target"),
            (plan(4, 3, &[]), "4 cases × 3 samples = 12 calls to the target"),
            (plan(1, 1, &[]), "1 case × 1 sample = 1 call to the target"),
            (
                plan(3, 5, &[("contains", 3)]),
                "3 cases × 5 samples = 15 calls to the target; each answer is judged 3 times by contains",
            ),
            (
                plan(2, 1, &[("contains", 3), ("twice", 2)]),
                "2 cases × 1 sample = 2 calls to the target; each answer is judged 3 times by \
                 contains; each answer is judged 2 times by twice",
            ),
        ];
        for (p, want) in rows {
            assert_eq!(p.sentence(), *want);
        }
        // digline 0.10.0's rejudge line, word for word.
        assert_eq!(
            plan(2, 1, &[]).replay_sentence(),
            "2 cases × 1 recorded answer = 2 answers replayed; no call to the target"
        );
        assert_eq!(
            plan(1, 3, &[("contains", 2)]).replay_sentence(),
            "1 case × 3 recorded answers = 3 answers replayed; no call to the target; \
             each answer is judged 2 times by contains"
        );
    }

    #[test]
    fn the_judge_anchors_canaries_are_counted_in_the_plan_and_every_anchor_in_max_calls() {
        let p = Plan {
            cases: 5,
            samples: 1,
            repeated: Vec::new(),
            judge_calls_per_answer: 1,
            anchors: 0,
            canaries: 0,
        }
        .with_anchors(20, 1);
        assert_eq!(
            p.judge_sentence().as_deref(),
            Some("plus 6 calls to judges (1 per answer × 5 answers, and 1 judge anchor canary)")
        );
        assert_eq!(p.over(Some(30)), None);
        assert_eq!(
            p.over(Some(29)).as_deref(),
            Some(
                "the run needs up to 30 calls (5 to the target, 25 to judges, 20 of them the \
                 judge anchors), more than --max-calls 29; raise --max-calls or run fewer cases"
            )
        );
    }

    #[test]
    fn judge_calls_and_max_calls() {
        let p = Plan {
            cases: 5,
            samples: 1,
            repeated: Vec::new(),
            judge_calls_per_answer: 2,
            anchors: 0,
            canaries: 0,
        };
        assert_eq!(
            p.judge_sentence().as_deref(),
            Some("plus 10 calls to judges (2 per answer × 5 answers)")
        );
        assert_eq!(
            p.replay_sentence(),
            "5 cases × 1 recorded answer = 5 answers replayed; no call to the target; \
             10 calls to judges (2 per answer × 5 answers)"
        );
        assert_eq!(p.replay_over(Some(10)), None);
        assert_eq!(
            p.replay_over(Some(9)).as_deref(),
            Some(
                "the re-judge needs 10 calls to judges (none to the target), more than \
                 --max-calls 9; raise --max-calls or re-judge fewer cases"
            )
        );
        assert_eq!(p.over(None), None);
        assert_eq!(p.over(Some(15)), None);
        let over = p.over(Some(14)).unwrap_or_default();
        assert!(
            over.starts_with(
                "the run needs 15 calls (5 to the target, 10 to judges), more than --max-calls 14"
            ),
            "{over}"
        );
    }
}
