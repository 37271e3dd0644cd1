//! Helpers for the CLI tests: the binary, temp copies, the loopback stub.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../examples/quickstart/stub_server.rs"]
#[allow(dead_code)]
mod stub_server;

pub use stub_server::Stub;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A golden folder under `tests/goldens`.
pub fn golden(rel: &str) -> PathBuf {
    repo().join("tests/goldens").join(rel)
}

/// Start the stub on a free port, answering from `answers`.
pub fn stub(answers: &Path) -> Stub {
    stub_server::start(answers.to_path_buf(), 0).expect("the stub starts")
}

/// What a digline invocation did.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Ran {
    fn from(o: Output) -> Ran {
        Ran {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// Run digline with `args` in `dir`.
pub fn digline(dir: &Path, args: &[&str]) -> Ran {
    digline_env(dir, args, &[])
}

/// The variables that say digline runs in CI: a test that spawns digline
/// decides them itself (CI machines set `CI=true`, and `.ci/run` does).
pub const CI_VARIABLES: &[&str] = &[
    "CI",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "TF_BUILD",
    "JENKINS_URL",
];

/// Run digline with `args` in `dir` and these environment variables set
/// (the provider variables, the CI variables ([`CI_VARIABLES`]),
/// `DIGLINE_ALLOW_HOSTS` and `DIGLINE_LOG` are otherwise unset).
pub fn digline_env(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_digline"));
    command.args(args).current_dir(dir);
    for name in [
        "DIGLINE_LOG",
        "DIGLINE_ALLOW_HOSTS",
        "DIGLINE_JUDGE_ANTHROPIC_BASE_URL",
        "DIGLINE_JUDGE_OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ]
    .iter()
    .chain(CI_VARIABLES)
    {
        command.env_remove(name);
    }
    for (name, value) in vars {
        command.env(name, value);
    }
    command.output().expect("digline runs").into()
}

/// Copy the files of `from` (not recursively) into `to`.
pub fn copy_files(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// Point a suite's target URL at `port` (the goldens were made on 18951,
/// the quickstart listens on 8731).
pub fn set_port(suite: &Path, port: u16) {
    let text = std::fs::read_to_string(suite).unwrap();
    let text = text
        .replace("127.0.0.1:18951", &format!("127.0.0.1:{port}"))
        .replace("127.0.0.1:8731", &format!("127.0.0.1:{port}"));
    std::fs::write(suite, text).unwrap();
}

/// The single stored run's path under `root`.
pub fn run_file(root: &Path, key: &str) -> PathBuf {
    let mut found = Vec::new();
    for tenant in std::fs::read_dir(root.join(".digline")).unwrap() {
        let runs = tenant.unwrap().path().join("runs");
        if let Ok(suites) = std::fs::read_dir(runs) {
            for suite in suites {
                let p = suite.unwrap().path().join(format!("{key}.json"));
                if p.exists() {
                    found.push(p);
                }
            }
        }
    }
    assert_eq!(found.len(), 1, "run {key} under {}", root.display());
    found.pop().unwrap()
}

/// `compare`'s text as digline prints it, given 0.10.0's (`golden`): the
/// same lines, except that a check that could not run also says why, after
/// 0.10.0's words — digline's cause sentence: a category and measured
/// facts, never the stored reason (issue 16: what people read is digline's
/// sentence; documents keep 0.10.0's bytes, and the golden files are 0.10.0's
/// output, untouched). Returns `ours` when it is exactly that, else
/// `golden`, so that an `assert_eq!(ours, plus_causes(..))` shows the
/// difference.
pub fn plus_causes(ours: &str, golden: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), golden.lines().collect());
    let fits = a.len() == b.len()
        && ours.ends_with('\n') == golden.ends_with('\n')
        && a.iter().zip(&b).all(|(mine, theirs)| {
            if mine == theirs {
                return true;
            }
            let could_not_run = theirs.ends_with("The check could not run.")
                || theirs.ends_with("the check could not run.");
            let Some(cause) = mine.strip_prefix(&format!("{theirs} ")) else {
                return false;
            };
            could_not_run
                && cause.ends_with('.')
                && cause.starts_with("The ")
                && !["raised", "Error", "urlopen", "Errno", "'"]
                    .iter()
                    .any(|python| cause.contains(python))
        });
    if fits {
        ours.to_string()
    } else {
        golden.to_string()
    }
}

/// `compare`'s text as digline prints it, given 0.10.0's (`golden`): the
/// same lines, with the rows of the summary block (`case · check · what
/// happened`) in suite order — those that got worse first, then those that
/// could not run, each group with cases as the run lists them (then what
/// only the reference has), checks as the case lists them, whole-run
/// measures last — where 0.10.0 listed them by check-identity hash (issue
/// 16; spec 40-compare: rows in suite order on every surface). `docs` are
/// the run document, then the reference's. The golden files are 0.10.0's
/// output, untouched: the order is recomputed here from the documents' own
/// lists, as `interop`'s `diff_in_suite_order` does for `diff`.
pub fn compare_in_suite_order(golden: &str, docs: &[&serde_json::Value]) -> String {
    let mut cases: Vec<(String, Vec<String>)> = Vec::new();
    let mut measures: Vec<String> = Vec::new();
    for doc in docs {
        for case in doc["results"].as_array().into_iter().flatten() {
            let id = case["case_id"].as_str().unwrap_or_default();
            let names: Vec<String> = case["verdicts"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v["assertion"].as_str().unwrap_or_default().to_string())
                .collect();
            match cases.iter_mut().find(|(c, _)| c == id) {
                Some((_, known)) => {
                    for n in names {
                        if !known.contains(&n) {
                            known.push(n);
                        }
                    }
                }
                None => cases.push((id.to_string(), names)),
            }
        }
        for v in doc["aggregate"].as_array().into_iter().flatten() {
            let name = v["assertion"].as_str().unwrap_or_default().to_string();
            if !measures.contains(&name) {
                measures.push(name);
            }
        }
    }
    let position = |line: &str| {
        let mut fields = line.split(" · ");
        let (case, check) = (
            fields.next().unwrap_or_default(),
            fields.next().unwrap_or_default(),
        );
        if case == "whole run" {
            let at = measures.iter().position(|m| m == check);
            return (cases.len(), at.unwrap_or(usize::MAX));
        }
        let at = cases
            .iter()
            .position(|(c, _)| c == case)
            .unwrap_or(usize::MAX);
        let check_at = cases
            .get(at)
            .and_then(|(_, names)| names.iter().position(|n| n == check))
            .unwrap_or(usize::MAX);
        (at, check_at)
    };
    let ends_with_newline = golden.ends_with('\n');
    let mut chunks: Vec<String> = golden
        .trim_end_matches('\n')
        .split("\n\n")
        .map(str::to_string)
        .collect();
    let is_row = |l: &str| !l.starts_with(' ') && l.split(" · ").count() >= 3;
    if let Some(block) = chunks.iter_mut().skip(1).find(|c| c.lines().all(is_row)) {
        let could_not_run = |l: &&str| {
            l.ends_with("The check could not run.") || l.ends_with("the check could not run.")
        };
        let (mut errored, mut worse): (Vec<&str>, Vec<&str>) =
            block.lines().partition(could_not_run);
        worse.sort_by_cached_key(|l| position(l));
        errored.sort_by_cached_key(|l| position(l));
        *block = worse
            .into_iter()
            .chain(errored)
            .collect::<Vec<_>>()
            .join("\n");
    }
    let mut text = chunks.join("\n\n");
    if ends_with_newline {
        text.push('\n');
    }
    text
}

/// Runs git in `dir` (as a fixed author) and returns its trimmed stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs (the tests create repositories with it)");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
