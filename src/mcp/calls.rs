//! What each tool does: resolve the suite inside the one repository this
//! server serves, ask the same `app` use case the CLI asks (read, compare,
//! diff, run), and build the response with the same `wire` function the
//! CLI's `--json` uses. Nothing here reads the store or assembles a
//! comparison, a plan or a run.
//!
//! Every function returns the response object or a [`Refusal`] carrying
//! digline's own sentence. Nothing here catches a panic: a bug stays a bug
//! (the server turns it into an internal error, never a tool result).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::app::compare::CompareRequest;
use crate::app::list::DiffRequest;
use crate::app::run::{Pool, RunFacts, RunRequest};
use crate::app::SuiteRef;
use crate::report::text::{headline_sentence, EN};
use crate::run::notice::Logged;
use crate::run::{Display, Notifier, Plan, RetryPolicy};
use crate::store::repo::LATEST;
use crate::wire::compare::full_json;
use crate::wire::diff::diff_json;
use crate::wire::list::{runs_json, BaselineMark};
use crate::wire::projection::{run_document, Disclosure};
use crate::wire::run::run_json;

use super::refusal::Refusal;

/// Calls to the target in flight at once during `run` (the CLI's default).
pub const CONCURRENCY: usize = 8;

/// The repository this server serves, and the perimeter flags it verifies.
#[derive(Clone, Debug)]
pub struct Repository {
    /// The repository root (symlinks resolved): every suite lives inside it.
    pub root: PathBuf,
    /// The root as the store and the loader are given it: `.` when the
    /// server runs in the root (as `digline mcp` does), so that a refusal
    /// names `./.digline/…` exactly as the CLI run from the root does, and
    /// never this machine's absolute path.
    pub base: PathBuf,
    /// `--tenant`: verified against each suite, never overriding it.
    pub tenant: Option<String>,
    /// `--env`: verified against each suite, never overriding it.
    pub environment: Option<String>,
}

/// The arguments of one call, checked against the tool's parameters.
struct Arguments<'a> {
    tool: &'a str,
    map: &'a Map<String, Value>,
}

impl<'a> Arguments<'a> {
    /// Refuses an argument the tool does not take: a typo is never ignored.
    fn new(
        tool: &'a str,
        map: &'a Map<String, Value>,
        takes: &[&str],
    ) -> Result<Arguments<'a>, Refusal> {
        if let Some(unknown) = map.keys().find(|k| !takes.contains(&k.as_str())) {
            return Err(Refusal::new(format!(
                "{tool} takes no argument '{unknown}'; it takes {}",
                takes.join(", ")
            )));
        }
        Ok(Arguments { tool, map })
    }

    fn string(&self, name: &str, default: Option<&'a str>) -> Result<&'a str, Refusal> {
        match self.map.get(name) {
            Some(Value::String(s)) => Ok(s.as_str()),
            None => default
                .ok_or_else(|| Refusal::new(format!("{} needs the argument '{name}'", self.tool))),
            Some(other) => Err(Refusal::new(format!(
                "{}'s argument '{name}' must be a string, not {other}",
                self.tool
            ))),
        }
    }

    fn count(&self, name: &str) -> Result<Option<u64>, Refusal> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
            Some(other) => Err(Refusal::new(format!(
                "{}'s argument '{name}' must be a whole number of calls, not {other}",
                self.tool
            ))),
        }
    }
}

/// Run tool `name` with `arguments`; `None` when no such tool exists.
pub fn call(
    repo: &Repository,
    name: &str,
    arguments: &Map<String, Value>,
) -> Option<Result<Value, Refusal>> {
    let result = match name {
        "list_runs" => Arguments::new(name, arguments, &["suite"])
            .and_then(|a| list_runs(repo, a.string("suite", None)?)),
        "get_run" => Arguments::new(name, arguments, &["suite", "run"]).and_then(|a| {
            get_run(
                repo,
                a.string("suite", None)?,
                a.string("run", Some(LATEST))?,
            )
        }),
        "get_baseline" => Arguments::new(name, arguments, &["suite"])
            .and_then(|a| get_baseline(repo, a.string("suite", None)?)),
        "compare" => Arguments::new(name, arguments, &["suite", "run"]).and_then(|a| {
            compare(
                repo,
                a.string("suite", None)?,
                a.string("run", Some(LATEST))?,
            )
        }),
        "diff" => Arguments::new(name, arguments, &["suite", "run1", "run2"]).and_then(|a| {
            diff(
                repo,
                a.string("suite", None)?,
                a.string("run1", None)?,
                a.string("run2", None)?,
            )
        }),
        "run" => Arguments::new(name, arguments, &["suite", "acknowledge_calls"]).and_then(|a| {
            run(
                repo,
                a.string("suite", None)?,
                a.count("acknowledge_calls")?,
            )
        }),
        _ => return None,
    };
    Some(result)
}

impl Repository {
    /// `suite` (a path relative to the root) as a use case's request
    /// names it, once it is known to lie inside the repository.
    fn suite(&self, suite: &str) -> Result<SuiteRef, Refusal> {
        let path = self.root.join(suite);
        let Ok(resolved) = std::fs::canonicalize(&path) else {
            return Err(Refusal::new(format!(
                "the suite '{suite}' names no file in the repository this server serves (--root)"
            ))
            .hint("pass the suite file's path relative to the repository root, such as suites/support/suite.toml"));
        };
        if !resolved.starts_with(&self.root) {
            return Err(Refusal::new(format!(
                "the suite '{suite}' is outside the repository this server serves: one server serves one repository"
            ))
            .hint("configure another server with --root at that repository"));
        }
        Ok(SuiteRef {
            file: self.base.join(suite),
            root: self.base.clone(),
            named: suite.to_string(),
            tenant: self.tenant.clone(),
            environment: self.environment.clone(),
        })
    }
}

/// A newer digline wrote a document the answer read: said in the log
/// (stderr, the CLI's warning); the response shapes stay the CLI's.
fn say_ahead(note: Option<&str>) {
    if let Some(note) = note {
        tracing::warn!("{note}");
    }
}

/// `list_runs(suite)`: `app::list`, as `digline list` reads it.
fn list_runs(repo: &Repository, suite: &str) -> Result<Value, Refusal> {
    let facts = crate::app::list::list(&repo.suite(suite)?)?;
    let mark = match &facts.baseline_key {
        Err(e) => {
            tracing::warn!("the baseline is not marked: {e}");
            BaselineMark::Unreadable
        }
        Ok(Some(key)) => BaselineMark::Key(key),
        Ok(None) => BaselineMark::None,
    };
    say_ahead(facts.ahead.as_deref());
    Ok(runs_json(
        &facts.tenant,
        &facts.suite,
        mark,
        &facts.listing,
        &facts.lucky,
    ))
}

/// `get_run(suite, run)`.
fn get_run(repo: &Repository, suite: &str, run: &str) -> Result<Value, Refusal> {
    let read = crate::app::list::run(&repo.suite(suite)?, run)?;
    say_ahead(read.ahead.as_deref());
    Ok(run_document(&read.key, &read.doc, &Disclosure::default()))
}

/// `get_baseline(suite)`.
fn get_baseline(repo: &Repository, suite: &str) -> Result<Value, Refusal> {
    let (name, tenant, read) = crate::app::list::baseline(&repo.suite(suite)?)?;
    let Some(read) = read else {
        return Err(Refusal::new(format!(
            "suite '{name}' has no baseline for tenant '{tenant}' yet"
        ))
        .hint(format!(
            "run it, look at the result, then a person makes one run the reference: digline promote --suite {suite} --run <key>. This server cannot promote."
        )));
    };
    say_ahead(read.ahead.as_deref());
    Ok(run_document(&read.key, &read.doc, &Disclosure::default()))
}

/// `compare(suite, run)`: always `--json full`; the verdict is
/// `app::compare`'s, the one `digline compare` prints.
fn compare(repo: &Repository, suite: &str, run: &str) -> Result<Value, Refusal> {
    let read = crate::app::compare::read(&CompareRequest {
        suite: repo.suite(suite)?,
        run: run.to_string(),
        causes: false,
    })?;
    say_ahead(read.ahead.as_deref());
    let facts = crate::app::compare::compare(read)?;
    let comparison = &facts.comparison;
    let sentence = headline_sentence(comparison, &comparison.headline(), &EN);
    Ok(full_json(comparison, &sentence))
}

/// `diff(suite, run1, run2)`: always `--json full`; no verdict. The
/// difference is `app::list::diff`'s, the one `digline diff` prints.
fn diff(repo: &Repository, suite: &str, run1: &str, run2: &str) -> Result<Value, Refusal> {
    let pair = crate::app::list::read_pair(&DiffRequest {
        suite: repo.suite(suite)?,
        left: run1.to_string(),
        right: run2.to_string(),
    })?;
    say_ahead(pair.ahead.as_deref());
    let facts = crate::app::list::diff(pair)?;
    let (left, right) = (&facts.left, &facts.right);
    Ok(diff_json(
        &facts.difference,
        (&left.key, &facts.labels.0, &left.doc),
        (&right.key, &facts.labels.1, &right.doc),
        &facts.sentence,
        true,
    ))
}

/// The refusal for a missing or wrong acknowledgement: the count and the
/// plan sentence, and nothing called.
fn unacknowledged(given: Option<u64>, plan: &Plan, anchors: Option<String>) -> Refusal {
    let planned = plan.calls();
    let sentence = plan.sentence();
    let opening = match given {
        None => format!("this suite plans {planned} call(s) to the target ({sentence}), and run needs that number stated before it spends anything"),
        Some(n) => format!("acknowledge_calls={n} does not match this suite, which plans {planned} call(s) to the target ({sentence}); suspended cases are never called and are not counted"),
    };
    let judging = plan
        .judge_sentence()
        .map(|j| format!(" Beyond the target: {j}."))
        .unwrap_or_default();
    // The judge anchors' calls are on top of both.
    let judging = match anchors {
        Some(anchors) => {
            let mut chars = anchors.chars();
            let first = chars.next().map(|c| c.to_uppercase().to_string());
            format!("{judging} {}{}.", first.unwrap_or_default(), chars.as_str())
        }
        None => judging,
    };
    Refusal::new(format!("{opening}.{judging} Nothing was called.")).hint(format!(
        "call run again with acknowledge_calls={planned}. The number counts calls to the target; the sentence names any judge repeats, and the whole sentence is the cost to report"
    ))
}

/// `run(suite, acknowledge_calls)`: refused with the plan unless the number
/// equals the planned target calls; then the CLI's `run`, once.
fn run(repo: &Repository, suite: &str, acknowledged: Option<u64>) -> Result<Value, Refusal> {
    let (loaded, plan) = crate::app::run::plan(&repo.suite(suite)?)?;
    if acknowledged != Some(plan.calls() as u64) {
        let anchors = crate::host::runner::anchors_plan(&loaded, crate::report::locale::Locale::En);
        return Err(unacknowledged(acknowledged, &plan, anchors));
    }
    // From here on, `digline run` without flags: the same use case
    // (`app::run`), the same preflight (every problem at once, before any
    // call), the same driver.
    let request = RunRequest {
        suite: repo.suite(suite)?,
        metadata: Map::new(),
        pool: Pool {
            concurrency: CONCURRENCY,
            max_retries: RetryPolicy::default().max_retries,
            quota: crate::run::quota::Quota::default(),
            cost: crate::host::runner::CostOptions::default(),
        },
        max_wait: RetryPolicy::default().max_wait,
        max_calls: None,
        resume: None,
        shard: None,
        balance: false,
        // stdout is the protocol and nobody reads stderr: no progress, no plan lines.
        display: Display::Quiet,
        announce: false,
        retried: crate::run::retry::Retried::default(),
        // The server handles its own lifetime: signals are left alone.
        stop_on_signal: false,
        samples: None,
        cases: Vec::new(),
    };
    // Warnings go to the server's log (stderr); never to the protocol.
    let notices = Notifier::new(std::sync::Arc::new(Logged));
    let RunFacts { key, doc, plan } = crate::app::run::run_loaded(&request, loaded, &notices)?;
    tracing::info!(key = %key, unjudged = doc.unjudged_cases(), "run stored");
    Ok(run_json(&key, &doc.tenant, &doc.suite, &plan.sentence()))
}

/// The repository at `root`, symlinks resolved.
///
/// # Errors
/// A refusal when `root` is not a directory.
pub fn repository(
    root: &Path,
    tenant: Option<&str>,
    environment: Option<&str>,
) -> Result<Repository, Refusal> {
    let resolved = std::fs::canonicalize(root)
        .ok()
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            Refusal::new(format!(
                "--root {} is not a directory: the server serves one repository, named by --root",
                root.display()
            ))
        })?;
    Ok(Repository {
        base: resolved.clone(),
        root: resolved,
        tenant: tenant.map(str::to_string),
        environment: environment.map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(cases: usize, samples: u32) -> Plan {
        Plan {
            cases,
            samples,
            repeated: vec![("contains".into(), 3)],
            judge_calls_per_answer: 2,
            anchors: 0,
            canaries: 0,
        }
    }

    #[test]
    fn the_refusal_states_the_number_and_the_sentence() {
        let missing = unacknowledged(None, &plan(3, 2), None).text();
        assert!(missing.contains("plans 6 call(s)"), "{missing}");
        assert!(missing.contains("3 cases × 2 samples = 6 calls to the target; each answer is judged 3 times by contains"), "{missing}");
        assert!(missing.contains("acknowledge_calls=6"), "{missing}");
        assert!(
            missing
                .contains("Beyond the target: plus 12 calls to judges (2 per answer × 6 answers)."),
            "{missing}"
        );
        let anchored = unacknowledged(
            None,
            &plan(3, 2).with_anchors(4, 1),
            Some("plus the judge anchors: 4 anchor(s)".into()),
        )
        .text();
        assert!(
            anchored.contains(
                "Beyond the target: plus 13 calls to judges (2 per answer × 6 answers, and 1 \
                 judge anchor canary). Plus the judge anchors: 4 anchor(s). Nothing was called."
            ),
            "{anchored}"
        );
        let wrong = unacknowledged(Some(7), &plan(3, 2), None).text();
        assert!(
            wrong.starts_with("acknowledge_calls=7 does not match"),
            "{wrong}"
        );
        assert!(wrong.contains("acknowledge_calls=6"), "{wrong}");
    }

    #[test]
    fn arguments_are_checked_not_guessed() {
        let repo = Repository {
            root: PathBuf::from("/nonexistent-digline-root"),
            base: PathBuf::from("/nonexistent-digline-root"),
            tenant: None,
            environment: None,
        };
        let args = |v: Value| v.as_object().cloned().unwrap_or_default();
        let refused = |name: &str, v: Value| match call(&repo, name, &args(v)) {
            Some(Err(r)) => r.text(),
            other => panic!("{name}: {other:?}"),
        };
        assert!(
            refused("list_runs", serde_json::json!({"suit": "x"})).contains("no argument 'suit'")
        );
        assert!(refused("list_runs", serde_json::json!({})).contains("needs the argument 'suite'"));
        assert!(refused("list_runs", serde_json::json!({"suite": 3})).contains("must be a string"));
        assert!(refused(
            "run",
            serde_json::json!({"suite": "s", "acknowledge_calls": -1})
        )
        .contains("whole number"));
        assert!(refused(
            "run",
            serde_json::json!({"suite": "s", "acknowledge_calls": "3"})
        )
        .contains("whole number"));
        assert!(call(&repo, "promote", &args(serde_json::json!({}))).is_none());
    }
}
