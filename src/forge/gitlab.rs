//! The merge-request note on GitLab, through its REST API with ureq.
//!
//! `GET /projects/:id/merge_requests/:iid/notes` (paged with
//! `page`/`per_page`, following `X-Next-Page`), then `PUT
//! .../notes/:note_id` on the newest note starting with the marker, else
//! `POST .../notes`; header `PRIVATE-TOKEN`. A 429 with `Retry-After` waits
//! (at most [`GitlabTarget::max_wait`], three times).

use std::time::Duration;

use serde::Deserialize;

use super::{Posted, PublishError};
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
}

#[derive(Deserialize)]
struct Note {
    id: u64,
    #[serde(default)]
    body: Option<String>,
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
/// # Errors
/// A [`PublishError`] naming what GitLab or the network said.
pub fn upsert_note(
    target: &GitlabTarget,
    marker: &str,
    body: &str,
) -> Result<Posted, PublishError> {
    // No redirect is followed: `PRIVATE-TOKEN` would go wherever the
    // `Location` points (ureq strips only `Authorization`). A 3xx is an
    // answer like any other non-2xx.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let notes = format!(
        "{}/projects/{}/merge_requests/{}/notes",
        target.api_url.trim_end_matches('/'),
        encode(&target.project_id),
        target.merge_request_iid
    );
    let mut found: Option<u64> = None;
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
            if note
                .body
                .as_deref()
                .is_some_and(|b| b.trim_start().starts_with(marker))
            {
                found = Some(note.id);
            }
        }
        match next {
            Some(n) => page = n,
            None => break,
        }
    }
    let payload = serde_json::json!({ "body": body }).to_string();
    let (text, _) = match found {
        Some(id) => {
            let url = format!("{notes}/{id}");
            call(target, || {
                agent
                    .put(&url)
                    .header("PRIVATE-TOKEN", target.token.expose())
                    .content_type("application/json")
                    .send(payload.as_str())
            })?
        }
        None => call(target, || {
            agent
                .post(&notes)
                .header("PRIVATE-TOKEN", target.token.expose())
                .content_type("application/json")
                .send(payload.as_str())
        })?,
    };
    let id = serde_json::from_str::<Note>(&text)
        .map(|n| n.id)
        .ok()
        .or(found);
    let url = match (&target.project_url, id) {
        (Some(p), Some(id)) => Some(format!(
            "{}/-/merge_requests/{}#note_{id}",
            p.trim_end_matches('/'),
            target.merge_request_iid
        )),
        _ => None,
    };
    Ok(Posted {
        url,
        updated: found.is_some(),
    })
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
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        if status == 429 {
            let wait = Duration::from_secs(
                header("retry-after")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(60),
            );
            if waits < 3 && wait <= target.max_wait {
                waits += 1;
                std::thread::sleep(wait);
                continue;
            }
            return Err(PublishError::RateLimited(format!(
                "GitLab's rate limit asks for a wait of {}s",
                wait.as_secs()
            )));
        }
        let next = header("x-next-page");
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
