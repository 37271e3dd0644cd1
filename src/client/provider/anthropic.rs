//! Anthropic's Messages API: `POST {base}/v1/messages`.
//!
//! Request: `{"model", "max_tokens", "messages": [user, assistant prefill?],
//! "system"?, "temperature"?}` with headers `x-api-key` and
//! `anthropic-version: 2023-06-01`. Reply: the `text` blocks of `content`
//! joined (the prefill prepended), `usage.input_tokens`, `output_tokens`,
//! `cache_read_input_tokens`, `cache_creation_input_tokens` (cache reads and
//! writes are outside `input_tokens`, so priced as reported; of the writes,
//! `cache_creation.ephemeral_1h_input_tokens` are 1-hour ones, priced at
//! their own rate), `model`, `stop_reason`.

use serde_json::{json, Map, Value};

use super::{text_at, tokens, ApiKey, ChatRequest, Completion};
use crate::client::pricing::Usage;

/// The path under the base URL.
pub const PATH: &str = "/v1/messages";

/// The API version digline speaks.
pub const VERSION: &str = "2023-06-01";

/// The request body for `request`.
pub fn body(request: &ChatRequest) -> Value {
    let mut messages = vec![json!({"role": "user", "content": request.user})];
    if let Some(prefill) = request.prefill.as_deref().filter(|p| !p.is_empty()) {
        messages.push(json!({"role": "assistant", "content": prefill}));
    }
    let mut body = Map::new();
    body.insert("model".into(), Value::String(request.model.clone()));
    body.insert("max_tokens".into(), Value::from(request.max_tokens));
    body.insert("messages".into(), Value::Array(messages));
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body.insert("system".into(), Value::String(system.to_string()));
    }
    if let Some(t) = &request.temperature {
        body.insert("temperature".into(), Value::Number(t.clone()));
    }
    Value::Object(body)
}

/// The headers besides `content-type` (the key only when there is one).
pub fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
    let mut out = vec![("anthropic-version", VERSION.to_string())];
    if let Some(key) = key {
        out.push(("x-api-key", key.expose().to_string()));
    }
    out
}

/// Read a Messages reply.
///
/// # Errors
/// A phrase completing "`<host>` answered …": no text block, or a
/// malformed usage.
pub fn read(payload: &Value, prefill: Option<&str>) -> Result<Completion, String> {
    let stop_reason = text_at(payload, "stop_reason");
    let blocks = payload.get("content").and_then(Value::as_array);
    let texts: Vec<&str> = blocks
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return Err(format!(
            "with no text (stop_reason {}): a refusal or a reply that is not text",
            stop_reason.as_deref().unwrap_or("not given")
        ));
    }
    let usage = payload.get("usage");
    if usage.is_none() {
        return Err("with no usage, so the call cannot be priced".to_string());
    }
    // `cache_creation_input_tokens` counts every cache write; the
    // `cache_creation` object, when sent, says how many were 1-hour ones.
    let written = tokens(usage, "cache_creation_input_tokens")?;
    let one_hour = tokens(
        usage.and_then(|u| u.get("cache_creation")),
        "ephemeral_1h_input_tokens",
    )?
    .min(written);
    let usage = Usage {
        input_tokens: tokens(usage, "input_tokens")?,
        output_tokens: tokens(usage, "output_tokens")?,
        cache_read_tokens: tokens(usage, "cache_read_input_tokens")?,
        cache_write_tokens: written - one_hour,
        cache_write_1h_tokens: one_hour,
    };
    let mut text = prefill.unwrap_or_default().to_string();
    text.push_str(&texts.concat());
    Ok(Completion {
        text,
        usage,
        resolved_model: text_at(payload, "model"),
        fingerprint: None,
        stop_reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Number;

    #[test]
    fn request_shape() {
        let request = ChatRequest {
            model: "claude-haiku-4-5".into(),
            system: Some("Be brief.".into()),
            user: "Hi è".into(),
            prefill: Some("{".into()),
            max_tokens: 400,
            temperature: Some(Number::from_f64(0.0).unwrap()),
            ..ChatRequest::default()
        };
        assert_eq!(
            body(&request),
            json!({
                "model": "claude-haiku-4-5", "max_tokens": 400, "system": "Be brief.",
                "temperature": 0.0,
                "messages": [{"role": "user", "content": "Hi è"}, {"role": "assistant", "content": "{"}]
            })
        );
        let bare = ChatRequest {
            model: "m".into(),
            user: "u".into(),
            max_tokens: 1,
            ..ChatRequest::default()
        };
        assert_eq!(
            body(&bare),
            json!({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "u"}]})
        );
        let key = ApiKey::new("k".into());
        assert_eq!(headers(key.as_ref()).len(), 2);
        assert_eq!(
            headers(None),
            vec![("anthropic-version", VERSION.to_string())]
        );
    }

    #[test]
    fn replies() {
        let ok = json!({
            "model": "claude-haiku-4-5-20251001", "stop_reason": "end_turn",
            "content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "\"a\": 1}"}],
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 3, "cache_creation_input_tokens": null}
        });
        let c = read(&ok, Some("{")).unwrap();
        assert_eq!(c.text, "{\"a\": 1}");
        assert_eq!(
            c.resolved_model.as_deref(),
            Some("claude-haiku-4-5-20251001")
        );
        assert_eq!(
            c.usage,
            Usage {
                input_tokens: 10,
                output_tokens: 5,
                cache_read_tokens: 3,
                cache_write_tokens: 0,
                cache_write_1h_tokens: 0
            }
        );
        // 1-hour cache writes are told apart from 5-minute ones
        let cached = json!({
            "stop_reason": "end_turn", "content": [{"type": "text", "text": "x"}],
            "usage": {"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 300,
                      "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200}}
        });
        let u = read(&cached, None).unwrap().usage;
        assert_eq!((u.cache_write_tokens, u.cache_write_1h_tokens), (100, 200));
        let rows = [
            (
                json!({"content": [], "stop_reason": "refusal", "usage": {}}),
                "with no text (stop_reason refusal)",
            ),
            (
                json!({"content": [{"type": "text", "text": "a"}]}),
                "with no usage",
            ),
            (
                json!({"content": [{"type": "text", "text": "a"}], "usage": {"input_tokens": -1}}),
                "'input_tokens' is not a whole number",
            ),
            (json!([]), "with no text"),
        ];
        for (payload, want) in rows {
            let e = read(&payload, None).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
