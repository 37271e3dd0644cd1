//! Merge the shard runs of one suite (`run --shard K/N`) into the one run a
//! single job over every case would have stored, and store it: what
//! `digline merge` does and `gate --shards` does before it gates.
//!
//! Also the refusal every verdict shares: a shard run is never gated,
//! compared or promoted on its own ([`refuse_a_shard`]).

use std::path::PathBuf;

use crate::core::document::RunDocument;
use crate::host::suite::LoadedSuite;
use crate::report::progress::ProgressStrings;
use crate::run::Notifier;

use super::{Refusal, SuiteRef};

/// What to merge.
#[derive(Clone, Debug)]
pub struct MergeRequest {
    /// The suite (the merged run is stored in its repository).
    pub suite: SuiteRef,
    /// The shard runs: files, or directories searched for `*.json`.
    pub shards: Vec<PathBuf>,
}

/// The merged run, stored.
#[derive(Debug)]
pub struct Merged {
    /// Its key.
    pub key: String,
    /// Its document.
    pub doc: RunDocument,
    /// The suite it was merged for (its cases shed of what a merge never
    /// reads); the caller decides how it is freed.
    pub loaded: Option<LoadedSuite>,
}

/// The plan of `loaded`'s cases and rules (what every shard records), and
/// then the cases without what a merge never reads of them — vars,
/// expected answers, contexts, metadata (a merge reads a case's id,
/// suspension, canary flag, label and group): 100,000 cases are not held
/// whole beside the shard runs and the reference.
pub fn plan_and_shed(loaded: &mut LoadedSuite) -> String {
    let suite = &mut loaded.suite;
    let plan = crate::core::shard::plan_hash(&suite.config_hash(), &suite.cases);
    for case in &mut suite.cases {
        case.vars = serde_json::Map::new();
        case.expected = None;
        case.context = Vec::new();
        case.metadata = serde_json::Map::new();
    }
    plan
}

/// `digline merge`: load the suite, merge the shards, store the run.
///
/// # Errors
/// As [`merge_and_store`], and a suite that does not load.
pub fn merge(request: &MergeRequest, notices: &Notifier) -> Result<Merged, Refusal> {
    let mut loaded = request.suite.load()?;
    let plan = plan_and_shed(&mut loaded);
    let merged = merge_and_store(&request.suite, &loaded, plan, &request.shards, notices)?;
    Ok(Merged {
        loaded: Some(loaded),
        ..merged
    })
}

/// Read, check and merge the shard runs under `paths` for `loaded` (the
/// suite of `suite`, loaded once by the caller, its `plan` taken by
/// [`plan_and_shed`]), and store the merged run; says so as a plan notice.
///
/// # Errors
/// A [`Refusal`]: a shard that does not read, any refusal of the merge, a
/// store that cannot take the run.
pub fn merge_and_store(
    suite: &SuiteRef,
    loaded: &LoadedSuite,
    plan: String,
    paths: &[PathBuf],
    notices: &Notifier,
) -> Result<Merged, Refusal> {
    let store = suite.store();
    let declared = &loaded.suite;
    store.check_writable(&declared.tenant, &declared.name)?;
    let shards =
        crate::host::shards::read_all(paths).map_err(|problems| Refusal::Merge { problems })?;
    let merged =
        crate::run::merge::merge_planned(declared, plan, shards, &crate::host::clock::now_iso())
            .map_err(|problems| Refusal::Merge { problems })?;
    let key = store.write_run(&merged.doc)?;
    notices.plan(ProgressStrings::of(notices.locale()).merged(
        merged.shards as usize,
        &merged.plan.to_string(),
        &key,
        merged.doc.results.len(),
    ));
    Ok(Merged {
        key,
        doc: merged.doc,
        loaded: None,
    })
}

/// Refuse to gate, compare or promote a shard run: it holds a share of the
/// cases, and a verdict on a share could be green while another share regressed.
///
/// # Errors
/// [`Refusal::ShardRun`] when `doc` is a shard run.
pub fn refuse_a_shard(key: &str, doc: &RunDocument, suite: &SuiteRef) -> Result<(), Refusal> {
    match crate::core::shard::Record::of(&doc.metadata) {
        None => Ok(()),
        Some(record) => Err(Refusal::ShardRun {
            key: key.to_string(),
            shard: record.ok().map(|r| r.shard.to_string()),
            named: suite.named.clone(),
        }),
    }
}

/// Which shard `doc` is (`2/3`), when it is a readable shard run.
pub fn shard_of(doc: &RunDocument) -> Option<String> {
    match crate::core::shard::Record::of(&doc.metadata) {
        Some(Ok(record)) => Some(record.shard.to_string()),
        _ => None,
    }
}
