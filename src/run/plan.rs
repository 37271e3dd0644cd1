//! The plan: how many calls a run will make, said before the first one.

use crate::core::suite::Suite;

/// The calls a run will make to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Cases that will be asked (suspended ones are not).
    pub cases: usize,
    /// Target calls per case.
    pub samples: u32,
    /// Checks graded by a judge (one judge call per answer each).
    pub judged_checks: usize,
}

impl Plan {
    /// The plan for `suite`.
    pub fn of(suite: &Suite) -> Plan {
        Plan {
            cases: suite.cases.iter().filter(|c| c.suspended.is_none()).count(),
            samples: suite.samples,
            judged_checks: suite
                .checks
                .iter()
                .filter(|c| c.judge_coordinate().is_some())
                .count(),
        }
    }

    /// Judge calls at most (`calls × judged checks`; fewer when a call fails).
    pub fn judge_calls(&self) -> usize {
        self.calls() * self.judged_checks
    }

    /// `plus 10 calls to judges (2 judged checks × 5 answers)`, or `None`
    /// without judged checks.
    pub fn judge_sentence(&self) -> Option<String> {
        (self.judged_checks > 0).then(|| {
            format!(
                "plus {} to judges ({} × {})",
                plural(self.judge_calls(), "call"),
                plural(self.judged_checks, "judged check"),
                plural(self.calls(), "answer")
            )
        })
    }

    /// The `--max-calls` problem, if the plan needs more calls (target and
    /// judges together; retries are not planned) than `max`.
    pub fn over(&self, max: Option<usize>) -> Option<String> {
        let max = max?;
        let total = self.calls() + self.judge_calls();
        (total > max).then(|| {
            format!(
                "the run needs {total} calls ({} to the target, {} to judges), more than \
                 --max-calls {max}; raise --max-calls or run fewer cases",
                self.calls(),
                self.judge_calls()
            )
        })
    }

    /// Total target calls (`cases × samples`).
    pub fn calls(&self) -> usize {
        self.cases * self.samples as usize
    }

    /// `5 cases × 1 sample = 5 calls to the target`, as digline 0.10.0 says it.
    pub fn sentence(&self) -> String {
        format!(
            "{} × {} = {} to the target",
            plural(self.cases, "case"),
            plural(self.samples as usize, "sample"),
            plural(self.calls(), "call")
        )
    }
}

fn plural(n: usize, word: &str) -> String {
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
        let p = Plan {
            cases: 5,
            samples: 1,
            judged_checks: 0,
        };
        assert_eq!(p.sentence(), "5 cases × 1 sample = 5 calls to the target");
        let p = Plan {
            cases: 4,
            samples: 3,
            judged_checks: 0,
        };
        assert_eq!(p.sentence(), "4 cases × 3 samples = 12 calls to the target");
        let p = Plan {
            cases: 1,
            samples: 1,
            judged_checks: 0,
        };
        assert_eq!(p.sentence(), "1 case × 1 sample = 1 call to the target");
        assert_eq!(p.judge_sentence(), None);
    }

    #[test]
    fn judge_calls_and_max_calls() {
        let p = Plan {
            cases: 5,
            samples: 1,
            judged_checks: 2,
        };
        assert_eq!(
            p.judge_sentence().as_deref(),
            Some("plus 10 calls to judges (2 judged checks × 5 answers)")
        );
        assert_eq!(p.over(None), None);
        assert_eq!(p.over(Some(15)), None);
        let over = p.over(Some(14)).unwrap();
        assert!(
            over.starts_with(
                "the run needs 15 calls (5 to the target, 10 to judges), more than --max-calls 14"
            ),
            "{over}"
        );
    }
}
