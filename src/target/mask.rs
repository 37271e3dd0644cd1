//! Masking the credentials a server echoes back.
//!
//! A target or a judge may quote what it received — an API key in an
//! error, a header in an answer, the Basic form of a URL's userinfo in a
//! reply. Everything read from a server passes through [`mask_value`] (or
//! [`mask_text`]) before it becomes an output, a reason or a cause, so a
//! credential never reaches a run document, a report or a log: each
//! occurrence becomes `***`.

use serde_json::{Map, Value};

/// What a masked credential reads as.
pub const MASK: &str = "***";

/// `text` with every non-empty `secret` replaced by [`MASK`] (longest first,
/// so a secret containing another is masked whole).
pub fn mask_text(text: &str, secrets: &[String]) -> String {
    let mut ordered: Vec<&String> = secrets.iter().filter(|s| !s.is_empty()).collect();
    ordered.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for secret in ordered {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), MASK);
        }
    }
    out
}

/// Mask every string of `value` (object keys included), in place.
pub fn mask_value(value: &mut Value, secrets: &[String]) {
    if secrets.iter().all(String::is_empty) {
        return;
    }
    match value {
        Value::String(s) => {
            let masked = mask_text(s, secrets);
            if masked != *s {
                *s = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| mask_value(v, secrets)),
        Value::Object(map) => {
            let taken = std::mem::take(map);
            let mut rebuilt = Map::with_capacity(taken.len());
            for (key, mut item) in taken {
                mask_value(&mut item, secrets);
                rebuilt.insert(mask_text(&key, secrets), item);
            }
            *map = rebuilt;
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The Basic credential a client sends for `user:password` (RFC 7617,
/// standard base64 with padding).
pub fn basic_credential(user: &str, password: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn basic_matches_rfc_7617() {
        assert_eq!(
            basic_credential("Aladdin", "open sesame"),
            "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
        assert_eq!(basic_credential("a", ""), "YTo=");
        assert_eq!(basic_credential("ab", "c"), "YWI6Yw==");
    }

    #[test]
    fn every_string_and_key_is_masked_longest_first() {
        let secrets = vec!["tok".to_string(), "tok-long".to_string(), String::new()];
        let mut v = json!({"a": ["x tok-long y", {"tok": 1}], "b": "no", "c": 2});
        mask_value(&mut v, &secrets);
        assert_eq!(v, json!({"a": ["x *** y", {"***": 1}], "b": "no", "c": 2}));
        assert_eq!(mask_text("tok tok", &secrets), "*** ***");
        assert_eq!(mask_text("plain", &[]), "plain");
    }
}
