//! `patternProperties` patterns in Python's words, for the JSON Schema
//! validator.
//!
//! digline 0.10.0's `jsonschema` matches property names with Python's `re`:
//! `\w` and `\d` are Unicode, `$` also matches before one trailing newline,
//! `\p{…}` is a bad escape. The Rust validator reads the same text as an
//! ECMA-262 pattern (`\w`, `\d` ASCII). So before the schema is compiled,
//! every `patternProperties` key is rewritten by
//! [`super::pattern::translate_linear`] into a pattern with Python's meaning
//! that the validator's linear engine runs as written. The walk follows the
//! keywords that hold schemas, so a property *named* `patternProperties` is
//! left alone.

use serde_json::{Map, Value};

use super::pattern;
use crate::core::python::repr::repr_value;

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "additionalItems",
    "items",
];

/// Keywords whose value is a list of schemas (or, for `items`, one).
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to schemas.
const MAP: &[&str] = &[
    "properties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// The schema with every `patternProperties` key rewritten, and the pairs
/// (rewritten, declared) to name a refused pattern as the user wrote it.
///
/// # Errors
/// A located sentence when a key is not a pattern Python's `re` compiles
/// (or this port refuses), e.g. `at /patternProperties/\p{L}: the
/// patternProperties pattern '\\p{L}' does not compile: it has the bad escape \p`.
pub fn rewrite(schema: &Value) -> Result<(Value, Vec<(String, String)>), String> {
    let mut names = Vec::new();
    let rewritten = walk(schema, "", &mut names)?;
    Ok((rewritten, names))
}

fn walk(schema: &Value, at: &str, names: &mut Vec<(String, String)>) -> Result<Value, String> {
    let Value::Object(map) = schema else {
        return Ok(schema.clone());
    };
    let mut out = Map::new();
    for (key, value) in map {
        let here = format!("{at}/{}", escape(key));
        let new = match (key.as_str(), value) {
            ("patternProperties", Value::Object(patterns)) => {
                let mut rewritten: Map<String, Value> = Map::new();
                for (declared, sub) in patterns {
                    let at_key = format!("{here}/{}", escape(declared));
                    let python = pattern::translate_linear(declared).map_err(|why| {
                        format!(
                            "at {at_key}: the patternProperties pattern {} does not compile: {why}",
                            repr_value(&Value::String(declared.clone()))
                        )
                    })?;
                    let sub = walk(sub, &at_key, names)?;
                    names.push((python.clone(), declared.clone()));
                    // Two spellings of one pattern: both schemas apply.
                    let merged = match rewritten.remove(&python) {
                        Some(earlier) => serde_json::json!({"allOf": [earlier, sub]}),
                        None => sub,
                    };
                    rewritten.insert(python, merged);
                }
                Value::Object(rewritten)
            }
            (k, Value::Object(entries)) if MAP.contains(&k) => {
                let mut sub = Map::new();
                for (name, s) in entries {
                    let at_name = format!("{here}/{}", escape(name));
                    sub.insert(name.clone(), walk(s, &at_name, names)?);
                }
                Value::Object(sub)
            }
            (k, Value::Array(items)) if LIST.contains(&k) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, s)| walk(s, &format!("{here}/{i}"), names))
                    .collect::<Result<_, _>>()?,
            ),
            (k, v) if ONE.contains(&k) => walk(v, &here, names)?,
            _ => value.clone(),
        };
        out.insert(key.clone(), new);
    }
    Ok(Value::Object(out))
}

/// A JSON Pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_rewritten_where_they_are_patterns_only() {
        let schema = json!({"properties": {"patternProperties": {"type": "object"}},
            "items": {"patternProperties": {r"^\d$": {}}},
            "patternProperties": {r"\w": {"minimum": 1}, r"\w{1}": {"maximum": 3}}});
        let (rewritten, names) = rewrite(&schema).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rewritten["properties"], schema["properties"]);
        assert_eq!(
            rewritten["items"]["patternProperties"],
            json!({r"^[\p{Nd}](?:$|\n\z)": {}})
        );
        assert_eq!(names.len(), 3);
        assert_eq!(
            rewrite(&json!({"allOf": [{"patternProperties": {r"\p{L}": {}}}]})).unwrap_err(),
            r"at /allOf/0/patternProperties/\p{L}: the patternProperties pattern '\\p{L}' does not compile: it has the bad escape \p"
        );
    }
}
