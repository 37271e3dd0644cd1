//! `digline merge`: make the shard runs of one suite (`run --shard K/N`,
//! as CI artifacts arrive: files, or directories holding them) into the
//! one run a single job over every case would have stored, store it and
//! print its key, as `run` does. `gate --shards` merges through the same
//! function, then gates the merged run once.
//!
//! Refused (64, one sentence): a missing shard, a shard of another plan,
//! suite, tenant or configuration, overlapping or duplicated shards, a
//! copy of another shard, a shard whose cases lack what the suite declares
//! for them (`run::merge`). Never a gate: 0 when stored.

use std::path::PathBuf;

use clap::Args;

use crate::core::document::RunDocument;
use crate::host::suite::LoadedSuite;
use crate::report::locale::Locale;
use crate::report::progress::ProgressStrings;
use crate::store::Store;

use super::exit::ExitStatus;
use super::{load_suite, CliError, SuiteArgs};

/// Flags of `digline merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Which suite, which repository (the merged run is stored there).
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// The shard runs: files, or directories searched for *.json (every shard, once).
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    pub shards: Vec<PathBuf>,
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

/// Read, check and merge the shard runs under `paths` for `loaded` (the
/// suite of `args`, loaded once by the caller, its `plan` taken by
/// [`plan_and_shed`]), and store the merged run: its key and document.
///
/// # Errors
/// [`CliError`] (exit 64): a shard that does not read, any refusal of the
/// merge, a store that cannot take the run.
pub fn merge_and_store(
    args: &SuiteArgs,
    loaded: &LoadedSuite,
    plan: String,
    paths: &[PathBuf],
    quiet: bool,
    locale: Locale,
) -> Result<(String, RunDocument), CliError> {
    let store = Store::new(&args.root);
    let suite = &loaded.suite;
    store.check_writable(&suite.tenant, &suite.name)?;
    let shards = crate::host::shards::read_all(paths).map_err(CliError::Refused)?;
    let merged =
        crate::run::merge::merge_planned(suite, plan, shards, &crate::host::clock::now_iso())
            .map_err(|why| CliError::Refused(format!("merge refused: {why}")))?;
    let key = store.write_run(&merged.doc)?;
    super::run::notices(quiet, locale).plan(ProgressStrings::of(locale).merged(
        merged.shards as usize,
        &merged.plan.to_string(),
        &key,
        merged.doc.results.len(),
    ));
    Ok((key, merged.doc))
}

/// Execute `digline merge`: print the merged run's key.
///
/// # Errors
/// As [`merge_and_store`].
pub fn execute(args: MergeArgs, quiet: bool) -> Result<ExitStatus, CliError> {
    let mut loaded = load_suite(&args.suite)?;
    let plan = plan_and_shed(&mut loaded);
    let (key, doc) = merge_and_store(&args.suite, &loaded, plan, &args.shards, quiet, Locale::En)?;
    super::leave_to_exit(loaded);
    super::output::outln(&key)?;
    super::leave_to_exit(doc);
    Ok(ExitStatus::Proceed)
}

/// Refuse to gate, compare or promote a shard run: it holds a share of the
/// cases, and a verdict on a share could be green while another share regressed.
///
/// # Errors
/// [`CliError::Usage`] when `doc` is a shard run.
pub fn refuse_a_shard(key: &str, doc: &RunDocument, suite: &SuiteArgs) -> Result<(), CliError> {
    match crate::core::shard::Record::of(&doc.metadata) {
        None => Ok(()),
        Some(record) => {
            let which =
                record.map_or_else(|_| "a shard".to_string(), |r| format!("shard {}", r.shard));
            Err(CliError::usage(
                format!("run {key} is {which} of a sharded run, not the whole suite: a share of the cases is never gated, compared or promoted on its own"),
                Some(format!(
                    "merge every shard first: digline merge --suite {} --shards <the shard runs>",
                    suite.suite.display()
                )),
            ))
        }
    }
}

/// `gate --shard K/N`: the shard is stored and the job ends without a
/// verdict (0): the one job that runs `gate --shards` gates the whole.
///
/// # Errors
/// [`CliError`] when stdout cannot take the key.
pub fn shard_stored(
    key: &str,
    doc: &RunDocument,
    quiet: bool,
    locale: Locale,
) -> Result<Option<ExitStatus>, CliError> {
    let Some(Ok(record)) = crate::core::shard::Record::of(&doc.metadata) else {
        return Ok(None);
    };
    super::output::outln(key)?;
    super::run::notices(quiet, locale)
        .plan(ProgressStrings::of(locale).shard_stored(&record.shard.to_string(), key));
    Ok(Some(ExitStatus::Proceed))
}
