//! `forge`: publishing the gate's verdict — the pull/merge-request comment
//! (GitHub through octocrab, GitLab through ureq), GitHub Actions' job
//! summary, outputs and annotation, JUnit XML, and the outcome file.
//!
//! Publishing never changes the verdict: every failure here becomes one
//! warning line, and the caller's exit code stands. Environment variables
//! are read by `host::env` and arrive here as plain values. Tokens are
//! [`crate::host::env::Secret`]s and never printed. Spec `50-gate.md`.

pub mod actions;
pub mod comment;
pub mod escape;
pub mod github;
pub mod gitlab;
pub mod junit;
pub mod outcome;
pub mod rate_limit;

use std::time::Duration;

use crate::host::env::CiEnv;
use outcome::Outcome;

/// Where `--publish` sends the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A forge, a pull/merge request and a usable token detected.
    Auto,
    /// GitHub (fails with a warning when something is missing).
    Github,
    /// GitLab.
    Gitlab,
    /// Nothing leaves the job: no comment, no summary, no outputs.
    None,
}

/// A comment or note that was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posted {
    /// Its web address, when known.
    pub url: Option<String>,
    /// True when an existing comment was edited in place.
    pub updated: bool,
}

/// Why a comment was not written. Never a verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PublishError {
    /// 401: the token is not accepted.
    Unauthorized(u16),
    /// 403/404: the token may not write here (fork PR, missing permission).
    Permission(u16),
    /// The forge refused the body (422, 413, 400), with its message.
    Rejected(u16, String),
    /// Rate-limited for longer than we wait.
    RateLimited(String),
    /// Anything else.
    Other(String),
}

/// The hidden marker of one (root, tenant, suite)'s comment. The root is
/// normalised (`./eval/` and `eval` are the same root) and hashed, so any
/// path is safe inside an HTML comment; tenant and suite are safe names.
pub fn marker(root: &str, tenant: &str, suite: &str) -> String {
    let mut r = root.trim().trim_end_matches('/');
    while let Some(rest) = r.strip_prefix("./") {
        r = rest;
    }
    let r = if r.is_empty() { "." } else { r };
    let hex = crate::core::identity::sha16(&format!("{r}\0{tenant}\0{suite}"));
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!(
        "<!-- digline-gate {hex} {}/{} -->",
        safe(tenant),
        safe(suite)
    )
}

/// The ordering guard's line, right after the marker: the creation time of
/// the run the comment reports (ISO 8601, UTC).
pub fn order_line(created_at: &str) -> String {
    format!("<!-- digline-order {created_at} -->")
}

/// The run time a comment body reports, from its ordering line.
pub fn order_of(body: &str) -> Option<&str> {
    body.lines().take(3).find_map(|line| {
        line.trim()
            .strip_prefix("<!-- digline-order ")?
            .strip_suffix("-->")
            .map(str::trim)
    })
}

/// The ordering guard: may `new_body` replace `old_body`? Not when the old
/// one reports a newer run. The times are parsed (RFC 3339, as run
/// documents write `created_at`) and compared as instants, never as text:
/// a line that does not parse (`digline-order 9999`, edited by hand) or a
/// time later than `now` (Unix seconds) plus five minutes of clock skew
/// was not written by a run, and cannot pin the comment. A body without
/// the line (an older digline) may always be replaced.
pub fn may_overwrite(old_body: &str, new_body: &str, now: u64) -> bool {
    let Some(old) = order_of(old_body).and_then(order_time) else {
        return true;
    };
    let now = i64::try_from(now).unwrap_or(i64::MAX);
    if old.unix_timestamp() > now.saturating_add(300) {
        return true;
    }
    match order_of(new_body).and_then(order_time) {
        Some(new) => new >= old,
        None => true,
    }
}

/// The instant an ordering line names (RFC 3339), when it is one.
fn order_time(text: &str) -> Option<time::OffsetDateTime> {
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()
}

/// What to publish, and how.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The gate's outcome.
    pub outcome: &'a Outcome,
    /// The rendered comment (marker first).
    pub comment: &'a str,
    /// The rendered job summary.
    pub summary: &'a str,
    /// Where to.
    pub mode: Mode,
    /// Comment even when the exit code is 0.
    pub comment_on_success: bool,
    /// Comment at all (`--no-comment` turns it off).
    pub write_comment: bool,
    /// `--repo` (overrides `GITHUB_REPOSITORY`).
    pub repository: Option<String>,
    /// `--pr` (overrides the event file; also the GitLab MR iid).
    pub pull_request: Option<u64>,
    /// The longest rate-limit wait honoured.
    pub max_wait: Duration,
    /// The host's clock (seconds since the epoch).
    pub now: fn() -> u64,
}

/// What publishing printed: lines for stdout (workflow commands), lines for
/// stderr (warnings off GitHub), and the comment's address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Published {
    /// For stdout.
    pub stdout: Vec<String>,
    /// For stderr.
    pub stderr: Vec<String>,
    /// The comment or note written, if one was.
    pub comment_url: Option<String>,
}

impl Published {
    fn warn(&mut self, on_actions: bool, message: String) {
        if on_actions {
            self.stdout.push(actions::warning(
                "digline: the comment was not posted",
                &message,
            ));
        } else {
            self.stderr.push(format!("digline: warning: {message}"));
        }
    }
}

/// The exact sentence when `CI_JOB_TOKEN` is the only GitLab token.
pub const JOB_TOKEN_SENTENCE: &str = "the merge-request note was not posted: CI_JOB_TOKEN cannot write merge-request notes; set DIGLINE_GITLAB_TOKEN (a project access token with the api scope) as a masked CI/CD variable";

/// The token's identity could not be read (`GET /user` answered `why`):
/// whose comments are ours is then unknown, and the gate touches none —
/// never assuming an identity, it edits, deletes and creates nothing.
pub fn identity_unknown(forge: &str, why: &str) -> PublishError {
    PublishError::Other(format!(
        "{forge} did not say whose token this is (GET /user: {why}), so the gate cannot tell its own comments from anyone else's and wrote, edited and deleted none"
    ))
}

fn sentence(forge: &str, err: &PublishError) -> String {
    match err {
        PublishError::Unauthorized(s) => format!(
            "the comment was not posted: {forge} answered {s}, the token was not accepted; the verdict is unchanged"
        ),
        PublishError::Permission(s) if forge == "GitHub" => format!(
            "the comment was not posted: GitHub answered {s}, so the token lacks the `pull-requests: write` permission (a pull request from a fork always gets a read-only token); add `permissions: pull-requests: write` to the job; the verdict is unchanged"
        ),
        PublishError::Permission(s) => format!(
            "the merge-request note was not posted: GitLab answered {s}, so the token cannot write notes on this merge request (it needs the api scope and at least Reporter access); the verdict is unchanged"
        ),
        PublishError::Rejected(s, msg) => format!(
            "the comment was not posted: {forge} refused the body ({s}{}); the verdict is unchanged",
            if msg.is_empty() { String::new() } else { format!(": {}", escape::one_line(msg)) }
        ),
        PublishError::RateLimited(what) => {
            format!("the comment was not posted: {what}; the verdict is unchanged")
        }
        PublishError::Other(what) => {
            format!("the comment was not posted: {what}; the verdict is unchanged")
        }
    }
}

/// Publish `req` in the CI environment `env`: the comment (when the exit
/// code is not 0, or `comment_on_success`), then on GitHub Actions the job
/// summary, the outputs and the annotation. Never fails: every problem is
/// a warning line in the result, with the forges' tokens masked (a forge's
/// error body may quote the token it received).
pub fn publish(req: &Request<'_>, env: &CiEnv) -> Published {
    let mut out = publish_unmasked(req, env);
    let tokens: Vec<String> = [env.github.token.as_ref(), env.gitlab.token.as_ref()]
        .into_iter()
        .flatten()
        .map(|t| t.expose().to_string())
        .collect();
    for line in out.stdout.iter_mut().chain(out.stderr.iter_mut()) {
        *line = crate::client::mask::mask_text(line, &tokens);
    }
    out
}

fn publish_unmasked(req: &Request<'_>, env: &CiEnv) -> Published {
    let mut out = Published::default();
    if req.mode == Mode::None {
        return out;
    }
    let gh = &env.github;
    let on_actions = gh.actions;
    // An existing gate comment is always brought up to date (a stale verdict
    // is a wrong one); a *new* comment is created when something is wrong,
    // on success with --comment-on-success, or when the pull request
    // replaces the approved baseline (a person should see that).
    let wants_comment = req.write_comment;
    let create = req.outcome.exit_code != 0
        || req.comment_on_success
        || req.outcome.baseline_changed == Some(true)
        || req.outcome.evaluation_changes > 0;
    let repository = req.repository.clone().or_else(|| gh.repository.clone());
    let github_pr = req.pull_request.or(gh.pull_request);
    let github_ready = repository.is_some() && github_pr.is_some() && gh.token.is_some();
    let gl = &env.gitlab;
    let gitlab_iid = req.pull_request.or(gl.merge_request_iid);
    let gitlab_place = gl.api_url.is_some() && gl.project_id.is_some() && gitlab_iid.is_some();
    let forge = match req.mode {
        Mode::Github => Some("github"),
        Mode::Gitlab => Some("gitlab"),
        Mode::Auto if github_ready => Some("github"),
        Mode::Auto if gitlab_place && (gl.token.is_some() || gl.job_token_present) => {
            Some("gitlab")
        }
        _ => None,
    };
    if wants_comment {
        match forge {
            Some("github") => match (repository, github_pr, gh.token.clone()) {
                (Some(repository), Some(pr), Some(token)) => {
                    let target = github::GithubTarget {
                        api_url: gh.api_url.clone().unwrap_or_else(|| github::DEFAULT_API.into()),
                        repository,
                        pull_request: pr,
                        token,
                        max_wait: req.max_wait,
                        now: req.now,
                    };
                    match github::upsert_comment(&target, &req.outcome.marker, req.comment, create)
                    {
                        Ok(p) => out.comment_url = p.and_then(|p| p.url),
                        Err(e) => out.warn(on_actions, sentence("GitHub", &e)),
                    }
                }
                (repo, pr, token) => {
                    let mut missing = Vec::new();
                    if repo.is_none() {
                        missing.push("the repository (GITHUB_REPOSITORY or --repo)");
                    }
                    if pr.is_none() {
                        missing.push("the pull request (GITHUB_EVENT_PATH or --pr)");
                    }
                    if token.is_none() {
                        missing.push("a token (GITHUB_TOKEN)");
                    }
                    out.warn(
                        on_actions,
                        format!("the comment was not posted: missing {}", missing.join(", ")),
                    );
                }
            },
            Some(_) => match (&gl.api_url, &gl.project_id, gitlab_iid, &gl.token) {
                (Some(api), Some(project), Some(iid), Some(token)) => {
                    let target = gitlab::GitlabTarget {
                        api_url: api.clone(),
                        project_id: project.clone(),
                        merge_request_iid: iid,
                        token: token.clone(),
                        project_url: gl.project_url.clone(),
                        max_wait: req.max_wait,
                        now: req.now,
                    };
                    match gitlab::upsert_note(&target, &req.outcome.marker, req.comment, create) {
                        Ok(p) => out.comment_url = p.and_then(|p| p.url),
                        Err(e) => out.warn(false, sentence("GitLab", &e)),
                    }
                }
                (_, _, _, None) if gl.job_token_present => {
                    out.warn(false, JOB_TOKEN_SENTENCE.to_string());
                }
                _ => out.warn(
                    false,
                    "the merge-request note was not posted: CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID and DIGLINE_GITLAB_TOKEN (or GITLAB_TOKEN) are needed".to_string(),
                ),
            },
            None => {}
        }
    }
    if on_actions {
        if let Some(path) = &gh.step_summary {
            if let Err(e) = actions::append_summary(path, req.summary) {
                out.stdout.push(actions::warning(
                    "digline: the job summary was not written",
                    &e,
                ));
            }
        }
        if let Some(path) = &gh.output {
            let o = req.outcome;
            let outputs = [
                ("exit-code", o.exit_code.to_string()),
                ("headline", o.headline.clone()),
                ("run-key", o.run_key.clone().unwrap_or_default()),
                (
                    "report",
                    o.paths
                        .report
                        .clone()
                        .unwrap_or_else(|| o.paths.summary.clone()),
                ),
                ("comment-url", out.comment_url.clone().unwrap_or_default()),
                (
                    "baseline-changed",
                    changed_output(o.baseline_changed).into(),
                ),
            ];
            if let Err(e) = actions::write_outputs(path, &outputs) {
                out.stdout.push(actions::warning(
                    "digline: the outputs were not written",
                    &e,
                ));
            }
        }
        out.stdout.push(actions::annotation(
            req.outcome.outcome,
            &req.outcome.headline,
        ));
    }
    out
}

/// The `baseline-changed` output: `true`, `false`, or `unknown` when no
/// base could be read (a reader must never take that for `false`).
pub fn changed_output(changed: Option<bool>) -> &'static str {
    match changed {
        Some(true) => "true",
        Some(false) => "false",
        None => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unread_base_is_unknown_never_false() {
        assert_eq!(changed_output(None), "unknown");
        assert_eq!(changed_output(Some(false)), "false");
        assert_eq!(changed_output(Some(true)), "true");
    }

    #[test]
    fn one_marker_per_root_tenant_and_suite() {
        let a = marker(".", "acme", "support");
        assert_eq!(a, marker("./", "acme", "support"));
        assert_ne!(a, marker("eval", "acme", "support"));
        assert_ne!(a, marker(".", "acme", "billing"));
        assert_eq!(marker("./eval/", "t", "s"), marker("eval", "t", "s"));
        assert!(marker("-->x", "t", "s").starts_with("<!-- digline-gate "));
        assert_eq!(marker("-->x", "t", "s").matches("-->").count(), 1);
    }

    #[test]
    fn an_older_run_never_overwrites_a_newer_one() {
        let body = |t: &str| format!("<!-- m -->\n{}\nbody", order_line(t));
        let newer = body("2026-12-01T10:00:00.5+00:00");
        let older = body("2026-12-01T10:00:00+00:00");
        assert_eq!(order_of(&newer), Some("2026-12-01T10:00:00.5+00:00"));
        let now = 1_796_000_000; // 2026-11-30
        let now = now + 86_400 * 2;
        assert!(!may_overwrite(&newer, &older, now));
        assert!(may_overwrite(&older, &newer, now));
        assert!(may_overwrite(&newer, &newer, now));
        assert!(may_overwrite("<!-- m -->\nno order line", &older, now));
    }

    #[test]
    fn an_edited_order_line_cannot_pin_the_comment() {
        let body = |t: &str| format!("<!-- m -->\n{}\nbody", order_line(t));
        let ours = body("2026-12-01T10:00:00+00:00");
        let now = 1_796_200_000; // 2026-12-02
                                 // Compared as text, "9999" sorts after every real time.
        assert!(may_overwrite(&body("9999"), &ours, now));
        assert!(may_overwrite(&body("zzzz"), &ours, now));
        // A real time in the future was not written by a run.
        assert!(may_overwrite(
            &body("9999-12-31T23:59:59+00:00"),
            &ours,
            now
        ));
        // Offsets are instants: 11:00+02:00 is before 10:00Z.
        assert!(may_overwrite(
            &body("2026-12-01T11:00:00+02:00"),
            &ours,
            now
        ));
        assert!(!may_overwrite(
            &body("2026-12-01T10:00:01+00:00"),
            &ours,
            now
        ));
    }
}
