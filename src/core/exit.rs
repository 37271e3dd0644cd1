//! The exit status: the contract a CI job obeys, as one type.
//!
//! Every command's result, the gate's `outcome.json`, `--json`'s and MCP's
//! `exit_code` come from one [`ExitStatus`], and [`ExitStatus::code`] is the
//! one mapping to the process code. `1` outranks `2` outranks `0` (the
//! comparison decides which: [`crate::core::compare::exit_code`]). `run`,
//! `promote` and `list` are never gates: [`ExitStatus::Proceed`] on
//! success, [`ExitStatus::Refused`] otherwise. Spec `00-product.md`; the
//! table a person reads: `docs/exit-codes.md`.

/// How a command ended, as CI reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitStatus {
    /// 0 — proceed: nothing got worse (or the command did its job).
    Proceed,
    /// 1 — stop and report: something got worse, or a canary moved.
    Worse,
    /// 2 — could not be judged: a case errored, a run-level measure could
    /// not be computed, or nothing was paired, so nothing downstream is
    /// meaningful.
    Unjudged,
    /// 64 — refused: bad flags, a bad suite or cases file, a tenant
    /// mismatch, no baseline, an unreadable document, a full disk. Never 2,
    /// which would read as a verdict.
    Refused,
    /// 70 — an internal failure nobody anticipated (a panic): a bug in
    /// digline, not a verdict.
    Internal,
}

impl ExitStatus {
    /// The process exit code: the one mapping.
    pub const fn code(self) -> i32 {
        match self {
            ExitStatus::Proceed => 0,
            ExitStatus::Worse => 1,
            ExitStatus::Unjudged => 2,
            ExitStatus::Refused => 64,
            ExitStatus::Internal => 70,
        }
    }

    /// The status a process code stands for (`None` for a code digline
    /// never exits with).
    pub const fn of_code(code: i32) -> Option<ExitStatus> {
        match code {
            0 => Some(ExitStatus::Proceed),
            1 => Some(ExitStatus::Worse),
            2 => Some(ExitStatus::Unjudged),
            64 => Some(ExitStatus::Refused),
            70 => Some(ExitStatus::Internal),
            _ => None,
        }
    }

    /// True for the three verdicts (0, 1, 2); false for a refusal or a bug.
    pub const fn is_verdict(self) -> bool {
        matches!(
            self,
            ExitStatus::Proceed | ExitStatus::Worse | ExitStatus::Unjudged
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_the_contract_and_map_both_ways() {
        let all = [
            (ExitStatus::Proceed, 0),
            (ExitStatus::Worse, 1),
            (ExitStatus::Unjudged, 2),
            (ExitStatus::Refused, 64),
            (ExitStatus::Internal, 70),
        ];
        for (status, code) in all {
            assert_eq!(status.code(), code);
            assert_eq!(ExitStatus::of_code(code), Some(status));
        }
        assert_eq!(ExitStatus::of_code(3), None);
        assert!(ExitStatus::Unjudged.is_verdict());
        assert!(!ExitStatus::Refused.is_verdict());
    }
}
