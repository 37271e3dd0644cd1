//! OpenAI's Chat Completions API (and compatible endpoints):
//! `POST {base}/chat/completions`, the base including `/v1`.
//!
//! Request: `{"model", "messages": [system?, user], <token_param>,
//! "temperature"?, "response_format"?}` plus `extra_body`'s keys, with
//! `Authorization: Bearer <key>` when there is a key. Reply:
//! `choices[0].message.content`, `usage.prompt_tokens` (cached tokens
//! included, so `prompt_tokens_details.cached_tokens` is subtracted before
//! pricing), `completion_tokens`, `model`, `finish_reason`.

use serde_json::{json, Map, Value};

use super::{text_at, tokens, ApiKey, ChatRequest, Completion};
use crate::client::pricing::Usage;

/// The path under the base URL.
pub const PATH: &str = "/chat/completions";

/// The request body for `request`.
pub fn body(request: &ChatRequest) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.push(json!({"role": "user", "content": request.user}));
    let mut body = Map::new();
    if let Some(extra) = &request.extra_body {
        for (k, v) in extra {
            body.insert(k.clone(), v.clone());
        }
    }
    body.insert("model".into(), Value::String(request.model.clone()));
    body.insert("messages".into(), Value::Array(messages));
    let param = if request.token_param.is_empty() {
        "max_completion_tokens"
    } else {
        request.token_param
    };
    body.insert(param.into(), Value::from(request.max_tokens));
    if let Some(t) = &request.temperature {
        body.insert("temperature".into(), Value::Number(t.clone()));
    }
    if let Some(format) = &request.response_format {
        body.insert("response_format".into(), format.clone());
    }
    Value::Object(body)
}

/// The headers besides `content-type` (none without a key).
pub fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
    key.map(|k| vec![("authorization", format!("Bearer {}", k.expose()))])
        .unwrap_or_default()
}

/// Read a Chat Completions reply.
///
/// # Errors
/// A phrase completing "`<host>` answered …": no choice, a refusal or no
/// text, a malformed usage.
pub fn read(payload: &Value) -> Result<Completion, String> {
    let choice = payload
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| "with no choices".to_string())?;
    let stop_reason = text_at(choice, "finish_reason");
    let message = choice.get("message");
    if message
        .and_then(|m| m.get("refusal"))
        .is_some_and(|r| r.is_string())
    {
        return Err("with a refusal instead of an answer".to_string());
    }
    let Some(text) = message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
    else {
        return Err(format!(
            "with no text (finish_reason {}): a reply that is not text",
            stop_reason.as_deref().unwrap_or("not given")
        ));
    };
    let usage = payload.get("usage");
    if usage.is_none_or(Value::is_null) {
        return Err("with no usage, so the call cannot be priced".to_string());
    }
    let prompt = tokens(usage, "prompt_tokens")?;
    let cached = tokens(
        usage.and_then(|u| u.get("prompt_tokens_details")),
        "cached_tokens",
    )?;
    Ok(Completion {
        text: text.to_string(),
        usage: Usage {
            input_tokens: prompt.saturating_sub(cached),
            output_tokens: tokens(usage, "completion_tokens")?,
            cache_read_tokens: cached.min(prompt),
            cache_write_tokens: 0,
            cache_write_1h_tokens: 0,
        },
        resolved_model: text_at(payload, "model"),
        fingerprint: text_at(payload, "system_fingerprint"),
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
            model: "gpt-4o-mini".into(),
            system: Some("S".into()),
            user: "U".into(),
            max_tokens: 50,
            temperature: Some(Number::from(1)),
            response_format: Some(json!({"type": "json_object"})),
            token_param: "max_completion_tokens",
            extra_body: Some(
                json!({"seed": 7, "model": "ignored"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            ..ChatRequest::default()
        };
        assert_eq!(
            body(&request),
            json!({
                "model": "gpt-4o-mini", "seed": 7, "max_completion_tokens": 50, "temperature": 1,
                "response_format": {"type": "json_object"},
                "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
            })
        );
        let local = ChatRequest {
            model: "llama3".into(),
            user: "U".into(),
            max_tokens: 5,
            token_param: "max_tokens",
            ..ChatRequest::default()
        };
        assert_eq!(
            body(&local),
            json!({"model": "llama3", "max_tokens": 5, "messages": [{"role": "user", "content": "U"}]})
        );
        assert!(headers(None).is_empty());
        assert_eq!(headers(ApiKey::new("k".into()).as_ref())[0].1, "Bearer k");
    }

    #[test]
    fn replies() {
        let ok = json!({
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 40}}
        });
        let c = read(&ok).unwrap();
        assert_eq!(c.text, "hi");
        assert_eq!(
            c.usage,
            Usage {
                input_tokens: 60,
                output_tokens: 7,
                cache_read_tokens: 40,
                cache_write_tokens: 0,
                cache_write_1h_tokens: 0
            }
        );
        assert_eq!(c.stop_reason.as_deref(), Some("stop"));
        let rows = [
            (json!({"choices": []}), "with no choices"),
            (
                json!({"choices": [{"message": {"content": null, "refusal": "no"}}]}),
                "a refusal",
            ),
            (
                json!({"choices": [{"message": {"content": null}, "finish_reason": "tool_calls"}]}),
                "finish_reason tool_calls",
            ),
            (
                json!({"choices": [{"message": {"content": "x"}}], "usage": null}),
                "with no usage",
            ),
            (
                json!({"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": 1.5}}),
                "'prompt_tokens'",
            ),
        ];
        for (payload, want) in rows {
            let e = read(&payload).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }
}
