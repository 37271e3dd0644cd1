//! Loopback fakes of GitHub's and GitLab's REST APIs, checking method,
//! path, headers and JSON body against each forge's documented shapes.
//!
//! GitHub: `GET /repos/{o}/{r}/issues/{n}/comments` (paged, `Link:
//! rel="next"`), `POST` the same to create, `PATCH` (or octocrab's `POST`)
//! `/repos/{o}/{r}/issues/comments/{id}` to edit. GitLab: `GET/POST
//! /projects/:id/merge_requests/:iid/notes` (paged, `X-Next-Page`), `PUT
//! .../notes/:note_id`, header `PRIVATE-TOKEN`.
//!
//! Identity: GitHub's `GET /user` answers 403 to the installation token (as
//! GitHub does), so the gate recognises its comments by the Actions bot;
//! GitLab's `GET /user` names user 1 (`bot`). Comments written by the gate
//! are the token's; [`Fake::add_by`] writes someone else's. Both fakes
//! accept `DELETE` of a comment (a duplicate of the gate's own).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{json, Value};

/// One request as the fake saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub url: String,
    pub auth: Option<String>,
    pub body: String,
}

/// How a fake misbehaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Every request: 403 (a fork's read-only token).
    Forbidden,
    /// Writes: 422 (body too long).
    Unprocessable,
    /// The first request: 403 secondary rate limit with `retry-after: 1`.
    RateLimitedOnce,
    /// The first `times` requests: `status` (429, or GitHub's 403 naming a
    /// secondary rate limit) with `retry-after: <retry_after>`.
    Throttled {
        status: u16,
        retry_after: u32,
        times: u32,
    },
    /// `GET /user` fails: GitHub 502, GitLab 404 (the identity is unknown).
    IdentityFails,
}

/// A throttled answer while `mode` says so (counting in `s.throttled`).
fn throttled(s: &mut State, mode: Mode) -> Option<Reply> {
    let Mode::Throttled {
        status,
        retry_after,
        times,
    } = mode
    else {
        return None;
    };
    if s.throttled >= times {
        return None;
    }
    s.throttled += 1;
    Some((
        status,
        vec![("retry-after".into(), retry_after.to_string())],
        json!({"message": "You have exceeded a secondary rate limit."}).to_string(),
    ))
}

/// Shared state: the comments (id, body) and the requests seen.
#[derive(Default)]
pub struct State {
    pub comments: Vec<(u64, String)>,
    /// Who wrote each comment (absent: the token's own identity).
    pub authors: HashMap<u64, String>,
    pub seen: Vec<Seen>,
    pub next_id: u64,
    pub limited: bool,
    /// Throttled answers given so far ([`Mode::Throttled`]).
    pub throttled: u32,
}

/// A running fake; stops when dropped.
pub struct Fake {
    pub port: u16,
    pub state: Arc<Mutex<State>>,
    server: Arc<tiny_http::Server>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

impl Fake {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    pub fn comments(&self) -> Vec<(u64, String)> {
        self.state.lock().unwrap().comments.clone()
    }
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }
    /// Pre-fill `n` unrelated comments (to push ours onto a later page).
    pub fn fill(&self, n: usize) {
        let mut s = self.state.lock().unwrap();
        for i in 0..n {
            s.next_id += 1;
            let id = s.next_id;
            s.comments.push((id, format!("unrelated comment {i}")));
            s.authors.insert(id, "someone".into());
        }
    }
    /// Add a comment written by `author` (`None`: by the token's identity);
    /// returns its id.
    pub fn add_by(&self, author: Option<&str>, body: &str) -> u64 {
        let mut s = self.state.lock().unwrap();
        s.next_id += 1;
        let id = s.next_id;
        s.comments.push((id, body.to_string()));
        if let Some(a) = author {
            s.authors.insert(id, a.to_string());
        }
        id
    }
}

const PAGE: usize = 3;

/// A fake's answer: status, headers, body.
type Reply = (u16, Vec<(String, String)>, String);
/// A fake's request handler.
type Handler = fn(&mut State, &Seen, Mode, u16) -> Reply;

fn start(handler: Handler, mode: Mode) -> Fake {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let port = server.server_addr().to_ip().unwrap().port();
    let state = Arc::new(Mutex::new(State {
        next_id: 1000,
        ..State::default()
    }));
    let (srv, st) = (Arc::clone(&server), Arc::clone(&state));
    thread::spawn(move || {
        for mut request in srv.incoming_requests() {
            let mut body = String::new();
            let _ = request.as_reader().read_to_string(&mut body);
            let header = |name: &str| {
                request
                    .headers()
                    .iter()
                    .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
                    .map(|h| h.value.as_str().to_string())
            };
            let auth = header("authorization").or_else(|| header("private-token"));
            let seen = Seen {
                method: request.method().as_str().to_string(),
                url: request.url().to_string(),
                auth,
                body,
            };
            let (status, headers, text) = {
                let mut s = st.lock().unwrap();
                s.seen.push(seen.clone());
                handler(&mut s, &seen, mode, port)
            };
            let mut response = tiny_http::Response::from_string(text).with_status_code(status);
            response.add_header(
                tiny_http::Header::from_bytes(&b"content-type"[..], &b"application/json"[..])
                    .unwrap(),
            );
            for (k, v) in headers {
                response
                    .add_header(tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap());
            }
            let _ = request.respond(response);
        }
    });
    Fake {
        port,
        state,
        server,
    }
}

fn user(login: &str) -> Value {
    let u = format!("https://api.github.com/users/{login}");
    json!({
        "login": login, "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=",
        "avatar_url": "https://avatars.githubusercontent.com/in/15368?v=4", "gravatar_id": "",
        "url": u, "html_url": "https://github.com/apps/github-actions",
        "followers_url": format!("{u}/followers"), "following_url": format!("{u}/following"),
        "gists_url": format!("{u}/gists"), "starred_url": format!("{u}/starred"),
        "subscriptions_url": format!("{u}/subscriptions"), "organizations_url": format!("{u}/orgs"),
        "repos_url": format!("{u}/repos"), "events_url": format!("{u}/events"),
        "received_events_url": format!("{u}/received_events"), "type": "Bot", "site_admin": false
    })
}

fn comment_json(port: u16, id: u64, body: &str, author: Option<&String>) -> Value {
    let login = author.map_or("github-actions[bot]", String::as_str);
    json!({
        "id": id, "node_id": format!("IC_{id}"),
        "url": format!("http://127.0.0.1:{port}/repos/o/r/issues/comments/{id}"),
        "html_url": format!("https://github.com/o/r/pull/7#issuecomment-{id}"),
        "issue_url": format!("http://127.0.0.1:{port}/repos/o/r/issues/7"),
        "body": body, "user": user(login), "author_association": "NONE",
        "created_at": "2026-11-30T04:16:02Z", "updated_at": "2026-11-30T04:16:02Z"
    })
}

fn query(url: &str, key: &str) -> Option<String> {
    let q = url.split_once('?')?.1;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == key).then(|| v.to_string())
    })
}

fn github(s: &mut State, r: &Seen, mode: Mode, port: u16) -> Reply {
    let err = |status: u16, msg: &str| {
        (
            status,
            vec![],
            json!({"message": msg, "documentation_url": "https://docs.github.com/rest"})
                .to_string(),
        )
    };
    if r.auth.as_deref() != Some("Bearer ghs_SECRET_token_1234") {
        return err(401, "Bad credentials");
    }
    if mode == Mode::Forbidden {
        return err(403, "Resource not accessible by integration");
    }
    // The identity probe is best effort: throttling it tells nothing.
    if !r.url.starts_with("/user") {
        if let Some(reply) = throttled(s, mode) {
            return reply;
        }
    }
    if mode == Mode::RateLimitedOnce && !s.limited {
        s.limited = true;
        return (
            403,
            vec![("retry-after".into(), "1".into())],
            json!({"message": "You have exceeded a secondary rate limit."}).to_string(),
        );
    }
    let path = r.url.split('?').next().unwrap_or("").to_string();
    if mode == Mode::IdentityFails && path == "/user" {
        return err(502, "Server Error");
    }
    let body_of = |r: &Seen| -> Option<String> {
        let v: Value = serde_json::from_str(&r.body).ok()?;
        let obj = v.as_object()?;
        (obj.len() == 1).then(|| obj.get("body")?.as_str().map(str::to_string))?
    };
    match (r.method.as_str(), path.as_str()) {
        ("GET", "/repos/o/r/issues/7/comments") => {
            assert_eq!(
                query(&r.url, "per_page").as_deref(),
                Some("100"),
                "{}",
                r.url
            );
            let page: usize = query(&r.url, "page")
                .and_then(|p| p.parse().ok())
                .unwrap_or(1);
            let items: Vec<Value> = s
                .comments
                .iter()
                .skip((page - 1) * PAGE)
                .take(PAGE)
                .map(|(id, b)| comment_json(port, *id, b, s.authors.get(id)))
                .collect();
            let mut headers = vec![];
            if page * PAGE < s.comments.len() {
                headers.push((
                    "link".to_string(),
                    format!(
                        "<http://127.0.0.1:{port}/repos/o/r/issues/7/comments?per_page=100&page={}>; rel=\"next\"",
                        page + 1
                    ),
                ));
            }
            (200, headers, Value::Array(items).to_string())
        }
        ("POST", "/repos/o/r/issues/7/comments") => {
            let Some(body) = body_of(r) else {
                return err(400, "Problems parsing JSON");
            };
            if mode == Mode::Unprocessable || body.chars().count() > 65_536 {
                return err(
                    422,
                    "Validation Failed: body is too long (maximum is 65536 characters)",
                );
            }
            s.next_id += 1;
            let id = s.next_id;
            s.comments.push((id, body.clone()));
            (201, vec![], comment_json(port, id, &body, None).to_string())
        }
        ("POST" | "PATCH", p) if p.starts_with("/repos/o/r/issues/comments/") => {
            let id: u64 = p.rsplit('/').next().unwrap().parse().unwrap();
            let Some(body) = body_of(r) else {
                return err(400, "Problems parsing JSON");
            };
            if mode == Mode::Unprocessable || body.chars().count() > 65_536 {
                return err(422, "Validation Failed");
            }
            if s.authors.contains_key(&id) {
                return err(403, "Resource not accessible by integration");
            }
            match s.comments.iter_mut().find(|(i, _)| *i == id) {
                Some(c) => {
                    c.1 = body.clone();
                    (200, vec![], comment_json(port, id, &body, None).to_string())
                }
                None => err(404, "Not Found"),
            }
        }
        ("DELETE", p) if p.starts_with("/repos/o/r/issues/comments/") => {
            let id: u64 = p.rsplit('/').next().unwrap().parse().unwrap();
            if s.authors.contains_key(&id) {
                return err(403, "Resource not accessible by integration");
            }
            let before = s.comments.len();
            s.comments.retain(|(i, _)| *i != id);
            if s.comments.len() == before {
                return err(404, "Not Found");
            }
            (204, vec![], String::new())
        }
        // An installation token cannot read the authenticated user.
        ("GET", "/user") => err(403, "Resource not accessible by integration"),
        _ => err(404, "Not Found"),
    }
}

/// A fake GitHub for repository `o/r`, pull request 7, token `ghs_SECRET_token_1234`.
pub fn fake_github(mode: Mode) -> Fake {
    start(github, mode)
}

fn gitlab(s: &mut State, r: &Seen, mode: Mode, _port: u16) -> Reply {
    let err = |status: u16, msg: &str| (status, vec![], json!({"message": msg}).to_string());
    if r.auth.as_deref() != Some("glpat-SECRET-5678") {
        return err(401, "401 Unauthorized");
    }
    if mode == Mode::Forbidden {
        return err(403, "403 Forbidden");
    }
    if let Some(reply) = throttled(s, mode) {
        return reply;
    }
    let path = r.url.split('?').next().unwrap_or("").to_string();
    if mode == Mode::IdentityFails && path == "/api/v4/user" {
        return err(404, "404 Not found");
    }
    let notes = "/api/v4/projects/group%2Fproj/merge_requests/5/notes";
    let note = |id: u64, body: &str, author: Option<&String>| match author {
        None => {
            json!({"id": id, "body": body, "system": false, "noteable_iid": 5, "author": {"id": 1, "username": "bot"}})
        }
        Some(name) => {
            json!({"id": id, "body": body, "system": false, "noteable_iid": 5, "author": {"id": 2, "username": name}})
        }
    };
    let body_of = |r: &Seen| -> Option<String> {
        let v: Value = serde_json::from_str(&r.body).ok()?;
        v.get("body")?.as_str().map(str::to_string)
    };
    match (r.method.as_str(), path.as_str()) {
        ("GET", p) if p == notes => {
            let page: usize = query(&r.url, "page")
                .and_then(|p| p.parse().ok())
                .unwrap_or(1);
            let items: Vec<Value> = s
                .comments
                .iter()
                .skip((page - 1) * PAGE)
                .take(PAGE)
                .map(|(i, b)| note(*i, b, s.authors.get(i)))
                .collect();
            let next = if page * PAGE < s.comments.len() {
                (page + 1).to_string()
            } else {
                String::new()
            };
            (
                200,
                vec![("x-next-page".into(), next)],
                Value::Array(items).to_string(),
            )
        }
        ("POST", p) if p == notes => {
            let Some(body) = body_of(r) else {
                return err(400, "body is missing");
            };
            s.next_id += 1;
            let id = s.next_id;
            s.comments.push((id, body.clone()));
            (201, vec![], note(id, &body, None).to_string())
        }
        ("PUT", p) if p.starts_with(&format!("{notes}/")) => {
            let id: u64 = p.rsplit('/').next().unwrap().parse().unwrap();
            let Some(body) = body_of(r) else {
                return err(400, "body is missing");
            };
            if s.authors.contains_key(&id) {
                return err(403, "403 Forbidden");
            }
            match s.comments.iter_mut().find(|(i, _)| *i == id) {
                Some(c) => {
                    c.1 = body.clone();
                    (200, vec![], note(id, &body, None).to_string())
                }
                None => err(404, "404 Not found"),
            }
        }
        ("DELETE", p) if p.starts_with(&format!("{notes}/")) => {
            let id: u64 = p.rsplit('/').next().unwrap().parse().unwrap();
            if s.authors.contains_key(&id) {
                return err(403, "403 Forbidden");
            }
            s.comments.retain(|(i, _)| *i != id);
            (204, vec![], String::new())
        }
        ("GET", "/api/v4/user") => (200, vec![], json!({"id": 1, "username": "bot"}).to_string()),
        _ => err(404, "404 Not found"),
    }
}

/// A fake GitLab: project `group/proj`, merge request 5, token `glpat-SECRET-5678`.
pub fn fake_gitlab(mode: Mode) -> Fake {
    start(gitlab, mode)
}
