//! Shards at the edge: `--shard auto` from the CI's environment, a suite
//! cut down to one shard's cases, and shard runs read from the files and
//! directories CI artifacts arrive in.
//!
//! `auto` reads GitLab's `CI_NODE_INDEX`/`CI_NODE_TOTAL` (`parallel: N`,
//! 1-based) first, then `DIGLINE_SHARD_INDEX`/`DIGLINE_SHARD_TOTAL`, the
//! pair a GitHub workflow sets from `strategy.job-index` (0-based, as
//! GitHub counts: expressions cannot add one) and `strategy.job-total`.
//! Spec `50-gate.md` ("Shards"); `docs/shards.md`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::core::document::RunDocument;
use crate::core::shard::{balance, partition_hash, plan_hash, Record, Shard, RECORD_KEY};
use crate::core::suite::Case;
use crate::host::suite::LoadedSuite;
use crate::run::merge::ShardRun;

/// The deepest directory level searched for shard runs under a given path.
const MAX_DEPTH: usize = 8;

/// `--shard K/N` or `--shard auto` (read with `env`).
///
/// # Errors
/// The sentence saying what is wrong, or which variables `auto` missed.
pub fn resolve(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard, String> {
    if spec != "auto" {
        return Shard::parse(spec);
    }
    let pairs = [
        ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1u32),
        ("DIGLINE_SHARD_INDEX", "DIGLINE_SHARD_TOTAL", 0u32),
    ];
    for (index_var, total_var, base) in pairs {
        let (index, total) = (env(index_var), env(total_var));
        if index.is_none() && total.is_none() {
            continue;
        }
        let (Some(index), Some(total)) = (index, total) else {
            return Err(format!(
                "--shard auto found only one of {index_var} and {total_var}: set both, or pass --shard K/N"
            ));
        };
        let number = |name: &str, v: &str| -> Result<u32, String> {
            v.trim()
                .parse::<u32>()
                .map_err(|_| format!("--shard auto: {name} is '{v}', not a whole number"))
        };
        let (i, n) = (number(index_var, &index)?, number(total_var, &total)?);
        let k = i
            .checked_add(1 - base)
            .ok_or_else(|| format!("--shard auto: {index_var} is too large"))?;
        return Shard::new(k, n).map_err(|why| {
            format!("--shard auto ({index_var}={index}, {total_var}={total}): {why}")
        });
    }
    Err("--shard auto found no shard in the environment: GitLab sets CI_NODE_INDEX and CI_NODE_TOTAL for a job with parallel: N; on GitHub set DIGLINE_SHARD_INDEX to ${{ strategy.job-index }} and DIGLINE_SHARD_TOTAL to ${{ strategy.job-total }}, or pass --shard K/N".to_string())
}

/// Cut `loaded` down to the cases of `shard` and return the record the
/// run stores in its metadata (the plan is computed over every case
/// first), and the other shards' cases, which the caller may leave to the
/// process's exit rather than free one by one.
pub fn restrict(loaded: &mut LoadedSuite, shard: Shard) -> (Record, Vec<Case>) {
    let suite = &mut loaded.suite;
    let plan = plan_hash(&suite.config_hash(), &suite.cases);
    let (mine, others) = std::mem::take(&mut suite.cases)
        .into_iter()
        .partition(|c| shard.holds(&c.id));
    suite.cases = mine;
    let record = Record {
        shard,
        plan,
        balanced: None,
    };
    (record, others)
}

/// Cut `loaded` down to the cases `shard` takes when the suite is balanced
/// by the durations recorded in `source` (the newest full run), and return
/// the record (plan and partition digest). With no source, or a source
/// that recorded no duration, every case keeps its hash shard; the record
/// says `balanced` either way, so a merge never mixes it with a hash split
/// made without `--balance`.
pub fn restrict_balanced(
    loaded: &mut LoadedSuite,
    shard: Shard,
    source: Option<&RunDocument>,
) -> (Record, usize) {
    let suite = &mut loaded.suite;
    let plan = plan_hash(&suite.config_hash(), &suite.cases);
    let durations: HashMap<&str, u64> = source.map(durations_of).unwrap_or_default();
    let timed = durations.len();
    let ids: Vec<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
    let split = balance(&ids, &|id| durations.get(id).copied(), shard.total);
    let digest = partition_hash(ids.iter().copied().zip(split.iter().copied()));
    let mut keep = split.into_iter();
    suite
        .cases
        .retain(|_| keep.next().is_some_and(|k| k == shard.index));
    let record = Record {
        shard,
        plan,
        balanced: Some(digest),
    };
    (record, timed)
}

/// The run `--balance durations` reads: the newest stored run of the
/// suite that is not a shard (a whole run, or a merged one), else the
/// baseline (a promoted whole run, committed with the repository, so every
/// shard job of a CI matrix reads the same one); its key, or `baseline`.
///
/// # Errors
/// A store that cannot be listed or a run that does not read.
pub fn newest_full_run(
    store: &crate::store::Store,
    tenant: &str,
    suite: &str,
) -> Result<Option<(String, RunDocument)>, crate::store::StoreError> {
    let listing = store.list_run_headers(tenant, suite)?;
    if let Some(run) = listing
        .runs
        .iter()
        .find(|r| !r.doc.metadata.contains_key(RECORD_KEY))
    {
        let stored = store.read_run(tenant, suite, &run.key)?;
        return Ok(Some((stored.key, stored.doc)));
    }
    Ok(store
        .read_baseline(tenant, suite)?
        .map(|b| ("baseline".to_string(), b)))
}

/// Each case's recorded duration in `doc`: the sum of its answers'
/// `latency_ms` (recorded with `record_responses = true`); cases without
/// one are left out.
pub fn durations_of(doc: &RunDocument) -> HashMap<&str, u64> {
    doc.results
        .iter()
        .filter_map(|r| {
            let answers = r.responses.as_ref()?;
            let mut sum = 0u64;
            let mut any = false;
            for a in answers {
                let ms = a.get("latency_ms").and_then(serde_json::Value::as_f64);
                if let Some(ms) = ms.filter(|ms| ms.is_finite() && *ms >= 0.0) {
                    // Whole milliseconds: the split does not hang on float noise.
                    sum = sum.saturating_add(ms.round() as u64);
                    any = true;
                }
            }
            any.then_some((r.case_id.as_str(), sum))
        })
        .collect()
}

/// The refusal for a `--meta` key the shard record owns.
pub fn reserved_meta(key: &str) -> Option<String> {
    (key == RECORD_KEY).then(|| {
        format!("--meta '{key}' is reserved: digline records which shard a run is under that key")
    })
}

/// Every shard run under `paths` (files, or directories searched for
/// `*.json`, hidden entries skipped), in path order.
///
/// # Errors
/// Every problem, one sentence each naming its path: a path that does not
/// exist, a directory with no run in it, a file git tracks, a file that is
/// not a readable run document.
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<ShardRun>, Vec<String>> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) => {
                problems.push(format!("--shards {}: {e}", path.display()));
                continue;
            }
        };
        if meta.is_dir() {
            let mut found = Vec::new();
            if let Err(why) = walk(path, 0, &mut found) {
                problems.push(why);
            } else if found.is_empty() {
                problems.push(format!(
                    "--shards {}: no run document (*.json) in this directory",
                    path.display()
                ));
            }
            files.extend(found.into_iter().map(|f| (path.clone(), f)));
        } else {
            let area = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            files.push((area, path.clone()));
        }
    }
    let mut runs = Vec::with_capacity(files.len());
    let workspace = super::trust::Workspace::of(Path::new("."));
    for (area, path) in files {
        // A shard the workspace does not vouch for (committed, or a link
        // out of where the artifacts arrived) is the pull request's word.
        if let Err(why) = workspace.check(&area, &path) {
            problems.push(format!(
                "{}; shard runs come from the pipeline's own jobs (artifacts), never from the repository",
                why.sentence("a shard run")
            ));
            continue;
        }
        let read = std::fs::read(&path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|bytes| {
                crate::store::document::from_bytes(&path, &bytes).map_err(|e| e.to_string())
            });
        match read {
            // A run is held only while every file so far reads.
            Ok(doc) if problems.is_empty() => runs.push(ShardRun { path, doc }),
            Ok(_) => {}
            Err(why) => problems.push(why),
        }
    }
    if problems.is_empty() {
        Ok(runs)
    } else {
        Err(problems)
    }
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("--shards {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.'))
        })
        .collect();
    entries.sort();
    for path in entries {
        // Symlinks are not followed: an artifact cannot point the merge elsewhere.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            walk(&path, depth + 1, out)?;
        } else if meta.is_file() && path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn auto_reads_gitlab_1_based_and_github_0_based() {
        let gitlab = env_of(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "5")]);
        assert_eq!(resolve("auto", &gitlab), Ok(Shard { index: 2, total: 5 }));
        let github = env_of(&[("DIGLINE_SHARD_INDEX", "0"), ("DIGLINE_SHARD_TOTAL", "5")]);
        assert_eq!(resolve("auto", &github), Ok(Shard { index: 1, total: 5 }));
        let github_last = env_of(&[("DIGLINE_SHARD_INDEX", "4"), ("DIGLINE_SHARD_TOTAL", "5")]);
        assert_eq!(
            resolve("auto", &github_last),
            Ok(Shard { index: 5, total: 5 })
        );
        assert_eq!(
            resolve("auto", &env_of(&[])).unwrap_err(),
            "--shard auto found no shard in the environment: GitLab sets CI_NODE_INDEX and CI_NODE_TOTAL for a job with parallel: N; on GitHub set DIGLINE_SHARD_INDEX to ${{ strategy.job-index }} and DIGLINE_SHARD_TOTAL to ${{ strategy.job-total }}, or pass --shard K/N"
        );
        assert_eq!(
            resolve("auto", &env_of(&[("CI_NODE_INDEX", "1")])).unwrap_err(),
            "--shard auto found only one of CI_NODE_INDEX and CI_NODE_TOTAL: set both, or pass --shard K/N"
        );
        assert_eq!(
            resolve("auto", &env_of(&[("CI_NODE_INDEX", "6"), ("CI_NODE_TOTAL", "5")])).unwrap_err(),
            "--shard auto (CI_NODE_INDEX=6, CI_NODE_TOTAL=5): the shard must be 1 to 5 (shards are counted from 1), not 6"
        );
        assert_eq!(
            resolve(
                "auto",
                &env_of(&[("DIGLINE_SHARD_INDEX", "x"), ("DIGLINE_SHARD_TOTAL", "5")])
            )
            .unwrap_err(),
            "--shard auto: DIGLINE_SHARD_INDEX is 'x', not a whole number"
        );
        assert_eq!(
            resolve("3/4", &env_of(&[])),
            Ok(Shard { index: 3, total: 4 })
        );
    }
}
