//! Artifacts: the declared files under test, recorded by sha256.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::suite::errors::{LoadError, LoadErrorKind};

/// `path → {"sha": <sha256 hex>, "text": <content>}` for each declared
/// artifact, as digline 0.10.0 records them (`text` only for UTF-8 files).
/// Paths are as written in the suite, resolved against `suite_dir`.
///
/// # Errors
/// A [`LoadError`] naming the artifact that cannot be read.
pub fn record(suite_dir: &Path, paths: &[String]) -> Result<Map<String, Value>, LoadError> {
    let mut out = Map::new();
    for rel in paths {
        let full = suite_dir.join(rel);
        let bytes = std::fs::read(&full).map_err(|e| {
            LoadError::new(
                LoadErrorKind::Read,
                "suite.toml",
                Some("[suite]"),
                Some("artifacts"),
                &format!("`artifacts` names {rel}, which cannot be read ({e})"),
            )
        })?;
        let sha = crate::core::identity::sha256_hex(&bytes, 32);
        let entry = match String::from_utf8(bytes) {
            Ok(text) => json!({"sha": sha, "text": text}),
            Err(_) => json!({"sha": sha}),
        };
        out.insert(rel.clone(), entry);
    }
    Ok(out)
}
