//! Read the store: the runs of a suite (`digline list`, MCP `list_runs`)
//! and what differs between two of them (`digline diff`, MCP `diff`).
//! Each front end renders the same facts; neither reads the store itself.

use crate::core::diff::{diff as diff_runs, Difference};
use crate::core::document::{run_key, RunDocument};
use crate::core::version::{ahead_note, INSTALLED};
use crate::report::diff::{run_labels, sentence};
use crate::store::repo::{Listing, StoredRun};
use crate::store::StoreError;

use super::{Refusal, SuiteRef};

/// The runs of a suite, newest first, and its baseline.
#[derive(Debug)]
pub struct ListFacts {
    /// The suite's tenant.
    pub tenant: String,
    /// The suite's name.
    pub suite: String,
    /// The runs (headers: each run's results counted, then dropped).
    pub listing: Listing,
    /// The baseline's run key; `Err` when the baseline does not read.
    pub baseline_key: Result<Option<String>, StoreError>,
    /// A newer digline wrote one of the documents: the note to warn with.
    pub ahead: Option<String>,
    /// The baseline's checks the base branch's history shows to be lucky
    /// (`core::history`; empty without a baseline or a history).
    pub lucky: Vec<crate::core::history::Lucky>,
    /// The command that measures just those cases again (empty without).
    pub remeasure: String,
}

/// List the stored runs of `suite`.
///
/// # Errors
/// A [`Refusal`] for a bad suite or a store that cannot be listed.
pub fn list(suite: &SuiteRef) -> Result<ListFacts, Refusal> {
    let loaded = suite.load()?;
    let s = &loaded.suite;
    let store = suite.store();
    let listing = store.list_run_headers(&s.tenant, &s.name)?;
    let baseline = store.read_baseline(&s.tenant, &s.name);
    let ahead = ahead_note(
        listing
            .runs
            .iter()
            .map(|r| &r.doc)
            .chain(baseline.as_ref().ok().and_then(Option::as_ref))
            .map(|d| d.digline_version.as_str()),
        INSTALLED,
    );
    let lucky = match &baseline {
        Ok(Some(b)) => {
            let names = (s.tenant.as_str(), s.name.as_str());
            let mode = super::history::HistoryMode::Read;
            let workspace = suite.workspace();
            super::history::read(mode, &workspace, &store, names, Some(b), s.false_alarm_rate).lucky
        }
        _ => Vec::new(),
    };
    let remeasure = if lucky.is_empty() {
        String::new()
    } else {
        super::history::remeasure_command(suite, &lucky)
    };
    let baseline_key = baseline.map(|b| b.map(|b| run_key(&b.created_at, &b.config_hash)));
    Ok(ListFacts {
        tenant: s.tenant.clone(),
        suite: s.name.clone(),
        listing,
        baseline_key,
        ahead,
        lucky,
        remeasure,
    })
}

/// What to diff.
#[derive(Clone, Debug)]
pub struct DiffRequest {
    /// The suite.
    pub suite: SuiteRef,
    /// The first run: a key, or `latest`.
    pub left: String,
    /// The second run.
    pub right: String,
}

/// Two runs and what differs between them; no verdict.
#[derive(Debug)]
pub struct DiffFacts {
    /// The first run.
    pub left: StoredRun,
    /// The second run.
    pub right: StoredRun,
    /// Their labels (dates, or keys when the dates tie).
    pub labels: (String, String),
    /// What differs.
    pub difference: Difference,
    /// The sentence that says it.
    pub sentence: String,
}

/// The two runs a diff reads, and whether a newer digline wrote either.
#[derive(Debug)]
pub struct Pair {
    left: StoredRun,
    right: StoredRun,
    /// A newer digline wrote one of the documents: the note to warn with
    /// (said before the diff, which may refuse).
    pub ahead: Option<String>,
}

/// Read the two runs of a diff.
///
/// # Errors
/// A [`Refusal`]: a bad suite, an unknown or unreadable run, the same run
/// twice ([`Refusal::SameRun`]).
pub fn read_pair(request: &DiffRequest) -> Result<Pair, Refusal> {
    let loaded = request.suite.load()?;
    let s = &loaded.suite;
    let store = request.suite.store();
    let left = store.read_run(&s.tenant, &s.name, &request.left)?;
    let right = store.read_run(&s.tenant, &s.name, &request.right)?;
    if left.key == right.key {
        return Err(Refusal::SameRun {
            key: left.key,
            named: request.suite.named.clone(),
        });
    }
    let ahead = ahead_note(
        [&left.doc, &right.doc].map(|d: &RunDocument| d.digline_version.as_str()),
        INSTALLED,
    );
    Ok(Pair { left, right, ahead })
}

/// Diff the two runs of `pair`.
///
/// # Errors
/// [`Refusal::Refused`] for runs measured under other rules or judges.
pub fn diff(pair: Pair) -> Result<DiffFacts, Refusal> {
    let Pair { left, right, .. } = pair;
    let difference =
        diff_runs(&left.doc, &right.doc).map_err(|e| Refusal::Refused(e.to_string()))?;
    let labels = run_labels(
        &left.doc.created_at,
        &right.doc.created_at,
        &left.key,
        &right.key,
    );
    let sentence = sentence(&difference, (labels.0.as_str(), labels.1.as_str()));
    Ok(DiffFacts {
        left,
        right,
        labels,
        difference,
        sentence,
    })
}

/// One stored document, its key, and whether a newer digline wrote it.
#[derive(Debug)]
pub struct Document {
    /// Its run key.
    pub key: String,
    /// The document.
    pub doc: RunDocument,
    /// A newer digline wrote it: the note to warn with.
    pub ahead: Option<String>,
}

impl Document {
    fn of(key: String, doc: RunDocument) -> Document {
        let ahead = ahead_note([doc.digline_version.as_str()], INSTALLED);
        Document { key, doc, ahead }
    }
}

/// Read one stored run of `suite` (a key, or `latest`).
///
/// # Errors
/// A [`Refusal`]: a bad suite, no such run, an unreadable document.
pub fn run(suite: &SuiteRef, which: &str) -> Result<Document, Refusal> {
    let loaded = suite.load()?;
    let s = &loaded.suite;
    let stored = suite.store().read_run(&s.tenant, &s.name, which)?;
    Ok(Document::of(stored.key, stored.doc))
}

/// Read the baseline of `suite`: the suite's name and tenant, and the
/// document when there is one.
///
/// # Errors
/// A [`Refusal`]: a bad suite, an unreadable baseline.
pub fn baseline(suite: &SuiteRef) -> Result<(String, String, Option<Document>), Refusal> {
    let loaded = suite.load()?;
    let s = &loaded.suite;
    let doc = suite.store().read_baseline(&s.tenant, &s.name)?;
    let document = doc.map(|doc| Document::of(run_key(&doc.created_at, &doc.config_hash), doc));
    Ok((s.name.clone(), s.tenant.clone(), document))
}
