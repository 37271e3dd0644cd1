//! The CI environment: the one place the gate and `publish` read
//! environment variables (GitHub Actions, GitLab CI) and the Actions event
//! file. Everything is read once into plain values that `forge` and `cli`
//! receive; nothing below `host` ever calls `std::env`.
//!
//! Tokens are held as [`Secret`]s: their `Debug` never shows the value.

use std::fmt;
use std::path::PathBuf;

/// A credential read from the environment. Its `Debug` prints `Secret(***)`,
/// so a token never lands in a log by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wrap a value (used by tests and by [`CiEnv::read`]).
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// What a GitHub Actions job says about itself.
#[derive(Clone, Debug, Default)]
pub struct GithubEnv {
    /// `GITHUB_ACTIONS=true`: workflow commands on stdout are interpreted.
    pub actions: bool,
    /// `GITHUB_REPOSITORY` (`owner/name`).
    pub repository: Option<String>,
    /// The pull request number from the event file (`GITHUB_EVENT_PATH`).
    pub pull_request: Option<u64>,
    /// The pull request's base commit from the event file
    /// (`pull_request.base.sha`, 40 hex): the base the gate reads.
    pub base_sha: Option<String>,
    /// `GITHUB_TOKEN` (or `DIGLINE_GITHUB_TOKEN`, which wins).
    pub token: Option<Secret>,
    /// `GITHUB_API_URL` (GitHub Enterprise, tests); default `https://api.github.com`.
    pub api_url: Option<String>,
    /// `GITHUB_SERVER_URL` + `GITHUB_REPOSITORY` + `GITHUB_RUN_ID`: the run's page.
    pub run_url: Option<String>,
    /// `GITHUB_STEP_SUMMARY`: the file the job summary is appended to.
    pub step_summary: Option<PathBuf>,
    /// `GITHUB_OUTPUT`: the file step outputs are appended to.
    pub output: Option<PathBuf>,
    /// `RUNNER_TEMP`: where `--out` goes by default on GitHub.
    pub runner_temp: Option<PathBuf>,
}

/// What a GitLab CI job says about itself.
#[derive(Clone, Debug, Default)]
pub struct GitlabEnv {
    /// `GITLAB_CI=true`.
    pub ci: bool,
    /// `CI_API_V4_URL`.
    pub api_url: Option<String>,
    /// `CI_PROJECT_ID`.
    pub project_id: Option<String>,
    /// `CI_MERGE_REQUEST_IID`.
    pub merge_request_iid: Option<u64>,
    /// `DIGLINE_GITLAB_TOKEN`, else `GITLAB_TOKEN`.
    pub token: Option<Secret>,
    /// True when `CI_JOB_TOKEN` is set (it cannot write merge-request notes).
    pub job_token_present: bool,
    /// `CI_JOB_URL`: the job's page; its artifacts hang below it.
    pub job_url: Option<String>,
    /// `CI_PROJECT_URL`: the project's page (for a note's link).
    pub project_url: Option<String>,
    /// `CI_MERGE_REQUEST_DIFF_BASE_SHA`: the merge request's base commit.
    pub diff_base_sha: Option<String>,
}

/// The CI environment the gate runs in.
#[derive(Clone, Debug, Default)]
pub struct CiEnv {
    /// GitHub Actions.
    pub github: GithubEnv,
    /// GitLab CI.
    pub gitlab: GitlabEnv,
    /// `GITHUB_SHA` or `CI_COMMIT_SHA`: the commit when no `.git` can be read.
    pub commit_sha: Option<String>,
    /// A job on the default branch started by a push or a schedule (never a
    /// pull or merge request): its gates record the history by default.
    pub base_branch_gate: bool,
}

impl CiEnv {
    /// Read the process environment (and the Actions event file).
    pub fn read() -> CiEnv {
        CiEnv::from_lookup(|name| std::env::var(name).ok())
    }

    /// Build from any lookup (tests pass a map). Empty values count as unset.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> CiEnv {
        let get = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        let event = get("GITHUB_EVENT_PATH").and_then(|p| std::fs::read(p).ok());
        let event_pr = event.as_deref().and_then(pull_request_number);
        let base_sha = event.as_deref().and_then(pull_request_base_sha);
        let run_url = match (
            get("GITHUB_SERVER_URL"),
            get("GITHUB_REPOSITORY"),
            get("GITHUB_RUN_ID"),
        ) {
            (Some(server), Some(repo), Some(id)) => Some(format!(
                "{}/{repo}/actions/runs/{id}",
                server.trim_end_matches('/')
            )),
            _ => None,
        };
        let github = GithubEnv {
            actions: get("GITHUB_ACTIONS").as_deref() == Some("true"),
            repository: get("GITHUB_REPOSITORY"),
            pull_request: event_pr,
            base_sha,
            token: get("DIGLINE_GITHUB_TOKEN")
                .or_else(|| get("GITHUB_TOKEN"))
                .map(Secret),
            api_url: get("GITHUB_API_URL"),
            run_url,
            step_summary: get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            output: get("GITHUB_OUTPUT").map(PathBuf::from),
            runner_temp: get("RUNNER_TEMP").map(PathBuf::from),
        };
        let gitlab = GitlabEnv {
            ci: get("GITLAB_CI").as_deref() == Some("true"),
            api_url: get("CI_API_V4_URL"),
            project_id: get("CI_PROJECT_ID"),
            merge_request_iid: get("CI_MERGE_REQUEST_IID").and_then(|v| v.trim().parse().ok()),
            token: get("DIGLINE_GITLAB_TOKEN")
                .or_else(|| get("GITLAB_TOKEN"))
                .map(Secret),
            job_token_present: get("CI_JOB_TOKEN").is_some(),
            job_url: get("CI_JOB_URL"),
            project_url: get("CI_PROJECT_URL"),
            diff_base_sha: get("CI_MERGE_REQUEST_DIFF_BASE_SHA"),
        };
        let base_branch_gate = base_branch_gate(&get, event.as_deref());
        CiEnv {
            github,
            gitlab,
            commit_sha: get("GITHUB_SHA").or_else(|| get("CI_COMMIT_SHA")),
            base_branch_gate,
        }
    }

    /// Read one provider-header variable (for `[target]` headers).
    pub fn var(name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// A push or a schedule on the default branch: on GitHub `GITHUB_EVENT_NAME`
/// `push`/`schedule` with `GITHUB_REF` the event's
/// `repository.default_branch`; on GitLab `CI_PIPELINE_SOURCE`
/// `push`/`schedule` with `CI_COMMIT_BRANCH` = `CI_DEFAULT_BRANCH` and no
/// merge request.
fn base_branch_gate(get: &dyn Fn(&str) -> Option<String>, event: Option<&[u8]>) -> bool {
    let pushed = |source: Option<String>| matches!(source.as_deref(), Some("push" | "schedule"));
    if get("GITHUB_ACTIONS").as_deref() == Some("true") {
        let default = event
            .and_then(|e| serde_json::from_slice::<serde_json::Value>(e).ok())
            .and_then(|v| v["repository"]["default_branch"].as_str().map(String::from));
        return pushed(get("GITHUB_EVENT_NAME"))
            && default.is_some_and(|d| get("GITHUB_REF") == Some(format!("refs/heads/{d}")));
    }
    get("GITLAB_CI").as_deref() == Some("true")
        && pushed(get("CI_PIPELINE_SOURCE"))
        && get("CI_MERGE_REQUEST_IID").is_none()
        && get("CI_COMMIT_BRANCH").is_some_and(|b| get("CI_DEFAULT_BRANCH") == Some(b))
}

/// A token nobody can predict before the run (for `::stop-commands::`):
/// a hash of the clock's nanoseconds, the process id and a stack address.
pub fn fresh_token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let here = 0u8;
    let seed = format!("{nanos}:{}:{:p}", std::process::id(), &here);
    crate::core::identity::sha256_hex(seed.as_bytes(), 16)
}

/// The pull request number in an Actions event payload
/// (`pull_request.number`, or `number` on `pull_request*` events).
pub fn pull_request_number(event: &[u8]) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_slice(event).ok()?;
    value
        .get("pull_request")
        .and_then(|pr| pr.get("number"))
        .and_then(serde_json::Value::as_u64)
}

/// The pull request's base commit in an Actions event payload
/// (`pull_request.base.sha`), when it is 40 hex digits.
pub fn pull_request_base_sha(event: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(event).ok()?;
    let sha = value
        .get("pull_request")?
        .get("base")?
        .get("sha")?
        .as_str()?;
    (sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then(|| sha.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn reads_the_pull_request_from_the_event_file() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(
            &event,
            br#"{"action":"synchronize","pull_request":{"number":42}}"#,
        )
        .unwrap();
        let vars: HashMap<&str, String> = [
            ("GITHUB_ACTIONS", "true".to_string()),
            ("GITHUB_EVENT_PATH", event.display().to_string()),
            ("GITHUB_REPOSITORY", "o/r".to_string()),
            ("GITHUB_TOKEN", "ghs_secret".to_string()),
            ("CI_JOB_TOKEN", "x".to_string()),
            ("GITLAB_TOKEN", "".to_string()),
        ]
        .into_iter()
        .collect();
        let env = CiEnv::from_lookup(|k| vars.get(k).cloned());
        assert!(env.github.actions);
        assert_eq!(env.github.pull_request, Some(42));
        assert_eq!(env.github.repository.as_deref(), Some("o/r"));
        assert!(env.gitlab.job_token_present);
        assert!(env.gitlab.token.is_none(), "empty counts as unset");
        let shown = format!("{env:?}");
        assert!(!shown.contains("ghs_secret"), "{shown}");
    }

    #[test]
    fn a_push_or_schedule_on_the_default_branch_is_a_base_branch_gate() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(&event, br#"{"repository":{"default_branch":"main"}}"#).unwrap();
        let github = |name: &str, git_ref: &str| {
            let vars: HashMap<&str, String> = [
                ("GITHUB_ACTIONS", "true".to_string()),
                ("GITHUB_EVENT_PATH", event.display().to_string()),
                ("GITHUB_EVENT_NAME", name.to_string()),
                ("GITHUB_REF", git_ref.to_string()),
            ]
            .into_iter()
            .collect();
            CiEnv::from_lookup(|k| vars.get(k).cloned()).base_branch_gate
        };
        assert!(github("push", "refs/heads/main"));
        assert!(github("schedule", "refs/heads/main"));
        assert!(!github("push", "refs/heads/feature"));
        assert!(!github("pull_request", "refs/heads/main"));
        let gitlab = |source: &str, branch: &str, mr: &str| {
            let vars: HashMap<&str, String> = [
                ("GITLAB_CI", "true".to_string()),
                ("CI_PIPELINE_SOURCE", source.to_string()),
                ("CI_COMMIT_BRANCH", branch.to_string()),
                ("CI_DEFAULT_BRANCH", "main".to_string()),
                ("CI_MERGE_REQUEST_IID", mr.to_string()),
            ]
            .into_iter()
            .collect();
            CiEnv::from_lookup(|k| vars.get(k).cloned()).base_branch_gate
        };
        assert!(gitlab("push", "main", ""));
        assert!(!gitlab("merge_request_event", "main", "7"));
        assert!(!gitlab("push", "topic", ""));
        assert!(!CiEnv::from_lookup(|_| None).base_branch_gate);
    }

    #[test]
    fn the_base_sha_is_read_from_the_event_when_it_is_a_commit_id() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let event =
            format!(r#"{{"pull_request":{{"number":1,"base":{{"ref":"main","sha":"{sha}"}}}}}}"#);
        assert_eq!(
            pull_request_base_sha(event.as_bytes()).as_deref(),
            Some(sha)
        );
        assert_eq!(
            pull_request_base_sha(br#"{"pull_request":{"base":{"sha":"HEAD~3"}}}"#),
            None
        );
        assert_eq!(pull_request_base_sha(br#"{"ref":"refs/heads/main"}"#), None);
    }

    #[test]
    fn a_push_event_has_no_pull_request() {
        assert_eq!(pull_request_number(br#"{"ref":"refs/heads/main"}"#), None);
        assert_eq!(pull_request_number(b"not json"), None);
    }
}
