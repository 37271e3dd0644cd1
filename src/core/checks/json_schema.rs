//! `json_schema`: the output conforms to a JSON Schema (Draft 2020-12).
//!
//! The schema is checked against the Draft 2020-12 meta-schema when the
//! suite loads ([`CompiledSchema::compile`]), so a broken schema is refused
//! before any call. A text output is decoded as Python's `json.loads` does
//! ([`crate::core::python::loads`]); an undecodable text is an **error** (unlike
//! `is_json`, where it is a fail), with Python's message. A structured output
//! is validated as it is.
//!
//! The fail reason is digline 0.10.0's: `N violation(s), first at <path or
//! (root)>: <message>`, violations sorted by their path (the segments
//! compared as strings, as 0.10.0 does). Messages are rewritten in the words
//! of Python's `jsonschema` 4.26 for the keywords below, quoting values with
//! Python's `repr`; any other keyword keeps the Rust validator's wording.
//!
//! Known differences from 0.10.0 (documented in `docs/checks.md`):
//! - two violations at the same path are ordered by the Rust validator
//!   (keywords roughly alphabetical), where 0.10.0 follows the order the
//!   schema was written in; the count is the same;
//! - an object quoted in a message lists its keys in code-point order;
//! - `format` is not asserted (as in 0.10.0), and a `$ref` that cannot be
//!   resolved is refused at load (0.10.0 raised while judging);
//! - a `$schema` inside a subschema switches 0.10.0 to that draft from
//!   there down; here every subschema is Draft 2020-12;
//! - an output holding `NaN`, `Infinity`, a lone surrogate escape or
//!   containers nested more than 256 deep is an error here: the validator
//!   cannot hold those values;
//! - `items = false` after `prefixItems` reads in the Rust validator's words
//!   (0.10.0: `Expected at most N items but found M extra: …`).
//!
//! `pattern` is Python's `re.search`, as in 0.10.0 (whose `jsonschema`
//! runs Python's `re`): the pattern is translated by [`super::pattern`] and
//! searched within the time budget of [`super::search`], wherever it
//! stands (`properties`, `items`, `propertyNames`, `$defs` reached by
//! `$ref`, …). A search that runs out of its budget is an **error**
//! (`pattern '…' could not be searched to the end: …`), never a violation:
//! nobody knows whether the output conforms.
//!
//! The draft is 2020-12 whatever the root's `$schema` says, as 0.10.0's
//! `Draft202012Validator`: the schema is checked against the 2020-12
//! meta-schema, and `dependencies` (drafts 4–7) is ignored, not enforced.
//! Agreement with the JSON-Schema-Test-Suite is measured by
//! `tests/parity/` (docs/checks.md).
//!
//! Property names (`patternProperties`, and through it
//! `additionalProperties` and `unevaluatedProperties`) are matched by the
//! validator itself, with the patterns rewritten into Python's meaning
//! (`property_names.rs`), on the linear `regex` engine: time proportional to
//! pattern × name, never more. A `patternProperties` pattern that needs
//! lookaround, a backreference or an atomic group is refused when the
//! suite loads (0.10.0 accepted it, and a hostile one over a long name ran
//! for as long as it liked).

use std::sync::Arc;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;
use serde_json::{Map, Value};

use super::catalogue::{field, per_case, per_case_fields, Build, Def, Grader, Kind, Params};
use super::declared::{DeclaredCheck, Inputs};
use super::error::BuildError;
use super::is_json::too_deep;
use super::judge::{verdict, with_kind};
use super::kinds::OutputKind;
use super::outcome::Outcome;
use super::search::{self, Budget};
use crate::core::python::loads::{self, Failure};
use crate::core::python::repr::repr_value;
use crate::core::verdict::Verdict;

/// A schema and its compiled validator.
#[derive(Clone)]
pub struct CompiledSchema {
    /// The schema as declared.
    pub schema: Value,
    /// The schema as compiled: `patternProperties` keys in the validator's
    /// syntax (see `property_names.rs`).
    compiled: Value,
    validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl CompiledSchema {
    /// Check `schema` against the Draft 2020-12 meta-schema and compile it.
    ///
    /// # Errors
    /// A sentence (no leading capital) saying where the schema is wrong and
    /// why, e.g. `at /properties/order/type: "objekt" is not valid under any
    /// of the given schemas`.
    pub fn compile(schema: &Value) -> Result<CompiledSchema, String> {
        if !schema.is_object() {
            return Err("a schema is a table of keywords, e.g. { type = \"object\" }".to_string());
        }
        // The schema is checked as declared (0.10.0's `check_schema`), then
        // compiled with its property-name patterns in Python's meaning.
        if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
            let at = e.instance_path().as_str();
            let at = if at.is_empty() { "the top" } else { at };
            return Err(format!("at {at}: {e}"));
        }
        let (compiled, names) = super::property_names::rewrite(schema)?;
        let declared = |rewritten: &str| {
            names
                .iter()
                .find(|(r, _)| r == rewritten)
                .map_or(rewritten, |(_, d)| d.as_str())
                .to_string()
        };
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(false)
            .with_keyword("pattern", bounded_pattern)
            .with_keyword("dependencies", ignored)
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .build(&compiled)
            .map_err(|e| {
                let at = e.instance_path().as_str();
                let at = if at.is_empty() { "the top" } else { at };
                match (name_pattern(&e), e.instance().as_ref()) {
                    (true, Value::String(pattern)) => format!(
                        "at {}: the patternProperties pattern {} is not one property names can \
                         be matched with here: a regular expression without lookaround, \
                         backreferences, atomic groups or possessive quantifiers, the patterns \
                         whose time is bounded",
                        at.rsplit_once('/').map_or(at, |(head, _)| head).to_string()
                            + "/"
                            + &declared(pattern),
                        repr_value(&Value::String(declared(pattern)))
                    ),
                    _ => format!("at {at}: {e}"),
                }
            })?;
        Ok(CompiledSchema {
            schema: schema.clone(),
            compiled,
            validator: Arc::new(validator),
        })
    }
}

impl CompiledSchema {
    /// Judge `output` as the check does: `Ok(true)` when it conforms,
    /// `Ok(false)` on a violation, `Err` with the sentence when it cannot
    /// be judged.
    ///
    /// # Errors
    /// The output cannot be judged (undecodable text, a search that gave up).
    pub fn conforms(&self, output: &Value) -> Result<bool, String> {
        match judge(self, output) {
            Outcome::Scored { score, .. } => Ok(score >= 1.0),
            Outcome::Errored(why) => Err(why),
        }
    }
}

/// Is `error` a `patternProperties` pattern the linear engine refused?
/// (Property names are matched by the validator itself, on the linear
/// engine, so their time is bounded; see the module doc.)
fn name_pattern(error: &ValidationError<'_>) -> bool {
    let segments: Vec<String> = error
        .instance_path()
        .iter()
        .map(|s| s.to_string())
        .collect();
    matches!(error.kind(), ValidationErrorKind::Format { .. })
        && segments.len() >= 2
        && segments[segments.len() - 2] == "patternProperties"
}

/// Judge `output` (text or structured, already accepted).
pub(super) fn judge(compiled: &CompiledSchema, output: &Value) -> Outcome {
    let decoded;
    let instance = match output {
        Value::String(text) => match loads::loads(text) {
            Ok(d) if d.lossy.is_some() => {
                return Outcome::Errored(format!(
                    "output holds {}, which JSON Schema validation here cannot represent",
                    d.lossy.unwrap_or_default()
                ))
            }
            Ok(d) => {
                decoded = d.value;
                &decoded
            }
            Err(Failure::Invalid(e)) => {
                return Outcome::Errored(format!(
                    "output is not decodable as JSON: {}",
                    e.python_str()
                ))
            }
            Err(Failure::TooDeep(what)) => return Outcome::Errored(too_deep(what)),
        },
        other => other,
    };
    GAVE_UP_HERE.with(|g| g.borrow_mut().take());
    let all: Vec<ValidationError<'_>> = compiled.validator.iter_errors(instance).collect();
    if let Some(gave_up) = GAVE_UP_HERE.with(|g| g.borrow_mut().take()) {
        return Outcome::Errored(gave_up);
    }
    if let Some(gave_up) = all.iter().find_map(gave_up) {
        return Outcome::Errored(gave_up);
    }
    let mut errors: Vec<(Vec<String>, String)> = all
        .iter()
        .map(|e| {
            let mut path: Vec<String> = e.instance_path().iter().map(|s| s.to_string()).collect();
            if false_property(e) {
                // Python's `jsonschema` reports a `false` property schema at
                // the object, not at the property.
                path.pop();
            }
            (path, message(&compiled.compiled, e))
        })
        .collect();
    if errors.is_empty() {
        return Outcome::binary(true, "conforms to the schema".to_string());
    }
    errors.sort_by(|a, b| a.0.cmp(&b.0));
    let (path, first) = &errors[0];
    let at = if path.is_empty() {
        "(root)".to_string()
    } else {
        path.join("/")
    };
    Outcome::Scored {
        score: 0.0,
        reason: format!("{} violation(s), first at {at}: {first}", errors.len()),
        metadata: Map::new(),
    }
}

/// What a `pattern` error says when its search gave up (never a violation).
const GAVE_UP: &str = "\u{0}gave up:";

thread_local! {
    /// The first `pattern` search that gave up during this thread's
    /// current [`judge`]. The validator asks `is_valid` of a subschema
    /// under `anyOf`, `oneOf`, `not`, `if`, `contains`, `propertyNames` …
    /// and keeps only yes or no, which would turn "could not be searched"
    /// into a miss (a fail, or under `not` a pass): the search reports here
    /// instead, and the whole check is an error. Once one gave up, the
    /// other searches of the same judging give up at once (one budget per
    /// check, not one per keyword).
    static GAVE_UP_HERE: std::cell::RefCell<Option<String>> =
        const { std::cell::RefCell::new(None) };
}

/// The sentence of an error that means "could not be judged": a bounded
/// `pattern` search that ran out of budget, or the engine giving up on a
/// `patternProperties` pattern.
fn gave_up(error: &ValidationError<'_>) -> Option<String> {
    match error.kind() {
        ValidationErrorKind::Custom { message, .. } => {
            message.strip_prefix(GAVE_UP).map(str::to_string)
        }
        ValidationErrorKind::BacktrackLimitExceeded { error: e } => Some(format!(
            "a patternProperties pattern could not be searched to the end: {e}"
        )),
        ValidationErrorKind::RegexEngineFailure { message } => Some(format!(
            "a pattern could not be searched to the end: {message}"
        )),
        _ => None,
    }
}

/// The `pattern` keyword: Python's `re.search`, bounded in time.
struct BoundedPattern {
    pattern: String,
    compiled: fancy_regex::Regex,
}

impl BoundedPattern {
    fn check(&self, text: &str) -> Result<(), String> {
        if let Some(earlier) = GAVE_UP_HERE.with(|g| g.borrow().clone()) {
            return Err(format!("{GAVE_UP}{earlier}"));
        }
        match search::is_match(&self.compiled, text, Budget::default()) {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!(
                "{} does not match {}",
                repr_value(&Value::String(text.to_string())),
                repr_value(&Value::String(self.pattern.clone()))
            )),
            Err(e) => {
                let sentence = format!(
                    "pattern {} could not be searched to the end: {e}",
                    repr_value(&Value::String(self.pattern.clone()))
                );
                GAVE_UP_HERE.with(|g| *g.borrow_mut() = Some(sentence.clone()));
                Err(format!("{GAVE_UP}{sentence}"))
            }
        }
    }
}

impl<'i> jsonschema::Keyword<'i> for BoundedPattern {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        match instance {
            Value::String(text) => self.check(text).map_err(ValidationError::custom),
            _ => Ok(()),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match instance {
            Value::String(text) => self.check(text).is_ok(),
            _ => true,
        }
    }
}

/// Build a [`BoundedPattern`] from a schema's `pattern` value.
fn bounded_pattern<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, ValidationError<'a>> {
    let Value::String(pattern) = value else {
        return Err(ValidationError::custom(
            "pattern is a string (a regular expression)",
        ));
    };
    let compiled = super::pattern::compile(pattern)
        .map_err(|why| ValidationError::custom(format!("pattern {}: {why}", repr_value(value))))?;
    Ok(Box::new(BoundedPattern {
        pattern: pattern.clone(),
        compiled,
    }))
}

/// `dependencies` (drafts 4 to 7) is not a keyword of Draft 2020-12, which
/// 0.10.0 validates with: it is ignored, as there, instead of enforced.
fn ignored<'a>(
    _parent: &'a Map<String, Value>,
    _value: &'a Value,
    _path: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, ValidationError<'a>> {
    Ok(Box::new(Ignored))
}

/// A keyword that never fails.
struct Ignored;

impl<'i> jsonschema::Keyword<'i> for Ignored {
    fn validate(&self, _instance: &'i Value) -> Result<(), ValidationError<'i>> {
        Ok(())
    }

    fn is_valid(&self, _instance: &'i Value) -> bool {
        true
    }
}

/// A `false` schema reached as a property's schema (`properties.x = false`).
fn false_property(error: &ValidationError<'_>) -> bool {
    if !matches!(error.kind(), ValidationErrorKind::FalseSchema) {
        return false;
    }
    let segments: Vec<String> = error.schema_path().iter().map(|s| s.to_string()).collect();
    segments.len() >= 2
        && matches!(
            segments[segments.len() - 2].as_str(),
            "properties" | "patternProperties"
        )
}

fn repr_list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| repr_value(&Value::String(s.clone())))
        .collect();
    let verb = if items.len() == 1 { "was" } else { "were" };
    format!("{} {verb}", quoted.join(", "))
}

/// A violation in the words of Python's `jsonschema`.
fn message(schema: &Value, error: &ValidationError<'_>) -> String {
    let inst = repr_value(error.instance());
    // The keyword's value as declared (list order, int vs float kept).
    let declared = schema.pointer(error.schema_path().as_str());
    let limit = |fallback: &Value| repr_value(declared.unwrap_or(fallback));
    match error.kind() {
        ValidationErrorKind::Type { kind } => {
            let types: Vec<String> = match (declared, kind) {
                (Some(Value::Array(items)), _) => items.iter().map(repr_value).collect(),
                (Some(Value::String(s)), _) => vec![repr_value(&Value::String(s.clone()))],
                (_, TypeKind::Single(t)) => vec![format!("'{t}'")],
                (_, TypeKind::Multiple(set)) => set.iter().map(|t| format!("'{t}'")).collect(),
            };
            format!("{inst} is not of type {}", types.join(", "))
        }
        ValidationErrorKind::Required { property } => {
            format!("{} is a required property", repr_value(property))
        }
        ValidationErrorKind::Minimum { limit: l } => {
            format!("{inst} is less than the minimum of {}", limit(l))
        }
        ValidationErrorKind::Maximum { limit: l } => {
            format!("{inst} is greater than the maximum of {}", limit(l))
        }
        ValidationErrorKind::ExclusiveMinimum { limit: l } => {
            format!(
                "{inst} is less than or equal to the minimum of {}",
                limit(l)
            )
        }
        ValidationErrorKind::ExclusiveMaximum { limit: l } => {
            format!(
                "{inst} is greater than or equal to the maximum of {}",
                limit(l)
            )
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            let fallback =
                serde_json::Number::from_f64(*multiple_of).map_or(Value::Null, Value::Number);
            format!("{inst} is not a multiple of {}", limit(&fallback))
        }
        ValidationErrorKind::MinLength { limit: 1 }
        | ValidationErrorKind::MinItems { limit: 1 }
        | ValidationErrorKind::MinProperties { limit: 1 } => format!("{inst} should be non-empty"),
        ValidationErrorKind::MaxLength { limit: 0 }
        | ValidationErrorKind::MaxItems { limit: 0 }
        | ValidationErrorKind::MaxProperties { limit: 0 } => {
            format!("{inst} is expected to be empty")
        }
        ValidationErrorKind::MinLength { .. } | ValidationErrorKind::MinItems { .. } => {
            format!("{inst} is too short")
        }
        ValidationErrorKind::MaxLength { .. } | ValidationErrorKind::MaxItems { .. } => {
            format!("{inst} is too long")
        }
        ValidationErrorKind::MinProperties { .. } => {
            format!("{inst} does not have enough properties")
        }
        ValidationErrorKind::MaxProperties { .. } => format!("{inst} has too many properties"),
        ValidationErrorKind::UniqueItems => format!("{inst} has non-unique elements"),
        ValidationErrorKind::Pattern { pattern } => {
            format!(
                "{inst} does not match {}",
                repr_value(&Value::String(pattern.clone()))
            )
        }
        ValidationErrorKind::Enum { options } => {
            format!("{inst} is not one of {}", repr_value(options))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("{} was expected", repr_value(expected_value))
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let mut extras = unexpected.clone();
            extras.sort();
            format!(
                "Additional properties are not allowed ({} unexpected)",
                repr_list(&extras)
            )
        }
        ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let mut extras = unexpected.clone();
            extras.sort();
            format!(
                "Unevaluated properties are not allowed ({} unexpected)",
                repr_list(&extras)
            )
        }
        ValidationErrorKind::FalseSchema => format!("False schema does not allow {inst}"),
        ValidationErrorKind::Not { schema } => {
            format!("{inst} should not be valid under {}", repr_value(schema))
        }
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            format!("{inst} is not valid under any of the given schemas")
        }
        ValidationErrorKind::Contains => {
            format!("{inst} does not contain items matching the given schema")
        }
        ValidationErrorKind::PropertyNames { error } => message(schema, error),
        _ => error.to_string(),
    }
}

/// The catalogue row of `json_schema`.
pub const KIND: Kind = per_case(
    "json_schema",
    "JsonSchema",
    per_case_fields!(
        [field("schema", Def::Mandatory),],
        "json_schema",
        1.0,
        &["structured", "text"]
    ),
    Build::Grader(build),
);

/// `json_schema` parameters: the schema, checked at load, and its validator.
#[derive(Clone, Debug)]
pub struct JsonSchema {
    /// The compiled schema.
    pub schema: CompiledSchema,
}

fn build(params: &Params) -> Result<Arc<dyn Grader>, BuildError> {
    let schema = params.get("schema").unwrap_or(&Value::Null);
    let schema = CompiledSchema::compile(schema).map_err(|why| {
        BuildError::invalid(
            "json_schema",
            "schema",
            format!("`schema` is not a valid Draft 2020-12 schema: {why}"),
        )
    })?;
    Ok(Arc::new(JsonSchema { schema }))
}

impl Grader for JsonSchema {
    fn evaluate(&self, check: &DeclaredCheck, inputs: &Inputs) -> Verdict {
        let outcome = with_kind(check, inputs.output, |kind| match kind {
            OutputKind::Conversation => Outcome::Errored(format!(
                "{} can only judge text or structured output, not 'conversation'",
                check.name
            )),
            _ => judge(&self.schema, inputs.output),
        });
        verdict(check, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reason(schema: &Value, output: &Value) -> (Option<f64>, String) {
        let compiled = CompiledSchema::compile(schema).unwrap_or_else(|e| panic!("{e}"));
        match judge(&compiled, output) {
            Outcome::Scored { score, reason, .. } => (Some(score), reason),
            Outcome::Errored(reason) => (None, reason),
        }
    }

    #[test]
    fn violations_read_as_0_10_0() {
        let order = json!({"type": "object", "required": ["order", "eta"],
            "properties": {"order": {"type": "integer"}, "eta": {"type": "string"}}});
        let rows: &[(&Value, Value, Option<f64>, &str)] = &[
            (&order, json!("{\"order\": 4821, \"eta\": \"Thursday\"}"), Some(1.0), "conforms to the schema"),
            (&order, json!({"order": 1.0, "eta": "x"}), Some(1.0), "conforms to the schema"),
            (&order, json!("{\"order\": \"4821\", \"eta\": \"Giovedì\"}"), Some(0.0), "1 violation(s), first at order: '4821' is not of type 'integer'"),
            (&order, json!("{\"order\": \"4821\", \"eta\": 5}"), Some(0.0), "2 violation(s), first at eta: 5 is not of type 'string'"),
            (&order, json!("{}"), Some(0.0), "2 violation(s), first at (root): 'order' is a required property"),
            (&order, json!({"order": true, "eta": "x"}), Some(0.0), "1 violation(s), first at order: True is not of type 'integer'"),
            (&order, json!("[0.1, 1e-05, 2, 3]"), Some(0.0), "1 violation(s), first at (root): [0.1, 1e-05, 2, 3] is not of type 'object'"),
            (&order, json!("Thursday, probably."), None, "output is not decodable as JSON: Expecting value: line 1 column 1 (char 0)"),
            (&order, json!("\u{feff}{}"), None, "output is not decodable as JSON: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"),
            (&order, json!("NaN"), None, "output holds NaN, which JSON Schema validation here cannot represent"),
        ];
        for (schema, output, score, want) in rows {
            assert_eq!(
                reason(schema, output),
                (*score, want.to_string()),
                "{output}"
            );
        }
    }

    #[test]
    fn keyword_messages_use_python_words() {
        let schema = json!({"type": "object", "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {"q": {"minimum": 1, "maximum": 3, "type": "number"}}}},
            "tags": {"type": "array", "maxItems": 1},
            "name": {"type": "string", "minLength": 3, "maxLength": 5},
            "kind": {"enum": ["a", "b"]}, "c": {"const": "x"}},
            "additionalProperties": false});
        let rows: &[(Value, &str)] = &[
            (json!({"items": [{"q": 0}, {"q": 5}, {"q": "x"}]}), "3 violation(s), first at items/0/q: 0 is less than the minimum of 1"),
            (json!({"tags": [1, 2]}), "1 violation(s), first at tags: [1, 2] is too long"),
            (json!({"name": "abcdefg"}), "1 violation(s), first at name: 'abcdefg' is too long"),
            (json!({"kind": "c"}), "1 violation(s), first at kind: 'c' is not one of ['a', 'b']"),
            (json!({"c": "y"}), "1 violation(s), first at c: 'x' was expected"),
            (json!({"zz": 1, "aa": 2}), "1 violation(s), first at (root): Additional properties are not allowed ('aa', 'zz' were unexpected)"),
        ];
        for (output, want) in rows {
            assert_eq!(
                reason(&schema, output),
                (Some(0.0), want.to_string()),
                "{output}"
            );
        }
    }

    #[test]
    fn a_pattern_search_that_gives_up_is_an_error_not_a_violation() {
        crate::core::checks::search::use_clock(std::time::Instant::now);
        let schema =
            json!({"type": "object", "properties": {"code": {"pattern": r"^(a|a)*(?=b)\1c"}}});
        let output = json!({"code": "a".repeat(40)});
        assert_eq!(
            reason(&schema, &output),
            (
                None,
                r"pattern '^(a|a)*(?=b)\\1c' could not be searched to the end: the search gave up at character 0: Error executing regex: Max limit for backtracking count exceeded"
                    .to_string()
            )
        );
        // Python's `re.search`: unanchored, and a miss is still a violation.
        let schema = json!({"properties": {"code": {"pattern": r"\d{3}(?=!)"}}});
        assert_eq!(
            reason(&schema, &json!({"code": "id 482!"})),
            (Some(1.0), "conforms to the schema".into())
        );
        assert_eq!(
            reason(&schema, &json!({"code": "id 482"})),
            (
                Some(0.0),
                "1 violation(s), first at code: 'id 482' does not match '\\\\d{3}(?=!)'".into()
            )
        );
    }

    #[test]
    fn a_pattern_that_gives_up_is_an_error_wherever_it_stands() {
        let hostile = r"^(a|a)*(?=b)\1c";
        let code = json!({"code": "a".repeat(40)});
        let want = (
            None,
            r"pattern '^(a|a)*(?=b)\\1c' could not be searched to the end: the search gave up at character 0: Error executing regex: Max limit for backtracking count exceeded"
                .to_string(),
        );
        // Under keywords that keep only yes or no (a miss would be a fail,
        // or a pass under `not`), and reached through `$ref`.
        for schema in [
            json!({"properties": {"code": {"not": {"pattern": hostile}}}}),
            json!({"properties": {"code": {"anyOf": [{"pattern": hostile}, {"type": "integer"}]}}}),
            json!({"properties": {"code": {"oneOf": [{"pattern": hostile}]}}}),
            json!({"properties": {"code": {"if": {"pattern": hostile}, "then": {"type": "integer"}}}}),
            json!({"properties": {"code": {"$ref": "#/$defs/c"}}, "$defs": {"c": {"pattern": hostile}}}),
            json!({"propertyNames": {"pattern": hostile}}),
        ] {
            let output = if schema.get("propertyNames").is_some() {
                json!({"a".repeat(40): 1})
            } else {
                code.clone()
            };
            assert_eq!(reason(&schema, &output), want, "{schema}");
        }
        // A check that gave up leaves nothing behind for the next one.
        let plain = json!({"properties": {"code": {"pattern": "^a+$"}}});
        assert_eq!(
            reason(&plain, &code),
            (Some(1.0), "conforms to the schema".into())
        );
    }

    #[test]
    fn property_names_are_matched_on_the_linear_engine() {
        assert_eq!(
            CompiledSchema::compile(&json!({"patternProperties": {"(?=.*x)y": {}}})).unwrap_err(),
            "at /patternProperties/(?=.*x)y: the patternProperties pattern '(?=.*x)y' is not one \
             property names can be matched with here: a regular expression without lookaround, \
             backreferences, atomic groups or possessive quantifiers, the patterns whose time is \
             bounded"
        );
        assert!(CompiledSchema::compile(
            &json!({"properties": {"a": {"patternProperties": {r"(a)\1": {}}}}})
        )
        .is_err());
        let schema = json!({"patternProperties": {r"^y+\d?$": {"type": "string"}}, "additionalProperties": false});
        let long = "y".repeat(1_000_000);
        let started = std::time::Instant::now();
        assert_eq!(
            reason(&schema, &json!({long.clone(): "s", "z": 1})),
            (Some(0.0), "1 violation(s), first at (root): Additional properties are not allowed ('z' was unexpected)".into())
        );
        assert_eq!(
            reason(&schema, &json!({long: "s"})),
            (Some(1.0), "conforms to the schema".into())
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }

    /// digline 0.10.0 (jsonschema 4.26, Python 3.13) on the same rows.
    #[test]
    fn drafts_and_property_names_as_0_10_0() {
        let pass = || (Some(1.0), "conforms to the schema".to_string());
        // `dependencies` is not Draft 2020-12: ignored, whatever `$schema` says.
        for schema in [
            json!({"dependencies": {"a": ["b"]}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}),
        ] {
            assert_eq!(reason(&schema, &json!({"a": 1})), pass(), "{schema}");
        }
        // The root is Draft 2020-12: draft-3's `divisibleBy` is no keyword.
        let d3 = json!({"$schema": "http://json-schema.org/draft-03/schema#", "divisibleBy": 2});
        assert_eq!(reason(&d3, &json!(3)), pass());
        // A draft-4 form is refused by the 2020-12 meta-schema, as in 0.10.0.
        assert!(CompiledSchema::compile(&json!({"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 3, "exclusiveMaximum": true})).is_err());
        // Property names: Python's Unicode `\w` and `\d`, and its `$`.
        let names = json!({"patternProperties": {r"^\w+$": {"type": "string"}, r"^\d+$": {"type": "string"}, "^z$": {"type": "string"}}, "additionalProperties": false});
        for name in ["café", "٣٤", "z\n", "a_1"] {
            assert_eq!(reason(&names, &json!({name: "s"})), pass(), "{name:?}");
        }
        for name in ["a-b", "z\n\n"] {
            assert_eq!(reason(&names, &json!({name: "s"})).0, Some(0.0), "{name:?}");
        }
        assert!(
            CompiledSchema::compile(&json!({"patternProperties": {r"^\p{Letter}+$": {}}}))
                .unwrap_err()
                .contains("bad escape \\p")
        );
        assert!(
            CompiledSchema::compile(&json!({"patternProperties": {"a*+": {}}}))
                .unwrap_err()
                .contains("possessive quantifiers")
        );
        // A refused pattern is named as written, not as rewritten.
        assert_eq!(
            CompiledSchema::compile(&json!({"items": {"patternProperties": {r"\d+(?=x)": {}}}}))
                .unwrap_err(),
            "at /items/patternProperties/\\d+(?=x): the patternProperties pattern '\\\\d+(?=x)' is \
             not one property names can be matched with here: a regular expression without \
             lookaround, backreferences, atomic groups or possessive quantifiers, the patterns whose \
             time is bounded"
        );
    }

    #[test]
    fn broken_schemas_are_refused() {
        for schema in [
            json!({"type": "objekt"}),
            json!({"minimum": "x"}),
            json!({"required": "a"}),
            json!({"properties": []}),
            json!({"pattern": "("}),
            json!(5),
        ] {
            assert!(CompiledSchema::compile(&schema).is_err(), "{schema}");
        }
        assert!(CompiledSchema::compile(&json!({})).is_ok());
    }
}
