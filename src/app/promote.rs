//! Make a run the baseline: same suite, same rules, nothing errored, the
//! reviewed reference named (`--replacing`). What `digline promote` does;
//! the MCP server has no way to ask for it (a person promotes).
//!
//! Two phases: [`read`] (the suite, the run, the current baseline; then the
//! front end says whether a newer digline wrote one of them) and
//! [`promote`] (the checks of `store::promote`, the baseline and its spend
//! record written).

use std::path::PathBuf;

use crate::core::document::{run_key, RunDocument};
use crate::core::version::{ahead_note, INSTALLED};
use crate::host::suite::LoadedSuite;
use crate::store::promote::PromotionRequest;
use crate::store::repo::StoredRun;

use super::{Refusal, SuiteRef};

/// What to promote.
#[derive(Clone, Debug)]
pub struct PromoteRequest {
    /// The suite.
    pub suite: SuiteRef,
    /// The run: a key, or `latest`.
    pub run: String,
    /// The baseline the person reviewed: `Some(None)` for none, `None` when not said.
    pub replacing: Option<Option<String>>,
}

/// The suite, the run and the current baseline, read.
pub struct Read {
    loaded: LoadedSuite,
    stored: StoredRun,
    current: Option<RunDocument>,
    /// A newer digline wrote one of the documents: the note to warn with.
    pub ahead: Option<String>,
}

/// The baseline, written.
#[derive(Debug)]
pub struct Promoted {
    /// The suite's name.
    pub suite: String,
    /// The new baseline's run key.
    pub key: String,
    /// Where the baseline was written (to commit).
    pub path: PathBuf,
    /// Where its spend record was written, when the run had one (to commit too).
    pub spend_path: Option<PathBuf>,
}

/// Read what a promotion needs.
///
/// # Errors
/// A [`Refusal`]: a bad suite, no such run, a shard run, an unreadable baseline.
pub fn read(request: &PromoteRequest) -> Result<Read, Refusal> {
    let loaded = request.suite.load()?;
    let suite = &loaded.suite;
    let store = request.suite.store();
    let stored = store.read_run(&suite.tenant, &suite.name, &request.run)?;
    super::merge::refuse_a_shard(&stored.key, &stored.doc, &request.suite)?;
    let current = store.read_baseline(&suite.tenant, &suite.name)?;
    let ahead = ahead_note(
        std::iter::once(&stored.doc)
            .chain(current.as_ref())
            .map(|d| d.digline_version.as_str()),
        INSTALLED,
    );
    Ok(Read {
        loaded,
        stored,
        current,
        ahead,
    })
}

/// Promote the run `read` holds and write the baseline beside its spend.
///
/// # Errors
/// A [`Refusal`] naming the condition that failed (`store::promote`), or a
/// store that cannot take the baseline.
pub fn promote(request: &PromoteRequest, read: Read) -> Result<Promoted, Refusal> {
    let Read {
        loaded,
        stored,
        current,
        ..
    } = read;
    let suite = &loaded.suite;
    let store = request.suite.store();
    let config_hash = suite.config_hash();
    let promoted_at = crate::host::clock::now_iso();
    let baseline = crate::store::promote::promote(&PromotionRequest {
        run: &stored.doc,
        run_key: &stored.key,
        tenant: &suite.tenant,
        suite: &suite.name,
        suite_arg: &request.suite.named,
        config_hash: &config_hash,
        replacing: request.replacing.as_ref().map(Option::as_deref),
        current: current.as_ref(),
        promoted_at: &promoted_at,
    })?;
    let path = store.write_baseline(&baseline)?;
    // The reference's spend (money and tokens) follows it, beside it.
    store.promote_spend(&suite.tenant, &suite.name, &stored.key)?;
    let spend_path = store
        .read_baseline_spend(&suite.tenant, &suite.name)
        .and_then(|_| store.baseline_spend_path(&suite.tenant, &suite.name).ok());
    Ok(Promoted {
        suite: suite.name.clone(),
        key: run_key(&baseline.created_at, &baseline.config_hash),
        path,
        spend_path,
    })
}
