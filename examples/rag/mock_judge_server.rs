//! The mock judge's server: a deterministic stand-in for the Anthropic
//! Messages API (`POST /v1/messages`) and the OpenAI Chat Completions API
//! (`POST …/chat/completions`), answering digline's judging prompts by rule
//! instead of by model. Shared by the `rag-mock-judge` example and the
//! integration tests (`tests/cli/examples.rs`).
//!
//! **Faithfulness** (the claim-counting prompt): every sentence of the
//! output (ending at `.`, `!` or `?` before a space or the end) is a claim; a claim is supported when every number in it occurs
//! in the context and at least half of its words of four letters or more
//! occur there too (case-insensitive). The reply is `{"supported": S,
//! "total": T, "reason": …}`.
//!
//! **Rubrics** (the scoring prompt): the rubric names what the output must
//! contain between backticks (`` `help.northwind.example` ``); the score is
//! the share of those phrases the output contains (case-insensitive). A
//! rubric with no backticked phrase, or an empty output, is an abstention.
//!
//! It never calls anything and accepts any key (or none). Anthropic replies
//! are sent without the `{` digline prefills.

use std::sync::Arc;
use std::thread;

use serde_json::{json, Value};

/// A running mock judge: answers until it is dropped.
pub struct MockJudge {
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    server: Arc<tiny_http::Server>,
}

impl Drop for MockJudge {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

/// Start judging on `127.0.0.1:port` (0 = any free port).
///
/// # Errors
/// When the port cannot be bound.
pub fn start(port: u16) -> std::io::Result<MockJudge> {
    let server = tiny_http::Server::http(("127.0.0.1", port))
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let port = server.server_addr().to_ip().map_or(port, |a| a.port());
    let server = Arc::new(server);
    let listener = Arc::clone(&server);
    thread::spawn(move || {
        for request in listener.incoming_requests() {
            thread::spawn(move || serve(request));
        }
    });
    Ok(MockJudge { port, server })
}

fn serve(mut request: tiny_http::Request) {
    let mut raw = Vec::new();
    let _ = request.as_reader().read_to_end(&mut raw);
    let url = request.url().to_string();
    let (status, body) = match serde_json::from_slice::<Value>(&raw) {
        Ok(body) if url.ends_with("/v1/messages") => (200, anthropic(&body)),
        Ok(body) if url.ends_with("/chat/completions") => (200, openai(&body)),
        _ => (
            404,
            json!({"error": {"message": "the mock judge answers POST /v1/messages and /chat/completions"}}),
        ),
    };
    let mut response =
        tiny_http::Response::from_data(body.to_string().into_bytes()).with_status_code(status);
    if let Ok(header) = tiny_http::Header::from_bytes("Content-Type", "application/json") {
        response = response.with_header(header);
    }
    let _ = request.respond(response);
}

/// The message of `role` in a request's `messages`.
fn message<'a>(body: &'a Value, role: &str) -> Option<&'a str> {
    body["messages"]
        .as_array()?
        .iter()
        .find(|m| m["role"] == role)?["content"]
        .as_str()
}

/// A rough token count, so the judge's spend is priced (and stable).
fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

fn anthropic(body: &Value) -> Value {
    let system = body["system"].as_str().unwrap_or_default();
    let user = message(body, "user").unwrap_or_default();
    let reply = judge(system, user);
    let prefill = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .filter(|m| m["role"] == "assistant")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    let text = reply.strip_prefix(prefill).unwrap_or(&reply);
    json!({
        "id": "msg_mock", "type": "message", "role": "assistant",
        "model": body["model"],
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": tokens(system) + tokens(user), "output_tokens": tokens(&reply),
                  "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    })
}

fn openai(body: &Value) -> Value {
    let system = message(body, "system").unwrap_or_default();
    let user = message(body, "user").unwrap_or_default();
    let reply = judge(system, user);
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion",
        "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": tokens(system) + tokens(user), "completion_tokens": tokens(&reply)}
    })
}

/// The section of the prompt that starts with `label:` (up to the next section).
fn section<'a>(prompt: &'a str, label: &str) -> &'a str {
    let head = format!("{label}:\n");
    let Some(start) = prompt
        .find(&format!("\n\n{head}"))
        .map(|i| i + 2 + head.len())
        .or_else(|| prompt.starts_with(&head).then_some(head.len()))
    else {
        return "";
    };
    let rest = &prompt[start..];
    if label == "Output to judge" {
        return rest;
    }
    [
        "\n\nRubric:\n",
        "\n\nContext:\n",
        "\n\nInput:\n",
        "\n\nOutput to judge:\n",
    ]
    .iter()
    .filter_map(|next| rest.find(next))
    .min()
    .map_or(rest, |end| &rest[..end])
}

/// The judge's reply text (a JSON object) for one prompt.
pub fn judge(system: &str, prompt: &str) -> String {
    let output = section(prompt, "Output to judge");
    let reply = if system.contains("claims") {
        claims(section(prompt, "Context"), output)
    } else {
        rubric(section(prompt, "Rubric"), output)
    };
    reply.to_string()
}

fn claims(context: &str, output: &str) -> Value {
    let context = context.to_lowercase();
    let sentences = sentences(output);
    if sentences.is_empty() {
        return json!({"abstain": true, "reason": "the output makes no claim"});
    }
    let supported = sentences
        .iter()
        .filter(|s| supported(&context, &s.to_lowercase()))
        .count();
    json!({
        "supported": supported,
        "total": sentences.len(),
        "reason": format!("{supported} of {} claims are supported by the context", sentences.len())
    })
}

/// The sentences of `text`: each ends at `.`, `!` or `?` followed by
/// whitespace or the end (so `help.northwind.example` stays whole).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = matches!(c, '.' | '!' | '?')
            && chars.peek().is_none_or(|(_, next)| next.is_whitespace());
        if end {
            out.push(&text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .collect()
}

fn supported(context: &str, claim: &str) -> bool {
    let numbers = claim
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty());
    let context_numbers: Vec<&str> = context
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .collect();
    if numbers.clone().any(|n| !context_numbers.contains(&n)) {
        return false;
    }
    let words: Vec<&str> = claim
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4)
        .collect();
    let found = words.iter().filter(|w| context.contains(**w)).count();
    found * 2 >= words.len()
}

fn rubric(rubric: &str, output: &str) -> Value {
    let phrases: Vec<&str> = rubric.split('`').skip(1).step_by(2).collect();
    if phrases.is_empty() || output.trim().is_empty() {
        return json!({"abstain": true, "reason": "nothing in the rubric to look for, or nothing to grade"});
    }
    let output = output.to_lowercase();
    let found = phrases
        .iter()
        .filter(|p| output.contains(&p.to_lowercase()))
        .count();
    json!({
        "score": found as f64 / phrases.len() as f64,
        "reason": format!("the output has {found} of the {} phrases the rubric asks for", phrases.len())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAIMS: &str = "You check which claims of an output are supported";

    #[test]
    fn claims_are_counted_against_the_context() {
        let prompt = "Decide which claims.\n\nContext:\nRefunds are paid within 14 days.\nKettles carry a 2 year warranty.\n\nOutput to judge:\nRefunds are paid within 14 days. The warranty lasts 5 years.";
        let reply: Value = serde_json::from_str(&judge(CLAIMS, prompt)).unwrap();
        assert_eq!(
            (reply["supported"].as_u64(), reply["total"].as_u64()),
            (Some(1), Some(2))
        );
    }

    #[test]
    fn rubrics_score_the_backticked_phrases() {
        let prompt = "Rubric:\nPoints to `help.northwind.example` and says `sorry`.\n\nOutput to judge:\nSee help.northwind.example.";
        let reply: Value = serde_json::from_str(&judge("You grade", prompt)).unwrap();
        assert_eq!(reply["score"], 0.5);
        let none = judge("You grade", "Rubric:\nBe nice.\n\nOutput to judge:\nhi");
        assert!(none.contains("abstain"), "{none}");
    }
}
