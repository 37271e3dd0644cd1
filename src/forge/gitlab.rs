//! The merge-request note on GitLab, through its REST API with ureq.
//!
//! `GET /user` (whose notes are ours), `GET
//! /projects/:id/merge_requests/:iid/notes` (paged with `page`/`per_page`,
//! following `X-Next-Page`), then `PUT .../notes/:note_id` on the oldest of
//! our notes starting with the marker, else `POST .../notes`; `DELETE` for a
//! duplicate of ours; header `PRIVATE-TOKEN`. A 429 with `Retry-After` waits
//! (at most [`GitlabTarget::max_wait`], three times).

use std::time::Duration;

use serde::Deserialize;

use super::{rate_limit, Posted, PublishError};
use crate::client::rate_limits::{header_text, RateLimits};
use crate::host::env::Secret;

/// Where the note goes.
#[derive(Clone, Debug)]
pub struct GitlabTarget {
    /// `CI_API_V4_URL`, e.g. `https://gitlab.com/api/v4`.
    pub api_url: String,
    /// `CI_PROJECT_ID` (a number, or a `group/project` path).
    pub project_id: String,
    /// `CI_MERGE_REQUEST_IID`.
    pub merge_request_iid: u64,
    /// `DIGLINE_GITLAB_TOKEN` or `GITLAB_TOKEN`.
    pub token: Secret,
    /// `CI_PROJECT_URL`, for the note's link.
    pub project_url: Option<String>,
    /// The longest single wait a rate limit may impose before giving up.
    pub max_wait: Duration,
    /// Seconds since the epoch (the host's clock), for the ordering guard.
    pub now: fn() -> u64,
}

#[derive(Deserialize)]
struct Note {
    id: u64,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    author: Option<User>,
}

#[derive(Deserialize)]
struct User {
    id: u64,
}

/// What stays as written in a path segment: RFC 3986's unreserved
/// characters (`A–Z a–z 0–9 - _ . ~`); every other byte is `%XX`.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// One path segment (a project path such as `group/app`), percent-encoded.
fn encode(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, SEGMENT).to_string()
}

/// Create or edit this marker's note.
///
/// Only notes written by the token's own user (`GET /user`) count: someone
/// else's note that starts with the marker is left alone. The oldest of
/// ours is edited unless it reports a newer run ([`super::may_overwrite`]);
/// duplicates of ours (two jobs that raced) are deleted. With none of ours,
/// a note is created only when `create` is true.
///
/// # Errors
/// A [`PublishError`] naming what GitLab or the network said.
pub fn upsert_note(
    target: &GitlabTarget,
    marker: &str,
    body: &str,
    create: bool,
) -> Result<Option<Posted>, PublishError> {
    // No redirect is followed: `PRIVATE-TOKEN` would go wherever the
    // `Location` points (ureq strips only `Authorization`). A 3xx is an
    // answer like any other non-2xx.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(60)))
        .tls_config(crate::client::tls::config())
        .build()
        .into();
    let api = target.api_url.trim_end_matches('/');
    let notes = format!(
        "{api}/projects/{}/merge_requests/{}/notes",
        encode(&target.project_id),
        target.merge_request_iid
    );
    let user_url = format!("{api}/user");
    // Who the token is: a 401 is the token, a 403 its scope; anything
    // else (a 404 from a URL that is not GitLab's API, a 5xx) leaves the
    // identity unknown, and no note is touched on a guess.
    let answer = call(target, || {
        agent
            .get(&user_url)
            .header("PRIVATE-TOKEN", target.token.expose())
            .call()
    });
    let text = match answer {
        Ok((text, _)) => text,
        Err(e @ (PublishError::Unauthorized(_) | PublishError::Permission(403))) => return Err(e),
        Err(PublishError::Permission(status) | PublishError::Rejected(status, _)) => {
            return Err(super::identity_unknown(
                "GitLab",
                &format!("{status}, at {user_url}"),
            ))
        }
        Err(PublishError::Other(what)) => return Err(super::identity_unknown("GitLab", &what)),
        Err(other) => return Err(other),
    };
    let me = serde_json::from_str::<User>(&text)
        .map_err(|_| super::identity_unknown("GitLab", "an answer that names no user id"))?
        .id;
    let list_ours = || -> Result<Vec<(u64, String)>, PublishError> {
        let mut ours = Vec::new();
        let mut page = "1".to_string();
        for _ in 0..1_000 {
            let url = format!("{notes}?per_page=100&page={page}&sort=asc&order_by=created_at");
            let (text, next) = call(target, || {
                agent
                    .get(&url)
                    .header("PRIVATE-TOKEN", target.token.expose())
                    .call()
            })?;
            let list: Vec<Note> = serde_json::from_str(&text).map_err(|_| {
                PublishError::Other("GitLab's list of notes is not a JSON array".into())
            })?;
            for note in list {
                let mine = note.author.as_ref().is_some_and(|a| a.id == me);
                match note.body {
                    Some(b) if mine && b.trim_start().starts_with(marker) => {
                        ours.push((note.id, b))
                    }
                    _ => {}
                }
            }
            match next {
                Some(n) => page = n,
                None => break,
            }
        }
        ours.sort_by_key(|(id, _)| *id);
        Ok(ours)
    };
    let payload = serde_json::json!({ "body": body }).to_string();
    let put = |id: u64| {
        let url = format!("{notes}/{id}");
        call(target, || {
            agent
                .put(&url)
                .header("PRIVATE-TOKEN", target.token.expose())
                .content_type("application/json")
                .send(payload.as_str())
        })
    };
    let delete = |id: u64| {
        let url = format!("{notes}/{id}");
        call(target, || {
            agent
                .delete(&url)
                .header("PRIVATE-TOKEN", target.token.expose())
                .call()
        })
    };
    let link = |id: u64| {
        target.project_url.as_ref().map(|p| {
            format!(
                "{}/-/merge_requests/{}#note_{id}",
                p.trim_end_matches('/'),
                target.merge_request_iid
            )
        })
    };
    let ours = list_ours()?;
    if let Some(((oldest, old_body), duplicates)) = ours.split_first() {
        for (dup, _) in duplicates {
            delete(*dup)?;
        }
        if !super::may_overwrite(old_body, body, (target.now)()) {
            return Ok(Some(Posted {
                url: link(*oldest),
                updated: false,
            }));
        }
        put(*oldest)?;
        return Ok(Some(Posted {
            url: link(*oldest),
            updated: true,
        }));
    }
    if !create {
        return Ok(None);
    }
    let (text, _) = call(target, || {
        agent
            .post(&notes)
            .header("PRIVATE-TOKEN", target.token.expose())
            .content_type("application/json")
            .send(payload.as_str())
    })?;
    let created = serde_json::from_str::<Note>(&text).map(|n| n.id).ok();
    // Another job of the same suite may have created one at the same time:
    // the oldest of ours stays, the others go.
    let ours = list_ours()?;
    match (ours.first(), created) {
        (Some((first, first_body)), Some(created)) if *first != created => {
            if super::may_overwrite(first_body, body, (target.now)()) {
                put(*first)?;
            }
            delete(created)?;
            Ok(Some(Posted {
                url: link(*first),
                updated: true,
            }))
        }
        _ => Ok(Some(Posted {
            url: created.and_then(link),
            updated: false,
        })),
    }
}

/// One request, honouring 429 + `Retry-After`; the body and `X-Next-Page`.
fn call(
    target: &GitlabTarget,
    mut send: impl FnMut() -> Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<(String, Option<String>), PublishError> {
    let mut waits = 0;
    loop {
        let mut response = send().map_err(|e| {
            PublishError::Other(format!("could not reach GitLab at {}: {e}", target.api_url))
        })?;
        let status = response.status().as_u16();
        if status == 429 {
            let limits = RateLimits::from_headers(response.headers(), std::time::SystemTime::now());
            if let Some(wait) = rate_limit::wait(&limits, true) {
                rate_limit::may_wait("GitLab", wait, waits, target.max_wait)?;
                waits += 1;
                std::thread::sleep(wait);
                continue;
            }
        }
        let next = header_text(response.headers(), "x-next-page");
        let text = response
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_string()
            .unwrap_or_default();
        return match status {
            200..=299 => Ok((text, next)),
            401 => Err(PublishError::Unauthorized(status)),
            403 | 404 => Err(PublishError::Permission(status)),
            400 | 413 | 422 => Err(PublishError::Rejected(status, String::new())),
            _ => Err(PublishError::Other(format!("GitLab answered {status}"))),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn a_project_path_is_one_percent_encoded_segment() {
        assert_eq!(encode("group/proj"), "group%2Fproj");
        assert_eq!(
            encode("Group_1/sub.app-x~ é%"),
            "Group_1%2Fsub.app-x~%20%C3%A9%25"
        );
        assert_eq!(encode("42"), "42");
    }
}
