//! The plan: how many calls a run will make, said before the first one.

use crate::core::suite::Suite;

/// The calls a run will make to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Cases that will be asked (suspended ones are not).
    pub cases: usize,
    /// Target calls per case.
    pub samples: u32,
}

impl Plan {
    /// The plan for `suite`.
    pub fn of(suite: &Suite) -> Plan {
        Plan {
            cases: suite.cases.iter().filter(|c| c.suspended.is_none()).count(),
            samples: suite.samples,
        }
    }

    /// Total target calls (`cases × samples`).
    pub fn calls(&self) -> usize {
        self.cases * self.samples as usize
    }

    /// `5 cases × 1 sample = 5 calls to the target`, as digline 0.10.0 says it.
    pub fn sentence(&self) -> String {
        let plural = |n: usize, word: &str| {
            if n == 1 {
                format!("{n} {word}")
            } else {
                format!("{n} {word}s")
            }
        };
        format!(
            "{} × {} = {} to the target",
            plural(self.cases, "case"),
            plural(self.samples as usize, "sample"),
            plural(self.calls(), "call")
        )
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
        };
        assert_eq!(p.sentence(), "5 cases × 1 sample = 5 calls to the target");
        let p = Plan {
            cases: 4,
            samples: 3,
        };
        assert_eq!(p.sentence(), "4 cases × 3 samples = 12 calls to the target");
        let p = Plan {
            cases: 1,
            samples: 1,
        };
        assert_eq!(p.sentence(), "1 case × 1 sample = 1 call to the target");
    }
}
