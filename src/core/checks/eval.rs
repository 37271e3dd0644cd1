//! Evaluation of declared checks: pure functions of the answer.
//!
//! (Skeleton: filled in by the check catalogue work.)

use super::{DeclaredCheck, Inputs};
use crate::core::verdict::Verdict;

/// Judge one answer with one declared check.
pub(super) fn evaluate(check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
    let _ = inputs;
    check.errored("this check is not built yet".to_string())
}
