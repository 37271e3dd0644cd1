//! The pull-request comment on GitHub, through octocrab.
//!
//! Lists the pull request's comments across every page (100 a page,
//! following `Link: rel="next"`), edits the oldest one that starts with the
//! marker and was written by the token's own identity (octocrab sends `POST
//! /repos/{o}/{r}/issues/comments/{id}`, which GitHub accepts in place of
//! `PATCH`), or creates one. Rate limits are
//! honoured here rather than in octocrab: a 403/429 with `retry-after`, or
//! with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`, waits that long
//! (at most [`GithubTarget::max_wait`] per wait, three times) and retries.
//! octocrab is async: a current-thread tokio runtime lives for one call.

use std::future::Future;
use std::time::{Duration, UNIX_EPOCH};

use octocrab::models::issues::Comment;
use octocrab::models::CommentId;
use octocrab::Octocrab;

use super::{rate_limit, Posted, PublishError};
use crate::client::rate_limits::RateLimits;
use crate::host::env::Secret;

/// `https://api.github.com`.
pub const DEFAULT_API: &str = "https://api.github.com";

/// Where the comment goes.
#[derive(Clone, Debug)]
pub struct GithubTarget {
    /// The REST API base (`GITHUB_API_URL`).
    pub api_url: String,
    /// `owner/name`.
    pub repository: String,
    /// The pull request number.
    pub pull_request: u64,
    /// `GITHUB_TOKEN`.
    pub token: Secret,
    /// The longest single wait a rate limit may impose before giving up.
    pub max_wait: Duration,
    /// Seconds since the epoch (the host's clock), for `x-ratelimit-reset`.
    pub now: fn() -> u64,
}

/// The login an Actions installation token writes as: such a token cannot
/// call `GET /user`, so its comments are recognised by this author.
pub const ACTIONS_BOT: &str = "github-actions[bot]";

/// Create or edit this marker's comment. One call, one runtime.
///
/// Only comments written by the token's own identity count (`GET /user`;
/// an installation token, which GitHub answers 403 "Resource not accessible
/// by integration", is the Actions bot; any other failure to read it
/// touches nothing, see [`identity`]):
/// someone else's comment that starts with the marker is left alone. The
/// oldest of ours is edited — unless it reports a newer run (the ordering
/// guard, [`super::may_overwrite`]) — and any duplicate of ours (two jobs
/// that raced) is deleted, so the pull request converges on one comment.
/// With none of ours, a comment is created only when `create` is true.
///
/// # Errors
/// A [`PublishError`]: permission (403/404), rejected body (422),
/// rate-limited beyond the wait allowed, or anything else GitHub or the
/// network said.
pub fn upsert_comment(
    target: &GithubTarget,
    marker: &str,
    body: &str,
    create: bool,
) -> Result<Option<Posted>, PublishError> {
    let (owner, repo) = target
        .repository
        .split_once('/')
        .filter(|(o, r)| !o.is_empty() && !r.is_empty() && !r.contains('/'))
        .ok_or_else(|| {
            PublishError::Other(format!(
                "the repository '{}' is not owner/name",
                target.repository
            ))
        })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PublishError::Other(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async {
        let crab = Octocrab::builder()
            .personal_token(target.token.expose().to_string())
            .base_uri(target.api_url.as_str())
            .map_err(|_| {
                PublishError::Other(format!("the API URL '{}' is not a URL", target.api_url))
            })?
            .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
            .set_connect_timeout(Some(Duration::from_secs(15)))
            .set_read_timeout(Some(Duration::from_secs(60)))
            .build()
            .map_err(|e| PublishError::Other(format!("cannot build the GitHub client: {e}")))?;
        let me = identity(target, &crab).await?;
        let issues = crab.issues(owner, repo);
        let ours = list_ours(target, &crab, &issues, marker, &me).await?;
        if let Some((oldest, duplicates)) = ours.split_first() {
            for dup in duplicates {
                with_rate_limits(target, || issues.delete_comment(dup.id)).await?;
            }
            let old_body = oldest.body.as_deref().unwrap_or("");
            if !super::may_overwrite(old_body, body, (target.now)()) {
                return Ok(Some(Posted {
                    url: Some(oldest.html_url.to_string()),
                    updated: false,
                }));
            }
            let id: CommentId = oldest.id;
            let c = with_rate_limits(target, || issues.update_comment(id, body)).await?;
            return Ok(Some(Posted {
                url: Some(c.html_url.to_string()),
                updated: true,
            }));
        }
        if !create {
            return Ok(None);
        }
        let created =
            with_rate_limits(target, || issues.create_comment(target.pull_request, body)).await?;
        // Another job of the same suite may have created one at the same
        // time: the oldest of ours stays, the others go.
        let ours = list_ours(target, &crab, &issues, marker, &me).await?;
        match ours.first() {
            Some(first) if first.id != created.id => {
                let mut url = first.html_url.to_string();
                if super::may_overwrite(first.body.as_deref().unwrap_or(""), body, (target.now)()) {
                    let c =
                        with_rate_limits(target, || issues.update_comment(first.id, body)).await?;
                    url = c.html_url.to_string();
                }
                with_rate_limits(target, || issues.delete_comment(created.id)).await?;
                Ok(Some(Posted {
                    url: Some(url),
                    updated: true,
                }))
            }
            _ => Ok(Some(Posted {
                url: Some(created.html_url.to_string()),
                updated: false,
            })),
        }
    })
}

/// Every comment of the pull request, across all pages, that starts with
/// `marker` and was written by `me`, oldest first.
async fn list_ours(
    target: &GithubTarget,
    crab: &Octocrab,
    issues: &octocrab::issues::IssueHandler<'_>,
    marker: &str,
    me: &str,
) -> Result<Vec<Comment>, PublishError> {
    let mut page = with_rate_limits(target, || {
        issues
            .list_comments(target.pull_request)
            .per_page(100u8)
            .send()
    })
    .await?;
    let mut ours: Vec<Comment> = Vec::new();
    let mut pages = 0;
    loop {
        for c in page.take_items() {
            let marked = c
                .body
                .as_deref()
                .is_some_and(|b| b.trim_start().starts_with(marker));
            if marked && c.user.login == me {
                ours.push(c);
            }
        }
        pages += 1;
        if page.next.is_none() || pages >= 1_000 {
            break;
        }
        let next = page.next.clone();
        match with_rate_limits(target, || crab.get_page::<Comment>(&next)).await? {
            Some(p) => page = p,
            None => break,
        }
    }
    ours.sort_by_key(|c| c.id);
    Ok(ours)
}

async fn with_rate_limits<T, F, Fut>(target: &GithubTarget, mut call: F) -> Result<T, PublishError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = octocrab::Result<T>>,
{
    let mut waits = 0;
    loop {
        match call().await {
            Ok(v) => return Ok(v),
            Err(octocrab::Error::GitHub { source, .. }) => {
                let status = source.status_code.as_u16();
                let wait = rate_limit_wait(&source, (target.now)());
                match wait {
                    Some(w) => {
                        rate_limit::may_wait("GitHub", w, waits, target.max_wait)?;
                        waits += 1;
                        tokio::time::sleep(w).await;
                    }
                    None => {
                        return Err(match status {
                            401 => PublishError::Unauthorized(status),
                            403 | 404 => PublishError::Permission(status),
                            422 => PublishError::Rejected(status, source.message.clone()),
                            _ => PublishError::Other(format!(
                                "GitHub answered {status}: {}",
                                masked_line(target, &source.message)
                            )),
                        })
                    }
                }
            }
            Err(e) => {
                return Err(PublishError::Other(format!(
                    "could not reach GitHub at {}: {}",
                    target.api_url,
                    masked_line(target, &e.to_string())
                )))
            }
        }
    }
}

/// `text`'s first line, the token masked first, then cut (a cut never
/// leaves part of the token behind).
fn masked_line(target: &GithubTarget, text: &str) -> String {
    one_line(&crate::client::mask::mask_text(
        text,
        &[target.token.expose().to_string()],
    ))
}

fn one_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(300)
        .collect()
}

/// Whose comments are ours: the token's user, or — when GitHub answers
/// that an installation token cannot read a user (403 "Resource not
/// accessible by integration", what `GITHUB_TOKEN` gets) — the Actions bot.
/// Any other failure (a 5xx, a network error, a 401) leaves the identity
/// unknown, and that is an error: no comment is touched on a guess.
async fn identity(target: &GithubTarget, crab: &Octocrab) -> Result<String, PublishError> {
    let mut waits = 0;
    loop {
        match crab.current().user().await {
            Ok(author) => return Ok(author.login),
            Err(octocrab::Error::GitHub { source, .. }) => {
                if is_installation_token(source.status_code.as_u16(), &source.message) {
                    return Ok(ACTIONS_BOT.to_string());
                }
                // A rate limit is waited out as on every other call.
                if let Some(w) = rate_limit_wait(&source, (target.now)()) {
                    rate_limit::may_wait("GitHub", w, waits, target.max_wait)?;
                    waits += 1;
                    tokio::time::sleep(w).await;
                    continue;
                }
                return Err(super::identity_unknown(
                    "GitHub",
                    &format!(
                        "{} {}",
                        source.status_code.as_u16(),
                        masked_line(target, &source.message)
                    ),
                ));
            }
            Err(e) => {
                return Err(super::identity_unknown(
                    "GitHub",
                    &masked_line(target, &e.to_string()),
                ))
            }
        }
    }
}

/// GitHub's answer to `GET /user` for an installation token.
fn is_installation_token(status: u16, message: &str) -> bool {
    status == 403 && message.contains("Resource not accessible by integration")
}

/// How long a 403/429 asks us to wait, if it is a rate limit at all
/// (`super::rate_limit`): a 429, or a 403 whose message names a secondary
/// rate limit, or whose headers say the quota is used up.
fn rate_limit_wait(err: &octocrab::GitHubError, now: u64) -> Option<Duration> {
    let status = err.status_code.as_u16();
    if status != 403 && status != 429 {
        return None;
    }
    let limits = err
        .headers
        .as_ref()
        .map(|h| RateLimits::from_headers(h, UNIX_EPOCH + Duration::from_secs(now)))
        .unwrap_or_default();
    let throttled = status == 429 || err.message.to_ascii_lowercase().contains("rate limit");
    rate_limit::wait(&limits, throttled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_githubs_answer_to_an_installation_token_is_the_bot() {
        assert!(is_installation_token(
            403,
            "Resource not accessible by integration"
        ));
        assert!(!is_installation_token(403, "Must have admin rights"));
        assert!(!is_installation_token(502, "Server Error"));
        assert!(!is_installation_token(
            401,
            "Resource not accessible by integration"
        ));
    }
}
