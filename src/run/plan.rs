//! The plan: how many calls a run will make, said before the first one,
//! and how often a `repeated` check grades each answer.

use crate::core::suite::Suite;

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
        }
    }

    /// Total target calls (`cases × samples`).
    pub fn calls(&self) -> usize {
        self.cases * self.samples as usize
    }

    /// `5 cases × 1 sample = 5 calls to the target`, as digline 0.10.0 says
    /// it, then `; each answer is judged 3 times by contains` per `repeated`.
    pub fn sentence(&self) -> String {
        let plural = |n: usize, word: &str| {
            if n == 1 {
                format!("{n} {word}")
            } else {
                format!("{n} {word}s")
            }
        };
        let mut sentence = format!(
            "{} × {} = {} to the target",
            plural(self.cases, "case"),
            plural(self.samples as usize, "sample"),
            plural(self.calls(), "call")
        );
        for (name, times) in &self.repeated {
            sentence.push_str(&format!("; each answer is judged {times} times by {name}"));
        }
        sentence
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
    }
}
