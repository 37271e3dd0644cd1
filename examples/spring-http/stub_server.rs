//! The Spring stand-in's server: the assistant's JSON contract served on
//! loopback. Shared by the `spring-stub` example and the integration tests
//! (`tests/cli/examples.rs`).
//!
//! `POST /api/v1/assistant/answers` with `Authorization: Bearer <token>` and
//! `{"conversationId": "…", "message": {"text": "…"}, "locale": "…"}`
//! answers, from the answers table keyed by `conversationId` (`"*"` for any
//! other), `{"data": {"reply": {"text": T}}, "meta": {"costUsd": C,
//! "latencyMs": L, "model": {"provider": P, "name": N}, "modelConfig":
//! {"provider": P, "model": N, "temperature": 0.2}}}`. A table entry is the
//! reply text, or an object with `text`, `costUsd` (default 0.0005),
//! `latencyMs` (default 120), `model` (default `gpt-4.1-mini`).
//!
//! As a Spring controller would: a wrong or missing token is a 401, a body
//! without `conversationId`, `message.text` or `locale` a 400, another path
//! a 404, another method on the path a 405 (which digline's preflight
//! counts as "something is listening"). The table is read again on every
//! request.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread;

use serde_json::{json, Value};

/// The one endpoint.
pub const PATH: &str = "/api/v1/assistant/answers";

/// A running stand-in: answers until it is dropped.
pub struct Spring {
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    server: Arc<tiny_http::Server>,
}

impl Drop for Spring {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

/// Start answering from `answers` on `127.0.0.1:port` (0 = any free port),
/// accepting only `Authorization: Bearer <token>`.
///
/// # Errors
/// When the port cannot be bound.
pub fn start(answers: PathBuf, port: u16, token: String) -> std::io::Result<Spring> {
    let server = tiny_http::Server::http(("127.0.0.1", port))
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let port = server.server_addr().to_ip().map_or(port, |a| a.port());
    let server = Arc::new(server);
    let listener = Arc::clone(&server);
    let shared = Arc::new((answers, token));
    thread::spawn(move || {
        for request in listener.incoming_requests() {
            let shared = Arc::clone(&shared);
            thread::spawn(move || serve(request, &shared.0, &shared.1));
        }
    });
    Ok(Spring { port, server })
}

fn serve(mut request: tiny_http::Request, answers: &PathBuf, token: &str) {
    let authorized = request
        .headers()
        .iter()
        .any(|h| h.field.equiv("Authorization") && h.value.as_str() == format!("Bearer {token}"));
    let (status, body) = if request.url() != PATH {
        (404, problem(404, "Not Found"))
    } else if request.method() != &tiny_http::Method::Post {
        (405, problem(405, "Method Not Allowed"))
    } else if !authorized {
        (401, problem(401, "Unauthorized"))
    } else {
        let mut raw = Vec::new();
        let _ = request.as_reader().read_to_end(&mut raw);
        let table = std::fs::read(answers).unwrap_or_default();
        answer(&raw, &table)
    };
    let mut response =
        tiny_http::Response::from_data(body.to_string().into_bytes()).with_status_code(status);
    if let Ok(header) = tiny_http::Header::from_bytes("Content-Type", "application/json") {
        response = response.with_header(header);
    }
    let _ = request.respond(response);
}

/// Spring Boot's error body.
fn problem(status: u16, error: &str) -> Value {
    json!({"status": status, "error": error, "path": PATH})
}

/// The status and body for one request body, from the table text.
fn answer(request: &[u8], table: &[u8]) -> (u16, Value) {
    let Ok(body) = serde_json::from_slice::<Value>(request) else {
        return (400, problem(400, "Bad Request"));
    };
    let (Some(id), Some(_), Some(_)) = (
        body["conversationId"].as_str(),
        body["message"]["text"].as_str(),
        body["locale"].as_str(),
    ) else {
        return (400, problem(400, "Bad Request"));
    };
    let table: Value = serde_json::from_slice(table).unwrap_or_else(|_| json!({}));
    let entry = match table.get(id).or_else(|| table.get("*")) {
        Some(Value::String(text)) => json!({"text": text}),
        Some(entry @ Value::Object(_)) => entry.clone(),
        _ => json!({"text": ""}),
    };
    let model = entry.get("model").cloned().unwrap_or(json!("gpt-4.1-mini"));
    (
        200,
        json!({
            "data": {"reply": {"text": entry["text"]}},
            "meta": {
                "costUsd": entry.get("costUsd").cloned().unwrap_or(json!(0.0005)),
                "latencyMs": entry.get("latencyMs").cloned().unwrap_or(json!(120)),
                "model": {"provider": "openai", "name": model},
                "modelConfig": {"provider": "openai", "model": model, "temperature": 0.2}
            }
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_is_checked_and_answered() {
        let table = br#"{"a": "hello", "*": {"text": "other", "costUsd": 0.001}}"#;
        let ok = br#"{"conversationId": "a", "message": {"text": "q"}, "locale": "en"}"#;
        let (status, body) = answer(ok, table);
        assert_eq!(status, 200);
        assert_eq!(body["data"]["reply"]["text"], "hello");
        assert_eq!(body["meta"]["model"]["name"], "gpt-4.1-mini");
        assert_eq!(body["meta"]["modelConfig"]["model"], "gpt-4.1-mini");
        let other = br#"{"conversationId": "b", "message": {"text": "q"}, "locale": "en"}"#;
        assert_eq!(answer(other, table).1["meta"]["costUsd"], 0.001);
        let no_locale = br#"{"conversationId": "a", "message": {"text": "q"}}"#;
        assert_eq!(answer(no_locale, table).0, 400);
        assert_eq!(answer(b"not json", table).0, 400);
    }
}
