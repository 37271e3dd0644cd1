//! Publish a gate's outcome: the pull/merge-request comment, the job
//! summary, outputs and annotation (`forge`). What `gate` does last and
//! `digline publish` does from a gate's `outcome.json`. Publishing never
//! changes the verdict.

use std::path::Path;
use std::time::Duration;

use crate::forge::comment;
use crate::forge::outcome::Outcome;
use crate::forge::{self, Mode};
use crate::host::env::CiEnv;
use crate::report::locale::Locale;

/// Where and how to publish.
#[derive(Clone, Debug)]
pub struct Publishing {
    /// Where: detected, GitHub, GitLab or nowhere.
    pub mode: Mode,
    /// Comment even when nothing got worse.
    pub comment_on_success: bool,
    /// Write no comment (the summary, outputs and annotation still go).
    pub no_comment: bool,
    /// The repository (owner/name) when the CI environment does not say.
    pub repo: Option<String>,
    /// The pull request number when the CI environment does not say.
    pub pr: Option<u64>,
    /// A link to the report for the comment.
    pub report_url: Option<String>,
    /// The longest wait for the forge, in seconds.
    pub max_wait: u64,
}

/// Publish an outcome (shared by `gate` and `publish`).
pub fn publish(
    outcome: &Outcome,
    comment_md: &str,
    summary_md: &str,
    publishing: &Publishing,
    env: &CiEnv,
) -> forge::Published {
    let locale = Locale::parse(&outcome.locale).unwrap_or(Locale::En);
    let (comment_md, summary_md) = match publishing
        .report_url
        .as_deref()
        .and_then(|u| comment::report_link(u, locale, false))
    {
        Some(link) => (
            comment::set_report_line(comment_md, &link),
            comment::set_report_line(summary_md, &link),
        ),
        None => (comment_md.to_string(), summary_md.to_string()),
    };
    let req = forge::Request {
        outcome,
        comment: &comment_md,
        summary: &summary_md,
        mode: publishing.mode,
        comment_on_success: publishing.comment_on_success,
        write_comment: !publishing.no_comment,
        repository: publishing.repo.clone(),
        pull_request: publishing.pr,
        max_wait: Duration::from_secs(publishing.max_wait),
        now: crate::host::clock::unix_now,
    };
    forge::publish(&req, env)
}

/// The comment's report line before `publish` knows the artifact link.
pub fn report_line(publishing: &Publishing, env: &CiEnv, out_dir: &Path, locale: Locale) -> String {
    if let Some(link) = publishing
        .report_url
        .as_deref()
        .and_then(|u| comment::report_link(u, locale, false))
    {
        return link;
    }
    if let Some(job) = &env.gitlab.job_url {
        let rel = out_dir.display().to_string();
        let rel = rel.trim_start_matches("./").trim_end_matches('/');
        if let Some(link) = comment::report_link(
            &format!("{}/artifacts/browse/{rel}", job.trim_end_matches('/')),
            locale,
            false,
        ) {
            return link;
        }
    }
    if let Some(run) = &env.github.run_url {
        if let Some(link) = comment::report_link(run, locale, true) {
            return link;
        }
    }
    comment::report_in_artifacts(locale)
}
