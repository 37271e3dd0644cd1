//! Reading and writing schema-10 run documents.
//!
//! Writing: `serde` → `serde_json::Value` → [`dumps_document`], the bytes
//! digline 0.10.0 writes (sorted keys, 2-space indent, raw UTF-8, Python
//! float repr, trailing newline). Reading is strict: exactly schema 10,
//! no unknown key, no `null` where absence is meant, no verdict whose status
//! contradicts its score; anything else is refused with the file named.
//! Reads never migrate.

use std::path::Path;

use serde_json::Value;

use crate::core::document::{RunDocument, SCHEMA_VERSION};
use crate::core::pyjson::dumps_document;

use super::StoreError;

/// The exact bytes of `doc` on disk.
pub fn to_bytes(doc: &RunDocument) -> Vec<u8> {
    // Serializing plain structs of strings, numbers and maps cannot fail.
    let value = serde_json::to_value(doc).unwrap_or(Value::Null);
    dumps_document(&value).into_bytes()
}

/// Parse and validate a document's bytes; `path` only names the file in errors.
///
/// # Errors
/// [`StoreError::Malformed`] for bytes that are not a schema-10 document,
/// [`StoreError::Newer`]/[`StoreError::Older`] for another schema version.
pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<RunDocument, StoreError> {
    let malformed = |cause: String| StoreError::Malformed {
        path: path.to_path_buf(),
        cause,
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|e| malformed(format!("it is not UTF-8 at byte {}", e.valid_up_to())))?;
    let value: Value =
        serde_json::from_str(text).map_err(|e| malformed(format!("it is not JSON ({e})")))?;
    let Value::Object(map) = &value else {
        return Err(malformed(format!(
            "it holds {}, not a run object",
            json_kind(&value)
        )));
    };
    match map.get("schema_version") {
        None => return Err(malformed("it has no `schema_version`".to_string())),
        Some(Value::Number(n)) if n.is_i64() => {
            let found = n.as_i64().unwrap_or_default();
            if found > SCHEMA_VERSION {
                return Err(StoreError::Newer {
                    path: path.to_path_buf(),
                    found,
                    supported: SCHEMA_VERSION,
                });
            }
            if found < SCHEMA_VERSION {
                return Err(StoreError::Older {
                    path: path.to_path_buf(),
                    found,
                    supported: SCHEMA_VERSION,
                });
            }
        }
        Some(other) => {
            return Err(malformed(format!(
                "`schema_version` is {}, not an integer",
                json_kind(other)
            )))
        }
    }
    let doc: RunDocument = serde_json::from_value(value).map_err(|e| malformed(e.to_string()))?;
    validate(&doc).map_err(malformed)?;
    Ok(doc)
}

/// Read and validate the document at `path`.
///
/// # Errors
/// [`StoreError::Io`] when the file cannot be read, else as [`from_bytes`].
pub fn read(path: &Path) -> Result<RunDocument, StoreError> {
    let bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
    from_bytes(path, &bytes)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn validate(doc: &RunDocument) -> Result<(), String> {
    for (name, value) in [
        ("tenant", &doc.tenant),
        ("suite", &doc.suite),
        ("environment", &doc.environment),
        ("config_hash", &doc.config_hash),
        ("created_at", &doc.created_at),
    ] {
        if value.is_empty() {
            return Err(format!("`{name}` is empty"));
        }
    }
    let all = doc
        .results
        .iter()
        .flat_map(|c| c.verdicts.iter().map(move |v| (c.case_id.as_str(), v)))
        .chain(doc.aggregate.iter().map(|v| ("(run)", v)));
    for (case, v) in all {
        if v.assertion_id.is_empty() {
            return Err(format!(
                "a verdict of case '{case}' has an empty `assertion_id`"
            ));
        }
        if !v.is_consistent() {
            return Err(format!(
                "the verdict '{}' of case '{case}' says {} with score {}, which contradict each other",
                v.assertion,
                v.status.as_str(),
                v.score
                    .map(crate::core::pyjson::float_repr)
                    .unwrap_or_else(|| "null".into())
            ));
        }
        if !(0.0..=1.0).contains(&v.threshold) || v.tolerance < 0.0 || !v.tolerance.is_finite() {
            return Err(format!(
                "the verdict '{}' of case '{case}' has a threshold outside 0–1 or a negative tolerance",
                v.assertion
            ));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for c in &doc.results {
        if !seen.insert(c.case_id.as_str()) {
            return Err(format!("case '{}' appears twice", c.case_id));
        }
        if c.suspended != c.suspended_reason.is_some() && c.suspended {
            return Err(format!(
                "case '{}' is suspended without a reason",
                c.case_id
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(name: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/goldens")
            .join(name);
        std::fs::read(path).unwrap()
    }

    #[test]
    fn golden_documents_round_trip_byte_for_byte() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/goldens");
        let mut n = 0;
        for group in ["documents", "headlines"] {
            for entry in std::fs::read_dir(dir.join(group)).unwrap() {
                let entry = entry.unwrap();
                for file in ["run.json", "baseline.json", "baseline-run.json"] {
                    let path = entry.path().join(file);
                    if !path.exists() {
                        continue;
                    }
                    let bytes = std::fs::read(&path).unwrap();
                    let doc = from_bytes(&path, &bytes)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    assert_eq!(
                        String::from_utf8(to_bytes(&doc)).unwrap(),
                        String::from_utf8(bytes).unwrap(),
                        "{}",
                        path.display()
                    );
                    n += 1;
                }
            }
        }
        assert!(n > 50, "only {n} documents checked");
    }

    #[test]
    fn malformed_documents_are_refused_with_the_file_named() {
        let good = String::from_utf8(golden("documents/01-unicode-text/run.json")).unwrap();
        let rows: &[(&str, &str)] = &[
            ("[]", "not a run object"),
            ("{}", "no `schema_version`"),
            ("{\"schema_version\": null}", "not an integer"),
            ("{\"schema_version\": true}", "not an integer"),
            ("{\"schema_version\": 11}", "upgrade digline"),
            ("{\"schema_version\": 9}", "digline migrate"),
            ("not json", "not JSON"),
        ];
        for (text, want) in rows {
            let err = from_bytes(Path::new("x/run.json"), text.as_bytes()).unwrap_err();
            let msg = err.to_string();
            assert!(
                msg.contains(want) && msg.contains("x/run.json"),
                "{text}: {msg}"
            );
        }
        let tampered = good.replacen("\"status\": \"pass\"", "\"status\": \"fail\"", 1);
        let msg = from_bytes(Path::new("r.json"), tampered.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(msg.contains("contradict"), "{msg}");
        let unknown = good.replacen(
            "\"redacted\": false",
            "\"redacted\": false, \"extra\": 1",
            1,
        );
        let msg = from_bytes(Path::new("r.json"), unknown.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(msg.contains("extra"), "{msg}");
        let null_commit = good.replacen("\"environment\": \"local\"", "\"environment\": null", 1);
        assert!(from_bytes(Path::new("r.json"), null_commit.as_bytes()).is_err());
        assert!(from_bytes(Path::new("r.json"), &[0xff, 0xfe]).is_err());
        assert!(from_bytes(Path::new("r.json"), good.as_bytes()).is_ok());
    }
}
