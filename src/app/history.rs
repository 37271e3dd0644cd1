//! The gate's history phase: which mode applies (`--history`), reading the
//! base branch's history against the reference, and recording this gate
//! when it runs on the base branch.
//!
//! History informs, it never decides: what is read here reaches the
//! comment and the report, never the exit code. A history tracked by git
//! is never read (the pull request being judged could write it), like
//! every other file the pull request could write (`host::trust`).

use crate::core::document::RunDocument;
use crate::core::history::{History, Line, Lucky};
use crate::host::env::CiEnv;
use crate::host::trust::Workspace;
use crate::store::Store;

/// What the gate does with the history (`--history`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HistoryMode {
    /// Record on a base-branch job (a push or schedule on the default
    /// branch), read everywhere else.
    #[default]
    Auto,
    /// Read, then append this gate.
    Record,
    /// Read only (the default on pull requests).
    Read,
    /// Neither.
    Off,
}

impl HistoryMode {
    /// The mode `--history` names (`record`, `read`, `off`).
    pub fn parse(word: &str) -> Option<HistoryMode> {
        match word {
            "record" => Some(HistoryMode::Record),
            "read" => Some(HistoryMode::Read),
            "off" => Some(HistoryMode::Off),
            _ => None,
        }
    }

    /// `Auto` made concrete by the CI the gate runs in.
    pub fn resolve(self, env: &CiEnv) -> HistoryMode {
        match self {
            HistoryMode::Auto if env.base_branch_gate => HistoryMode::Record,
            HistoryMode::Auto => HistoryMode::Read,
            other => other,
        }
    }
}

/// The history as the gate read it.
#[derive(Debug, Default)]
pub struct HistoryRead {
    /// The history, when one was read.
    pub history: Option<History>,
    /// A history the workspace does not vouch for (tracked by git, or
    /// linked out of its folder), not read: the path named.
    pub tracked: Option<String>,
    /// The references the history shows to be lucky.
    pub lucky: Vec<Lucky>,
}

/// Read the history of suite `name` against `reference` (nothing without
/// a reference, with `--history off`, or without a file).
pub fn read(
    mode: HistoryMode,
    workspace: &Workspace,
    store: &Store,
    (tenant, name): (&str, &str),
    reference: Option<&RunDocument>,
    alpha: f64,
) -> HistoryRead {
    let Some(reference) = reference.filter(|_| mode != HistoryMode::Off) else {
        return HistoryRead::default();
    };
    let Ok(path) = store.history_path(tenant, name) else {
        return HistoryRead::default();
    };
    let area = path.parent().unwrap_or(&path);
    if let Err(why) = workspace.check(area, &path) {
        tracing::warn!("{}", why.sentence("the history"));
        return HistoryRead {
            tracked: Some(path.display().to_string()),
            ..HistoryRead::default()
        };
    }
    let Some(text) = store.read_history(tenant, name) else {
        return HistoryRead::default();
    };
    let history = History::read(&text, reference, time::OffsetDateTime::now_utc());
    let lucky = history.lucky(reference, alpha);
    HistoryRead {
        history: Some(history),
        tracked: None,
        lucky,
    }
}

/// The command that measures the lucky references again: only their cases
/// (`run --case`, the other cases kept as the reference has them), with
/// four times the reference's samples (30 to 1,000), quoted for a shell.
pub fn remeasure_command(suite: &super::SuiteRef, lucky: &[Lucky]) -> String {
    let samples = lucky
        .iter()
        .map(|l| l.samples * 4)
        .max()
        .unwrap_or(30)
        .clamp(30, 1000)
        .to_string();
    let file = suite.file.display().to_string();
    let root = suite.root.display().to_string();
    let mut words = vec![
        "digline",
        "run",
        "--suite",
        &file,
        "--root",
        &root,
        "--samples",
        &samples,
    ];
    let mut cases: Vec<&str> = Vec::new();
    for l in lucky {
        if !cases.contains(&l.case.as_str()) {
            cases.push(&l.case);
        }
    }
    // An id that begins with `-` would read as a flag after `--case `.
    let joined: Vec<String> = cases.iter().map(|case| format!("--case={case}")).collect();
    for (case, word) in cases.iter().zip(&joined) {
        if case.starts_with('-') {
            words.push(word);
        } else {
            words.extend(["--case", case]);
        }
    }
    // A word with a NUL cannot be quoted for a shell: such an id is shown
    // as its words joined, which a person sees is not to be pasted.
    shlex::try_join(words.iter().copied()).unwrap_or_else(|_| words.join(" "))
}

/// This gate's line, when the mode records and there is a reference.
pub fn line(
    mode: HistoryMode,
    (run, reference): (&RunDocument, Option<&RunDocument>),
    reasks: Option<&crate::core::compare::reask::ReaskRecord>,
    (exit, usd): (i32, Option<f64>),
    env: &CiEnv,
) -> Option<Line> {
    let reference = reference.filter(|_| mode == HistoryMode::Record)?;
    let commit = run.git_commit.clone().or_else(|| env.commit_sha.clone());
    let at = crate::host::clock::now_iso();
    Some(Line::of(run, reference, reasks, (exit, usd, commit, at)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lucky(case: &str) -> Lucky {
        Lucky {
            case: case.into(),
            check: "answer".into(),
            passed: 5,
            samples: 5,
            failed: 9,
            asked: 19,
            p: 0.03,
        }
    }

    #[test]
    fn the_re_measure_command_is_quoted_for_a_shell_and_names_each_case_once() {
        let suite = super::super::SuiteRef {
            file: "my suite/suite.toml".into(),
            root: ".".into(),
            named: "suite.toml".into(),
            tenant: None,
            environment: None,
        };
        let all = [
            lucky("plain"),
            lucky("plain"),
            lucky("-rf"),
            lucky("$(touch x); `y`"),
        ];
        assert_eq!(
            remeasure_command(&suite, &all),
            "digline run --suite 'my suite/suite.toml' --root . --samples 30 --case plain '--case=-rf' --case '$(touch x); `y`'"
        );
        // Four times the reference's samples, at most 1,000.
        let mut thick = lucky("c");
        thick.samples = 400;
        assert!(remeasure_command(&suite, &[thick]).contains("--samples 1000 "));
        // Pasted back, the words are what was meant.
        let words = shlex::split(&remeasure_command(&suite, &all)).unwrap();
        assert_eq!(
            words[8..],
            ["--case", "plain", "--case=-rf", "--case", "$(touch x); `y`"]
        );
    }
}
