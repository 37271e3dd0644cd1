//! Merging shard runs into the one run a single job over every case would
//! have stored: the same case order (`cases.json`), the aggregates counted
//! again over every case, canaries and suspensions as recorded, and no
//! shard record.
//!
//! Every shard is checked before anything is merged, and each problem is
//! one sentence naming its file (the CLI's exit 64, one per line): every
//! file's own problems are said together, then — once every file is a shard
//! of this plan — every problem between the shards (`between_shards`),
//! then each altered shard file and each shard file lacking a case. The
//! problems: a file that is not a shard run, a shard of another tenant,
//! suite, rules or plan, a copy of another shard, two shards with the
//! same number, a case held by the wrong shard or by none, a missing shard, and shards that disagree about how they
//! ran (commit, version, environment, target, judges, artifacts,
//! metadata), and shards split two ways (by hash and by durations, or
//! balanced from different runs). A case recorded otherwise than the
//! suite declares it (suspended or not, its suspension reason, canary or
//! not) is an altered shard, refused too, and so is a case that lacks a
//! verdict, a sampled score or an answer the suite declares for it, or
//! carries one it does not (`declared`). A balanced split (`--balance
//! durations`) is checked whole: the partition the shards actually hold
//! must hash to the one they record. A merge never fills a gap: a missing
//! shard is a refusal, never a smaller green run.
//!
//! Each result is moved, not copied, into its case's place: the merge
//! holds the shard runs once.
//!
//! Pure apart from what the caller passes in (the documents, their paths,
//! `created_at`). Spec `50-gate.md` ("Shards").

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::core::document::{CaseResult, RunDocument, SCHEMA_VERSION};
use crate::core::shard::{partition_hash, plan_hash, Record, RECORD_KEY};
use crate::core::suite::{Case, Suite};

use super::driver::count_aggregates;

/// One shard run as read from a file.
#[derive(Debug)]
pub struct ShardRun {
    /// Where it was read (names it in refusals).
    pub path: PathBuf,
    /// The document.
    pub doc: RunDocument,
}

/// The merged run: its document and what was merged.
#[derive(Debug)]
pub struct Merged {
    /// The document, ready to store.
    pub doc: RunDocument,
    /// How many shards were merged.
    pub shards: u32,
    /// The plan they were shards of.
    pub plan: String,
}

/// Merge `shards` of `suite` into one run created at `created_at`.
///
/// # Errors
/// The sentences that refuse the merge: every problem of every shard file
/// on its own (not a shard run, another tenant, suite, rules or plan, a
/// re-judged run), each naming its file; else every problem between the
/// shards, each naming the files concerned; else each altered or
/// incomplete shard file, in the order the module doc lists them.
pub fn merge(
    suite: &Suite,
    shards: Vec<ShardRun>,
    created_at: &str,
) -> Result<Merged, Vec<String>> {
    let plan = plan_hash(&suite.config_hash(), &suite.cases);
    merge_planned(suite, plan, shards, created_at)
}

/// [`merge`] with the suite's `plan` computed by the caller (`plan_hash`
/// over the suite's rules and cases), who may then shed what the merge
/// does not read of a case: its vars, expected answer, context and
/// metadata (a merge reads a case's id, suspension, canary flag, label
/// and group).
///
/// # Errors
/// As [`merge`].
pub fn merge_planned(
    suite: &Suite,
    plan: String,
    shards: Vec<ShardRun>,
    created_at: &str,
) -> Result<Merged, Vec<String>> {
    let config_hash = suite.config_hash();
    if shards.is_empty() {
        return Err(vec!["no shard run was given".to_string()]);
    }
    let records = shard_records(suite, &plan, &config_hash, &shards)?;

    let (by_index, total) = between_shards(&shards, &records)?;
    let balanced = records[0].balanced.clone();
    let first = &shards[0];
    let pick = |get: fn(&RunDocument) -> &Map<String, Value>| {
        shards
            .iter()
            .map(|s| get(&s.doc))
            .find(|m| !m.is_empty())
            .cloned()
            .unwrap_or_default()
    };
    let target_config = pick(|d| &d.target_config);
    let judge_config = pick(|d| &d.judge_config);
    let metadata = user_metadata(&first.doc.metadata);
    let (artifacts, digline_version, environment, git_commit, redacted) = (
        first.doc.artifacts.clone(),
        first.doc.digline_version.clone(),
        first.doc.environment.clone(),
        first.doc.git_commit.clone(),
        first.doc.redacted,
    );

    // The cases, in the suite's order: each result moved into its case's
    // place (no copy of a result or of its id is held on the way).
    let path_of: BTreeMap<u32, String> = by_index
        .iter()
        .map(|(&k, &i)| (k, shards[i].path.display().to_string()))
        .collect();
    let place: HashMap<&str, usize> = suite
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let mut slots: Vec<Option<CaseResult>> = Vec::new();
    slots.resize_with(suite.cases.len(), || None);
    let mut held_by = vec![0u32; suite.cases.len()];
    let mut extra: Option<(String, String)> = None;
    // Each altered shard file is named, with its first altered case.
    let mut altered = Vec::new();
    // The judge anchors are graded by the first shard alone: its record
    // (the first in shard order) speaks for the merged run.
    let judge_anchors = by_index
        .values()
        .find_map(|&i| shards[i].doc.judge_anchors.clone());
    for (s, r) in shards.into_iter().zip(&records) {
        let mut first: Option<String> = None;
        for result in s.doc.results {
            if first.is_some() {
                continue;
            }
            match place.get(result.case_id.as_str()) {
                Some(&i) if slots[i].is_some() => {
                    first = Some(format!(
                        "{} holds case '{}', which another shard holds too: overlapping or altered shards are never merged",
                        s.path.display(),
                        result.case_id
                    ));
                }
                Some(&i) => {
                    if let Err(what) = recorded_as_declared(&suite.cases[i], &result) {
                        first = Some(format!(
                            "{} records case '{}' {what}: an altered shard is never merged",
                            s.path.display(),
                            result.case_id
                        ));
                    } else if let Err(what) =
                        declared::carries_declared(suite, &suite.cases[i], &result)
                    {
                        first = Some(format!(
                            "{} {what}: an altered or incomplete shard is never merged",
                            s.path.display()
                        ));
                    } else {
                        slots[i] = Some(result);
                        held_by[i] = r.shard.index;
                    }
                }
                None => {
                    if extra.as_ref().is_none_or(|(id, _)| result.case_id < *id) {
                        extra = Some((result.case_id, s.path.display().to_string()));
                    }
                }
            }
        }
        altered.extend(first);
    }
    if !altered.is_empty() {
        return Err(altered);
    }
    let mut results = Vec::with_capacity(suite.cases.len());
    // Each incomplete shard file is named, with its first missing case.
    let mut lacking: BTreeMap<u32, String> = BTreeMap::new();
    for (case, slot) in suite.cases.iter().zip(slots) {
        match slot {
            Some(r) => results.push(r),
            None if balanced.is_some() => {
                return Err(vec![format!(
                    "no shard holds case '{}', which the balanced plan gives one of them: an altered or incomplete shard is never merged",
                    case.id
                )]);
            }
            None => {
                let k = crate::core::shard::shard_of(&case.id, total);
                lacking.entry(k).or_insert_with(|| format!(
                    "{} (shard {k}/{total}) lacks case '{}', which the plan gives it: an altered or incomplete shard is never merged",
                    path_of.get(&k).map_or("a shard", String::as_str),
                    case.id
                ));
            }
        }
    }
    if !lacking.is_empty() {
        return Err(lacking.into_values().collect());
    }
    if let Some((extra, holder)) = extra {
        return Err(vec![format!(
            "{holder} holds case '{extra}', which the suite does not have"
        )]);
    }
    if let Some(recorded) = &balanced {
        let found = partition_hash(
            suite
                .cases
                .iter()
                .map(|c| c.id.as_str())
                .zip(held_by.iter().copied()),
        );
        if &found != recorded {
            return Err(vec![format!(
                "the shards hold their cases as partition {found}, not as the balanced partition {recorded} they record: a case moved between shards, and an altered shard is never merged"
            )]);
        }
    }
    let aggregate = count_aggregates(suite, &results);
    Ok(Merged {
        doc: RunDocument {
            aggregate,
            artifacts,
            config_hash,
            created_at: created_at.to_string(),
            digline_version,
            environment,
            git_commit,
            judge_config,
            metadata,
            redacted,
            results,
            schema_version: SCHEMA_VERSION,
            suite: suite.name.clone(),
            target_config,
            tenant: suite.tenant.clone(),
            rejudged_from: None,
            promoted_at: None,
            judge_anchors,
        },
        shards: total,
        plan,
    })
}

/// The checks between the shards, once every file is a shard of this
/// plan: every problem, each naming the shard files concerned, in the
/// order the files were given — a copy of an earlier file, a shard split
/// another way or another number of ways than the first, two runs of one
/// shard — then each file holding a case of another shard (its first),
/// the missing shards, and each way a file differs from the first in how
/// it ran. Shards split two ways are said once, naming the first file of
/// each way. A file is judged once: a copy is not also an overlapping shard,
/// a shard split otherwise is not also an overlap, and the missing shards
/// are not counted while the shards disagree about the split.
///
/// # Errors
/// Every problem found; else the shard index each file holds (its
/// position in `shards`) and the number of shards.
fn between_shards(
    shards: &[ShardRun],
    records: &[Record],
) -> Result<(BTreeMap<u32, usize>, u32), Vec<String>> {
    let mut problems = Vec::new();
    let (first, reference) = (&shards[0], &records[0]);
    let total = reference.shard.total;
    let mut by_index: BTreeMap<u32, usize> = BTreeMap::new();
    let mut copies = vec![false; shards.len()];
    let mut split_differs = false;
    let (mut said_mixed, mut said_partitions) = (false, Vec::new());
    for (i, (s, r)) in shards.iter().zip(records).enumerate() {
        // The same bytes are the same run: one `created_at` (the time, to
        // the microsecond, its job started) covers both copies.
        if let Some(earlier) = shards[..i]
            .iter()
            .find(|e| e.doc.created_at == s.doc.created_at)
        {
            problems.push(format!(
                "{} is a copy of {} (the same run, created at {}): give each shard once",
                s.path.display(),
                earlier.path.display(),
                s.doc.created_at
            ));
            copies[i] = true;
            continue;
        }
        // Split two ways is one problem, said once (by the first file
        // split otherwise), and so is each other balanced partition.
        let split_otherwise = match (&reference.balanced, &r.balanced) {
            (None, Some(_)) | (Some(_), None) => {
                let (by_time, by_hash) = if r.balanced.is_some() {
                    (s, first)
                } else {
                    (first, s)
                };
                if !said_mixed {
                    problems.push(format!(
                        "{} is split by recorded durations (--balance durations) but {} by the hash of the case id: shards of one merge are split the same way; run every shard with the same --balance",
                        by_time.path.display(),
                        by_hash.path.display()
                    ));
                }
                said_mixed = true;
                true
            }
            (Some(a), Some(b)) if a != b => {
                if !said_partitions.contains(&b) {
                    problems.push(format!(
                        "{} and {} were balanced from different recorded durations (partitions {a} and {b}): run every shard from the same newest full run",
                        first.path.display(),
                        s.path.display()
                    ));
                }
                said_partitions.push(b);
                true
            }
            _ => false,
        };
        if r.shard.total != total {
            problems.push(format!(
                "{} is shard {} but {} is shard {}: shards of one merge split the suite the same number of ways",
                s.path.display(),
                r.shard,
                first.path.display(),
                reference.shard
            ));
        }
        if split_otherwise || r.shard.total != total {
            split_differs = true;
            continue;
        }
        if let Some(&j) = by_index.get(&r.shard.index) {
            problems.push(format!(
                "{} and {} are both shard {}: overlapping shards (two runs of the same shard); give one of them",
                shards[j].path.display(),
                s.path.display(),
                r.shard
            ));
            continue;
        }
        by_index.insert(r.shard.index, i);
    }

    // Every case where the partition puts it (a balanced partition is
    // checked whole, once every case is placed): each file's first stray.
    if reference.balanced.is_none() {
        let mut kept: Vec<usize> = by_index.values().copied().collect();
        kept.sort_unstable();
        for i in kept {
            let (s, r) = (&shards[i], &records[i]);
            if let Some(result) = s.doc.results.iter().find(|c| !r.shard.holds(&c.case_id)) {
                let belongs = crate::core::shard::shard_of(&result.case_id, total);
                problems.push(format!(
                    "{} (shard {}) holds case '{}', which belongs to shard {belongs}/{total}: overlapping or altered shards",
                    s.path.display(),
                    r.shard,
                    result.case_id
                ));
            }
        }
    }
    let missing: Vec<String> = (1..=total)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| format!("{k}/{total}"))
        .collect();
    if !missing.is_empty() && !split_differs {
        problems.push(format!(
            "{} of {total} shard(s) missing ({}): a merge never stands in for a shard that did not arrive; wait for every shard job, or run the missing one with --shard",
            missing.len(),
            missing.join(", ")
        ));
    }

    // Everything the shards must agree on (a single run has one of each).
    for (s, _) in shards.iter().zip(&copies).skip(1).filter(|(_, &c)| !c) {
        problems.extend(differences(&first.doc, &s.doc).into_iter().map(|what| {
            format!(
                "{} and {} differ in {what}: shards of one run are made from the same commit, digline and configuration",
                first.path.display(),
                s.path.display()
            )
        }));
    }
    if problems.is_empty() {
        Ok((by_index, total))
    } else {
        Err(problems)
    }
}

/// What `s` records otherwise than `first` about how it ran, each as the
/// refusal names it (`their git commit`).
fn differences(first: &RunDocument, s: &RunDocument) -> Vec<&'static str> {
    let mut differ = Vec::new();
    for (what, same) in [
        ("their git commit", s.git_commit == first.git_commit),
        (
            "the digline that made them",
            s.digline_version == first.digline_version,
        ),
        ("their environment", s.environment == first.environment),
        ("their artifacts", s.artifacts == first.artifacts),
        ("being redacted", s.redacted == first.redacted),
        (
            "their --meta values",
            user_metadata(&s.metadata) == user_metadata(&first.metadata),
        ),
        (
            "the target's configuration",
            agree(&first.target_config, &s.target_config),
        ),
        (
            "the judges' configuration",
            agree(&first.judge_config, &s.judge_config),
        ),
    ] {
        if !same {
            differ.push(what);
        }
    }
    differ
}

/// Whether two shards' configurations agree: a shard that asked nothing
/// (every case suspended) reports none.
fn agree(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.is_empty() || b.is_empty() || a == b
}

/// Each shard's record, once every file is checked on its own: every
/// problem of every file (not a shard run, another tenant, suite, rules or
/// plan, a re-judged run or a baseline), each naming its file.
fn shard_records(
    suite: &Suite,
    plan: &str,
    config_hash: &str,
    shards: &[ShardRun],
) -> Result<Vec<Record>, Vec<String>> {
    let mut records = Vec::with_capacity(shards.len());
    let mut problems = Vec::new();
    for s in shards {
        let name = s.path.display();
        let record = match Record::of(&s.doc.metadata) {
            None => {
                problems.push(format!(
                    "{name} is not a shard run (it has no {RECORD_KEY} record in its metadata): only runs made with --shard K/N are merged"
                ));
                continue;
            }
            Some(Err(why)) => {
                problems.push(format!("{name} is not a readable shard run: {why}"));
                continue;
            }
            Some(Ok(record)) => record,
        };
        if s.doc.tenant != suite.tenant {
            problems.push(format!(
                "{name} is a shard of tenant '{}', not of this suite's tenant '{}': runs of different tenants are never merged",
                s.doc.tenant, suite.tenant
            ));
        }
        if s.doc.suite != suite.name {
            problems.push(format!(
                "{name} is a shard of suite '{}', not of suite '{}'",
                s.doc.suite, suite.name
            ));
        }
        // Other rules make another plan too: the rules are said, once.
        if s.doc.config_hash != config_hash {
            problems.push(format!(
                "{name} was run under other rules (config {}, the suite's is {config_hash}): every shard must run the suite's current checks",
                s.doc.config_hash
            ));
        } else if record.plan != plan {
            problems.push(format!(
                "{name} is shard {} of another plan ({}, this suite's cases and rules make plan {plan}): its cases or rules differ from the suite's",
                record.shard, record.plan
            ));
        }
        if s.doc.rejudged_from.is_some() || s.doc.promoted_at.is_some() {
            problems.push(format!(
                "{name} is a re-judged run or a baseline, not a shard run"
            ));
        }
        records.push(record);
    }
    if problems.is_empty() {
        Ok(records)
    } else {
        Err(problems)
    }
}

/// Whether `result` records `case`'s suspension (flag and reason) and
/// canary flag exactly as a single run records them (`run::driver`): a
/// shard cannot suspend a failing case, lift a suspension, or move a case
/// in or out of the canaries. The error says how the record differs (no
/// reason is quoted: reasons are payload).
fn recorded_as_declared(case: &Case, result: &CaseResult) -> Result<(), &'static str> {
    match (&case.suspended, result.suspended) {
        (None, true) => return Err("as suspended, but the suite does not suspend it"),
        (Some(_), false) => return Err("as run, but the suite suspends it"),
        _ => {}
    }
    if result.suspended_reason != case.suspended {
        return Err(if case.suspended.is_some() {
            "as suspended for another reason than the suite gives"
        } else {
            "with a suspension reason, but the suite does not suspend it"
        });
    }
    match (case.canary, result.canary) {
        (true, Some(true)) | (false, None) => Ok(()),
        (false, Some(true)) => Err("as a canary, but the suite does not declare it one"),
        (true, _) => Err("as no canary, but the suite declares it one"),
        (false, Some(false)) => Err("with `canary: false`, which no run records"),
    }
}

/// The metadata without the shard record: what `--meta` said.
fn user_metadata(metadata: &Map<String, Value>) -> Map<String, Value> {
    let mut m = metadata.clone();
    m.remove(RECORD_KEY);
    m
}

mod declared;
#[cfg(test)]
mod tests;
