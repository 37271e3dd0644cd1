//! Masking the credentials a server echoes back.
//!
//! A target or a judge may quote what it received — an API key in an
//! error, a header in an answer, the Basic form of a URL's userinfo in a
//! reply. Checks grade the answer **as the server gave it**; masking
//! happens only where something is kept or shown: the journal, the run
//! document (answers, reasons, `target_config`), and every message (causes,
//! errors, logs). Each occurrence of a secret becomes `***`. A judge is
//! never sent an answer masking would change (`run::driver`), and
//! `rejudge` never grades such an answer as kept (`run::rejudge`).
//!
//! Which values are secrets ([`secrets`], documented in
//! `docs/http-target.md`): a provider API key; a target URL's user name
//! and password and their Basic form; the value of a `${NAME}` in a
//! credential header ([`is_credential_header`]) or whose NAME names a
//! credential ([`names_a_credential`]). Of those, only values that can be
//! secrets ([`can_be_secret`]): at least [`MIN_SECRET_CHARS`] characters
//! and not an ordinary lower-case word. So `UI_LANG=en` in
//! `Accept-Language`, a domain in `X-Tenant` or a dummy key `n` for a local
//! server are never masked anywhere, and nothing is masked inside JSON
//! before it is parsed.

use serde_json::{Map, Value};

/// What a masked credential reads as.
pub const MASK: &str = "***";

/// The fewest characters a value must have to be treated as a secret.
pub const MIN_SECRET_CHARS: usize = 8;

/// Can `value` be a secret? At least [`MIN_SECRET_CHARS`] characters, and
/// not only lower-case ASCII letters (an ordinary word).
pub fn can_be_secret(value: &str) -> bool {
    value.chars().count() >= MIN_SECRET_CHARS && !value.chars().all(|c| c.is_ascii_lowercase())
}

/// The values of `candidates` that can be secrets ([`can_be_secret`]),
/// once each.
pub fn secrets(candidates: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for value in candidates {
        if can_be_secret(&value) && !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

/// Does a header of this name carry a credential? `Authorization`,
/// `Proxy-Authorization`, `Cookie`, and any name holding `key`, `token`,
/// `secret`, `password`, `auth`, `session` or `signature` (any case).
pub fn is_credential_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "cookie" || names_a_credential(&lower)
}

/// Does an environment variable (or header) name say it holds a
/// credential? It holds `key`, `token`, `secret`, `password`, `passwd`,
/// `auth`, `session`, `signature` or `credential` (any case).
pub fn names_a_credential(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "auth",
        "session",
        "signature",
        "credential",
    ]
    .iter()
    .any(|word| lower.contains(word))
}

/// `text` with every `secret` that can be one ([`can_be_secret`]) replaced
/// by [`MASK`] (longest first, so a secret containing another is masked
/// whole).
pub fn mask_text(text: &str, secrets: &[String]) -> String {
    let mut ordered: Vec<&String> = secrets.iter().filter(|s| can_be_secret(s)).collect();
    ordered.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for secret in ordered {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), MASK);
        }
    }
    out
}

/// `text` masked ([`mask_text`]), then cut to its first `chars`
/// characters: the cut never leaves part of a secret behind.
pub fn mask_then_cut(text: &str, secrets: &[String], chars: usize) -> String {
    mask_text(text, secrets).chars().take(chars).collect()
}

/// Mask every string of an already parsed `value` (object keys included),
/// in place: for what is stored, never for what is graded.
pub fn mask_value(value: &mut Value, secrets: &[String]) {
    if !secrets.iter().any(|s| can_be_secret(s)) {
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
        let secrets = vec![
            "tok-1234".to_string(),
            "tok-1234-long".to_string(),
            String::new(),
        ];
        let mut v = json!({"a": ["x tok-1234-long y", {"tok-1234": 1}], "b": "no", "c": 2});
        mask_value(&mut v, &secrets);
        assert_eq!(v, json!({"a": ["x *** y", {"***": 1}], "b": "no", "c": 2}));
        assert_eq!(mask_text("tok-1234 tok-1234", &secrets), "*** ***");
        assert_eq!(mask_text("plain", &[]), "plain");
    }

    /// Short values and ordinary words are never secrets: masking them
    /// would rewrite answers ("open" → "op***") and JSON keys.
    #[test]
    fn short_values_and_ordinary_words_are_not_secrets() {
        for value in ["en", "n", "open", "language", "example"] {
            assert!(!can_be_secret(value), "{value}");
        }
        for value in ["example.com", "sk-12345678", "S3CRETMARKpw", "abcdefgH"] {
            assert!(can_be_secret(value), "{value}");
        }
        let kept = secrets([
            "en".to_string(),
            "n".to_string(),
            "sk-abc-12345".to_string(),
        ]);
        assert_eq!(kept, vec!["sk-abc-12345".to_string()]);
        let mut v = json!({"content": "open", "en": "en"});
        mask_value(&mut v, &["en".to_string(), "n".to_string()]);
        assert_eq!(v, json!({"content": "open", "en": "en"}));
    }

    #[test]
    fn credential_headers_and_names() {
        for name in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "X-Api-Key",
            "api-key",
            "X-Auth-Token",
            "X-Session-Id",
        ] {
            assert!(is_credential_header(name), "{name}");
        }
        for name in ["Accept-Language", "X-Tenant", "Content-Type", "User-Agent"] {
            assert!(!is_credential_header(name), "{name}");
        }
        assert!(names_a_credential("MY_API_KEY"));
        assert!(!names_a_credential("UI_LANG"));
    }

    /// Masked first, then cut: a key straddling the cut leaves nothing.
    #[test]
    fn the_cut_comes_after_the_mask() {
        let key = "sk-live-ABCDEFGHIJ".to_string();
        let text = format!("{}{key} tail", "x".repeat(110));
        let cut = mask_then_cut(&text, std::slice::from_ref(&key), 120);
        assert_eq!(cut, format!("{}*** tail", "x".repeat(110)));
        assert!(!cut.contains("sk-live"));
    }
}
