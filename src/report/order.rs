//! Suite order: what a reader sees is listed as the suite lists it — cases
//! in `cases.json` order (the order a run stores its results in), checks in
//! declaration order within a case, whole-run measures after every case in
//! the order they are declared. Cases and checks only the reference has
//! follow, in the reference's order.
//!
//! A comparison pairs its deltas by key (case id, then the check's identity
//! hash), which is no order a person wrote; the gate's terminal text, the
//! comment, the job summary, JUnit, the HTML report, `compare`'s text and
//! `diff`'s text sort through [`SuiteOrder`] (0.10.0 listed `compare`'s
//! rows by check-identity hash). Documents (stored runs) keep 0.10.0's
//! bytes.
//!
//! Pure.

use std::collections::HashMap;

use crate::core::compare::{compare, CompareError, Comparison, Delta, PairKey, Scope};
use crate::core::document::RunDocument;
use crate::core::verdict::Verdict;

/// The position of every (case, check) of a run and its reference.
/// Borrows its names and verdict lists from the documents (no copy per
/// case, no entry per check: a check's place is found in its case's list).
#[derive(Clone, Debug, Default)]
pub struct SuiteOrder<'a> {
    cases: HashMap<&'a str, Placed<'a>>,
    measures: HashMap<(&'a str, usize), usize>,
}

/// A case's place, and its verdicts in the run and in the reference.
#[derive(Clone, Debug)]
struct Placed<'a> {
    index: usize,
    lists: [Option<&'a [Verdict]>; 2],
}

impl<'a> SuiteOrder<'a> {
    /// The order of `run`, then of what only `baseline` has.
    pub fn new(run: &'a RunDocument, baseline: Option<&'a RunDocument>) -> SuiteOrder<'a> {
        let mut order = SuiteOrder::default();
        for (side, doc) in std::iter::once(run).chain(baseline).enumerate() {
            for case in &doc.results {
                let next = order.cases.len();
                let placed = order.cases.entry(case.case_id.as_str()).or_insert(Placed {
                    index: next,
                    lists: [None, None],
                });
                placed.lists[side].get_or_insert(&case.verdicts);
            }
            let mut seen: HashMap<&str, usize> = HashMap::new();
            for v in &doc.aggregate {
                let n = seen.entry(v.assertion_id.as_str()).or_insert(0);
                let next = order.measures.len();
                order
                    .measures
                    .entry((v.assertion_id.as_str(), *n))
                    .or_insert(next);
                *n += 1;
            }
        }
        order
    }

    /// The sort key of one pairing key: cases first (file order, then
    /// check order), then whole-run measures.
    pub fn key(&self, key: &PairKey) -> (u8, usize, usize) {
        self.position(key.scope, &key.case_id, &key.assertion_id, key.occurrence)
    }

    /// The sort key of (scope, case id, check identity, occurrence), as
    /// [`SuiteOrder::key`].
    pub fn position(
        &self,
        scope: Scope,
        case_id: &str,
        assertion_id: &str,
        occurrence: usize,
    ) -> (u8, usize, usize) {
        match scope {
            Scope::Case => match self.cases.get(case_id) {
                Some(placed) => (
                    0,
                    placed.index,
                    // The run's place for the check, else the reference's.
                    placed
                        .lists
                        .iter()
                        .flatten()
                        .find_map(|list| {
                            list.iter()
                                .enumerate()
                                .filter(|(_, v)| v.assertion_id == assertion_id)
                                .nth(occurrence)
                                .map(|(i, _)| i)
                        })
                        .unwrap_or(usize::MAX),
                ),
                None => (0, usize::MAX, usize::MAX),
            },
            Scope::Run => (
                1,
                0,
                self.measures
                    .get(&(assertion_id, occurrence))
                    .copied()
                    .unwrap_or(usize::MAX),
            ),
        }
    }

    /// Lists `comparison`'s deltas and rule changes in this order (what
    /// the coverage lists, the rule changes and `--json` show).
    pub fn arrange(&self, comparison: &mut Comparison) {
        comparison.arrange_by(|k| self.key(k));
    }

    /// `deltas` sorted into suite order (stable: ties keep their order).
    pub fn sort<'d>(&self, deltas: impl IntoIterator<Item = &'d Delta>) -> Vec<&'d Delta> {
        let mut out: Vec<&Delta> = deltas.into_iter().collect();
        out.sort_by_cached_key(|d| self.key(&d.key));
        out
    }
}

/// `compare(run, baseline)` with its lists in suite order: the comparison
/// every surface (terminal, comment, summary, report, `--json`) shows.
pub fn compare_in_suite_order(
    run: &RunDocument,
    baseline: &RunDocument,
) -> Result<Comparison, CompareError> {
    let mut comparison = compare(run, baseline)?;
    SuiteOrder::new(run, Some(baseline)).arrange(&mut comparison);
    Ok(comparison)
}
