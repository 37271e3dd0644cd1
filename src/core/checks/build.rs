//! From an `[[assertions]]` entry to a [`DeclaredCheck`]: parameter
//! validation, defaults, reported name and identity.
//!
//! The catalogue below is digline 0.10.0's, field for field (read from its
//! dataclasses with the oracle): every check type, its Python class name,
//! its fields in declaration order, their defaults and which of them a
//! suite may set. [`identity_payload`] works for every type, built or not,
//! so `assertion_id`s equal 0.10.0's; [`build`] validates the checks this
//! release runs ([`BUILT_TYPES`]) strictly by type, and refuses the other
//! known types as not built yet.
//!
//! Identity rule (python-input.md §0): `{"__type__": class, field:
//! canonical(value)…}` minus `threshold`/`tolerance` (aggregates also minus
//! `by_group`/`group`), hashed with [`identity::digest`]. `canonical` keeps
//! ints as ints, rounds floats to 6 decimals, writes `accepts` (a set) as a
//! sorted list of strings, and a nested check (`repeated.inner`) as all of
//! its fields (threshold and tolerance included) without `__type__`.

use serde_json::{json, Map, Number, Value};

use super::is_json::TopLevel;
use super::json_schema::CompiledSchema;
use super::{pattern, pii, Check, DeclaredCheck, LengthUnit, OutputKind};
use crate::core::identity::{self, RuleEntry};
use crate::core::level::Level;
use crate::core::pyjson::round6;
use crate::core::ratio::{as_agreement, as_ratio, describe};

/// Why an `[[assertions]]` entry could not become a check. The loader adds
/// the location (file, entry) and the near-miss hint.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildError {
    /// What went wrong.
    pub kind: BuildErrorKind,
    /// Where inside the entry, outermost first: `["inner"]` for an error in
    /// `[assertions.inner]` of a `repeated`; empty at the entry itself.
    pub within: Vec<String>,
}

/// The kinds of [`BuildError`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BuildErrorKind {
    /// Keys the check does not take; `known` lists the keys it does take.
    UnknownParameters {
        /// The check's token (the owner in the message).
        token: String,
        /// The unknown keys, in file order.
        keys: Vec<String>,
        /// Every parameter the check takes, sorted.
        known: Vec<String>,
    },
    /// Mandatory parameters the entry does not give.
    MissingParameters {
        /// The check's token.
        token: String,
        /// The missing keys.
        keys: Vec<String>,
    },
    /// A parameter has a value the check refuses; `message` is a full sentence.
    Invalid {
        /// The check's token.
        token: String,
        /// The parameter, when one is to blame.
        key: Option<String>,
        /// What is wrong and what would be right.
        message: String,
    },
    /// No check has this `type`.
    UnknownType {
        /// The token as written.
        token: String,
    },
    /// A check digline knows but this release does not run yet.
    NotBuiltYet {
        /// The token.
        token: String,
    },
    /// Something only a Python suite can express; `message` names the wall.
    PythonOnly {
        /// The full sentence.
        message: String,
    },
    /// A nested check (`[assertions.inner]`) has no `type`.
    MissingType,
    /// A `type` that is not a string; `found` describes what it is.
    TypeNotAName {
        /// `an integer`, `a table` …
        found: String,
    },
}

impl BuildError {
    fn new(kind: BuildErrorKind) -> BuildError {
        BuildError {
            kind,
            within: Vec::new(),
        }
    }

    fn invalid(token: &str, key: &str, message: String) -> BuildError {
        BuildError::new(BuildErrorKind::Invalid {
            token: token.to_string(),
            key: Some(key.to_string()),
            message,
        })
    }
}

impl std::fmt::Display for BuildError {
    /// The sentence without a location (the loader prefixes file and entry).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            BuildErrorKind::UnknownParameters { token, keys, .. } => {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                write!(f, "`{token}` has no parameter {}.", keys.join(", "))
            }
            BuildErrorKind::MissingParameters { token, keys } => {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                write!(
                    f,
                    "`{token}` needs {}, which this entry does not give it.",
                    keys.join(", ")
                )
            }
            BuildErrorKind::Invalid { token, message, .. } => write!(f, "`{token}`: {message}"),
            BuildErrorKind::UnknownType { token } => {
                write!(f, "there is no check called `{token}`.")
            }
            BuildErrorKind::NotBuiltYet { token } => write!(
                f,
                "`{token}` is a digline check that this release does not run yet. \
                 Remove it, or run this suite with a release that has it."
            ),
            BuildErrorKind::PythonOnly { message } => f.write_str(message),
            BuildErrorKind::MissingType => {
                f.write_str("no `type`, so nothing says which check this is.")
            }
            BuildErrorKind::TypeNotAName { found } => {
                write!(
                    f,
                    "`type` is {found}, and it has to be the name of a check."
                )
            }
        }
    }
}

/// Per-case check types of digline 0.10.0, sorted.
pub const PER_CASE_TYPES: &[&str] = &[
    "affix",
    "contains",
    "cost_budget",
    "equals",
    "faithfulness",
    "is_json",
    "json_schema",
    "latency_budget",
    "length",
    "levenshtein",
    "llm_rubric",
    "not_contains",
    "pii_absent",
    "regex",
    "repeated",
    "tools_called",
];

/// Per-run (aggregate) types of digline 0.10.0, sorted.
pub const PER_RUN_TYPES: &[&str] = &["accuracy", "f1", "precision", "recall"];

/// The check types this release builds and runs.
pub const BUILT_TYPES: &[&str] = &[
    "affix",
    "contains",
    "cost_budget",
    "faithfulness",
    "latency_budget",
    "length",
    "llm_rubric",
    "equals",
    "is_json",
    "json_schema",
    "latency_budget",
    "length",
    "levenshtein",
    "not_contains",
    "pii_absent",
    "regex",
    "repeated",
    "tools_called",
];

/// True for an aggregate token (`precision`, `recall`, `accuracy`, `f1`).
pub fn is_aggregate(token: &str) -> bool {
    PER_RUN_TYPES.contains(&token)
}

const ALL_KINDS: &[&str] = &["conversation", "structured", "text"];
const TEXT: &[&str] = &["text"];

/// A field's default, as digline 0.10.0 declares it.
#[derive(Clone, Copy, Debug)]
enum Def {
    Mandatory,
    Null,
    Bool(bool),
    Str(&'static str),
    Float(f64),
    Kinds(&'static [&'static str]),
    PiiPatterns,
}

/// One dataclass field: name, default, settable from a suite (`init=True`).
#[derive(Clone, Copy, Debug)]
struct Field {
    name: &'static str,
    def: Def,
    settable: bool,
}

const fn f(name: &'static str, def: Def) -> Field {
    Field {
        name,
        def,
        settable: true,
    }
}

/// A check type of the catalogue.
struct Spec {
    class: &'static str,
    fields: Vec<Field>,
}

/// The common tail of an ordinary per-case check.
fn common(name: &'static str, threshold: f64, accepts: &'static [&'static str]) -> Vec<Field> {
    vec![
        f("name", Def::Str(name)),
        f("threshold", Def::Float(threshold)),
        f("tolerance", Def::Float(0.0)),
        f("accepts", Def::Kinds(accepts)),
    ]
}

fn with(mut head: Vec<Field>, tail: Vec<Field>) -> Vec<Field> {
    head.extend(tail);
    head
}

fn aggregate(name: &'static str) -> Vec<Field> {
    vec![
        f("over", Def::Mandatory),
        f("threshold", Def::Mandatory),
        f("tolerance", Def::Mandatory),
        f("name", Def::Str(name)),
        f("by_group", Def::Bool(false)),
        Field {
            name: "group",
            def: Def::Null,
            settable: false,
        },
    ]
}

/// The catalogue entry for a token, if 0.10.0 has such a check.
fn spec(token: &str) -> Option<Spec> {
    use Def::*;
    let needle = || vec![f("needle", Mandatory), f("case_sensitive", Bool(true))];
    let (class, fields) = match token {
        "equals" => ("Equals", common("equals", 1.0, ALL_KINDS)),
        "contains" => ("Contains", with(needle(), common("contains", 1.0, TEXT))),
        "not_contains" => (
            "NotContains",
            with(needle(), common("not_contains", 1.0, TEXT)),
        ),
        "affix" => (
            "Affix",
            with(
                vec![
                    f("affix", Mandatory),
                    f("at", Str("start")),
                    f("case_sensitive", Bool(true)),
                ],
                common("", 1.0, TEXT),
            ),
        ),
        "is_json" => (
            "IsJson",
            with(
                vec![f("top_level", Str("any"))],
                common("is_json", 1.0, TEXT),
            ),
        ),
        "json_schema" => (
            "JsonSchema",
            with(
                vec![f("schema", Mandatory)],
                common("json_schema", 1.0, &["structured", "text"]),
            ),
        ),
        "length" => (
            "Length",
            with(
                vec![
                    f("minimum", Null),
                    f("maximum", Null),
                    f("unit", Str("characters")),
                ],
                common("length", 1.0, TEXT),
            ),
        ),
        "levenshtein" => ("Levenshtein", common("levenshtein", 0.9, TEXT)),
        "regex" => (
            "Regex",
            with(vec![f("pattern", Mandatory)], common("regex", 1.0, TEXT)),
        ),
        "tools_called" => (
            "ToolsCalled",
            with(
                vec![f("expected", Mandatory)],
                common("tools_called", 1.0, ALL_KINDS),
            ),
        ),
        "llm_rubric" => (
            "LlmRubric",
            vec![
                f("rubric", Mandatory),
                f("judge", Mandatory),
                f("threshold", Mandatory),
                f("tolerance", Mandatory),
                f("name", Str("llm_rubric")),
                f("accepts", Kinds(&["conversation", "text"])),
            ],
        ),
        "faithfulness" => (
            "Faithfulness",
            vec![
                f("judge", Mandatory),
                f("threshold", Mandatory),
                f("tolerance", Mandatory),
                f("name", Str("faithfulness")),
                f("accepts", Kinds(TEXT)),
            ],
        ),
        "pii_absent" => (
            "PiiAbsent",
            with(
                vec![f("patterns", PiiPatterns)],
                common("pii_absent", 1.0, TEXT),
            ),
        ),
        "cost_budget" => (
            "CostBudget",
            vec![
                f("max_usd", Mandatory),
                f("tolerance", Mandatory),
                f("name", Str("cost_budget")),
                f("threshold", Float(0.5)),
                f("accepts", Kinds(ALL_KINDS)),
            ],
        ),
        "latency_budget" => (
            "LatencyBudget",
            vec![
                f("max_ms", Mandatory),
                f("tolerance", Mandatory),
                f("name", Str("latency_budget")),
                f("threshold", Float(0.5)),
                f("accepts", Kinds(ALL_KINDS)),
            ],
        ),
        "repeated" => (
            "Repeated",
            vec![
                f("inner", Mandatory),
                f("samples", Mandatory),
                f("min_agreement", Mandatory),
                f("name", Str("")),
                Field {
                    name: "threshold",
                    def: Float(0.0),
                    settable: false,
                },
                Field {
                    name: "tolerance",
                    def: Float(0.0),
                    settable: false,
                },
                Field {
                    name: "accepts",
                    def: Kinds(&[]),
                    settable: false,
                },
            ],
        ),
        "precision" => ("Precision", aggregate("precision")),
        "recall" => ("Recall", aggregate("recall")),
        "accuracy" => ("Accuracy", aggregate("accuracy")),
        "f1" => ("F1", aggregate("f1")),
        _ => return None,
    };
    Some(Spec { class, fields })
}

/// The sentence for a check only a suite.py can express, if `token` is one.
fn python_only_token(token: &str) -> Option<String> {
    (token == "from_autoevals").then(|| {
        "`from_autoevals` wraps a scorer, which is a Python object: a suite that is data \
         cannot hold one. Custom checks are code, so this check needs a suite.py."
            .to_string()
    })
}

/// The identity payload of a check declaration, for every 0.10.0 type
/// (built or not, aggregates included): `{"__type__": class, field: value…}`
/// with defaults filled in and values canonicalised, minus the fields
/// identity excludes. `params` are the entry's keys except `type`, TOML
/// integers and floats kept apart.
///
/// # Errors
/// Unknown or Python-only type, unknown or missing parameters, a Python-only
/// parameter (`pii_absent.patterns`, a judge written as a table or import),
/// or a value the payload cannot be derived from (`repeated` with a bad
/// `inner`, `samples` or `min_agreement`; `affix` with a bad `at`; a
/// non-string `accepts` entry).
pub fn identity_payload(token: &str, params: &Map<String, Value>) -> Result<Value, BuildError> {
    let spec = lookup(token)?;
    let mut fields = field_values(token, &spec, params)?;
    let excluded: &[&str] = if is_aggregate(token) {
        &["threshold", "tolerance", "by_group", "group"]
    } else {
        &["threshold", "tolerance"]
    };
    for key in excluded {
        fields.remove(*key);
    }
    fields.insert(
        "__type__".to_string(),
        Value::String(spec.class.to_string()),
    );
    Ok(Value::Object(fields))
}

/// The payload of one `by_group` copy of an aggregate: the whole-run
/// payload with its name set to `<name>[group=<group>]`.
pub fn group_copy_payload(payload: &Value, group: &str) -> Value {
    let mut copy = payload.clone();
    if let Value::Object(map) = &mut copy {
        let name = map
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        map.insert(
            "name".to_string(),
            Value::String(format!("{name}[group={group}]")),
        );
    }
    copy
}

fn lookup(token: &str) -> Result<Spec, BuildError> {
    if let Some(message) = python_only_token(token) {
        return Err(BuildError::new(BuildErrorKind::PythonOnly { message }));
    }
    spec(token).ok_or_else(|| {
        BuildError::new(BuildErrorKind::UnknownType {
            token: token.to_string(),
        })
    })
}

/// Every field of the check (identity exclusions not yet applied) with its
/// canonical value: what Python's `asdict` + `canonical` give.
fn field_values(
    token: &str,
    spec: &Spec,
    params: &Map<String, Value>,
) -> Result<Map<String, Value>, BuildError> {
    // 1. unknown keys
    let known: Vec<&str> = spec
        .fields
        .iter()
        .filter(|f| f.settable)
        .map(|f| f.name)
        .collect();
    let unknown: Vec<String> = params
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        let mut known: Vec<String> = known.iter().map(|k| k.to_string()).collect();
        known.sort();
        return Err(BuildError::new(BuildErrorKind::UnknownParameters {
            token: token.to_string(),
            keys: unknown,
            known,
        }));
    }
    // 2. what only Python can express
    if token == "pii_absent" && params.contains_key("patterns") {
        return Err(BuildError::new(BuildErrorKind::PythonOnly {
            message: "`pii_absent` takes `patterns` as PII patterns, and each carries a \
                      checksum function, which is code: a suite that is data uses the shipped \
                      set. Custom PII patterns need a suite.py."
                .to_string(),
        }));
    }
    if let Some(judge) = params.get("judge") {
        check_judge(judge)?;
    }
    let inner = match params.get("inner") {
        Some(value) => Some(inner_fields(value)?),
        None => None,
    };
    // 3. missing mandatory parameters
    let missing: Vec<String> = spec
        .fields
        .iter()
        .filter(|f| matches!(f.def, Def::Mandatory) && !params.contains_key(f.name))
        .map(|f| f.name.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(BuildError::new(BuildErrorKind::MissingParameters {
            token: token.to_string(),
            keys: missing,
        }));
    }
    // 4. values
    let mut out = Map::new();
    for field in &spec.fields {
        let value = match (field.name, params.get(field.name)) {
            ("accepts", Some(given)) => accepts_value(token, given)?,
            ("judge", Some(given)) => judge_value(token, given),
            (_, Some(given)) => canonical(given),
            (_, None) => default_value(field.def),
        };
        out.insert(field.name.to_string(), value);
    }
    if token == "affix" {
        derive_affix_name(&mut out)?;
    }
    if let Some(inner) = inner {
        fill_repeated(&mut out, params, inner)?;
    }
    Ok(out)
}

/// The nested check of a `repeated`: all its fields, no `__type__`.
fn inner_fields(value: &Value) -> Result<Map<String, Value>, BuildError> {
    let located = |mut e: BuildError| {
        e.within.insert(0, "inner".to_string());
        e
    };
    let Value::Object(table) = value else {
        return Err(BuildError::invalid(
            "repeated",
            "inner",
            format!(
                "`inner` is {}, and it has to be a table: write the wrapped check as \
                 [assertions.inner]",
                describe(value)
            ),
        ));
    };
    let token = match table.get("type") {
        None => return Err(located(BuildError::new(BuildErrorKind::MissingType))),
        Some(Value::String(t)) => t.clone(),
        Some(other) => {
            return Err(located(BuildError::new(BuildErrorKind::TypeNotAName {
                found: json_type(other).to_string(),
            })))
        }
    };
    if is_aggregate(&token) {
        return Err(BuildError::invalid(
            "repeated",
            "inner",
            format!(
                "`inner` is the aggregate `{token}`, a verdict about the whole run, and only \
                 a per-case check can be repeated"
            ),
        ));
    }
    let spec = lookup(&token).map_err(located)?;
    let mut params = table.clone();
    params.remove("type");
    field_values(&token, &spec, &params).map_err(located)
}

/// `repeated`: threshold, tolerance and accepts come from the inner check,
/// the name too when none is given; `min_agreement` must be reachable.
fn fill_repeated(
    out: &mut Map<String, Value>,
    params: &Map<String, Value>,
    inner: Map<String, Value>,
) -> Result<(), BuildError> {
    for key in ["threshold", "tolerance", "accepts"] {
        out.insert(
            key.to_string(),
            inner.get(key).cloned().unwrap_or(Value::Null),
        );
    }
    if out.get("name").and_then(Value::as_str) == Some("") {
        out.insert(
            "name".to_string(),
            inner.get("name").cloned().unwrap_or(Value::Null),
        );
    }
    let samples = match params.get("samples").and_then(Value::as_u64) {
        Some(n) if n >= 2 => u32::try_from(n).unwrap_or(u32::MAX),
        _ => {
            return Err(BuildError::invalid(
                "repeated",
                "samples",
                format!(
                    "`samples` is {}, and repeating needs a whole number of at least 2 \
                     (repeating once is the check itself)",
                    describe(params.get("samples").unwrap_or(&Value::Null))
                ),
            ))
        }
    };
    let agreement = as_agreement(
        params.get("min_agreement").unwrap_or(&Value::Null),
        samples,
        "min_agreement",
    )
    .map_err(|e| BuildError::invalid("repeated", "min_agreement", e.message))?;
    out.insert("min_agreement".to_string(), float(round6(agreement)));
    out.insert("inner".to_string(), Value::Object(inner));
    Ok(())
}

fn derive_affix_name(out: &mut Map<String, Value>) -> Result<(), BuildError> {
    let derived = match out.get("at").and_then(Value::as_str) {
        Some("start") => "starts_with",
        Some("end") => "ends_with",
        _ => {
            return Err(BuildError::invalid(
                "affix",
                "at",
                format!(
                    "`at` is {}, and it has to be \"start\" or \"end\"",
                    describe(out.get("at").unwrap_or(&Value::Null))
                ),
            ))
        }
    };
    if out.get("name").and_then(Value::as_str) == Some("") {
        out.insert("name".to_string(), Value::String(derived.to_string()));
    }
    Ok(())
}

/// A judge is a `provider/model` coordinate; a table or an import-shaped
/// string is a Python-only wall.
fn check_judge(judge: &Value) -> Result<(), BuildError> {
    match judge {
        Value::Object(_) => Err(BuildError::new(BuildErrorKind::PythonOnly {
            message: "`judge` is a table, and a judge written in data is its coordinate alone \
                      (\"anthropic/claude-haiku-4-5\"), which grades with the provider's own \
                      defaults. A judge set up differently is code, and needs a suite.py."
                .to_string(),
        })),
        Value::String(s) if s.contains(':') || (s.contains('.') && !s.contains('/')) => {
            Err(BuildError::new(BuildErrorKind::PythonOnly {
                message: format!(
                    "`judge` is '{s}', which reads like a Python import. A judge is named by \
                     its coordinate instead, provider/model as in \"anthropic/claude-haiku-4-5\", \
                     because a data file that could name code could run any code. A judge with \
                     rules of its own needs a suite.py."
                ),
            }))
        }
        _ => Ok(()),
    }
}

/// What a judge contributes to identity: its class name only. 0.10.0 ships
/// no provider plugin, so these class names are unverified against it.
fn judge_value(token: &str, judge: &Value) -> Value {
    let provider = judge
        .as_str()
        .and_then(|s| s.split_once('/'))
        .map(|(p, _)| p)
        .unwrap_or_default();
    let stem = match provider {
        "anthropic" => "Anthropic",
        "openai" => "OpenAI",
        "bedrock" => "Bedrock",
        _ => "",
    };
    let kind = if token == "faithfulness" {
        "ClaimJudge"
    } else {
        "Judge"
    };
    Value::String(format!("<{stem}{kind}>"))
}

/// `accepts`: a set of output kinds, canonical as a sorted list of strings.
fn accepts_value(token: &str, given: &Value) -> Result<Value, BuildError> {
    let Value::Array(items) = given else {
        return Err(BuildError::invalid(
            token,
            "accepts",
            format!(
                "`accepts` is {}, and it has to be an array of output kinds, e.g. [\"text\"]",
                describe(given)
            ),
        ));
    };
    let mut words: Vec<String> = Vec::new();
    for item in items {
        match item {
            Value::String(s) => words.push(s.clone()),
            other => {
                return Err(BuildError::invalid(
                    token,
                    "accepts",
                    format!(
                        "`accepts` holds {}, and every entry has to be one of \"text\", \
                         \"structured\", \"conversation\"",
                        describe(other)
                    ),
                ))
            }
        }
    }
    words.sort();
    words.dedup();
    Ok(Value::Array(words.into_iter().map(Value::String).collect()))
}

fn default_value(def: Def) -> Value {
    match def {
        Def::Mandatory | Def::Null => Value::Null,
        Def::Bool(b) => Value::Bool(b),
        Def::Str(s) => Value::String(s.to_string()),
        Def::Float(x) => float(x),
        Def::Kinds(kinds) => {
            let mut kinds: Vec<&str> = kinds.to_vec();
            kinds.sort_unstable();
            Value::Array(kinds.into_iter().map(|k| Value::String(k.into())).collect())
        }
        Def::PiiPatterns => pii_patterns(),
    }
}

/// The shipped PII pattern set as Python's `canonical` renders it.
fn pii_patterns() -> Value {
    Value::Array(
        pii::PATTERNS
            .iter()
            .map(|p| {
                json!({
                    "compiled": "<Pattern>",
                    "name": p.name,
                    "pattern": p.pattern,
                    "verify": if p.verify.is_some() { Value::String("<function>".into()) } else { Value::Null },
                })
            })
            .collect(),
    )
}

/// Python's `canonical` on a suite value: ints and strings as they are,
/// floats rounded to 6 decimals, containers recursively.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => float(round6(n.as_f64().unwrap_or(f64::NAN))),
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect())
        }
        other => other.clone(),
    }
}

fn float(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The JSON type of a value, as a noun phrase for messages.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a float",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a table",
    }
}

/// The threshold a check of this type has when the entry writes none
/// (0–1), or `None` when `threshold` is mandatory (judged checks,
/// aggregates) or the type is unknown. `repeated` takes its inner check's.
pub fn default_threshold(token: &str) -> Option<f64> {
    spec(token)?
        .fields
        .iter()
        .find(|f| f.name == "threshold" && f.settable)
        .and_then(|f| match f.def {
            Def::Float(x) => Some(x),
            _ => None,
        })
}

/// A declared threshold or tolerance: an integer in the file stays an
/// integer (as 0.10.0 writes it back); anything else is the parsed value.
fn as_level(declared: &Value, parsed: f64) -> Level {
    match declared {
        Value::Number(n) if n.is_i64() => Level::declared(n),
        _ => Level::float(parsed),
    }
}

/// The check's `config_hash` entry: its id with threshold and tolerance as
/// the entry wrote them (an integer stays an integer, as 0.10.0 hashes it);
/// defaults and ratio strings give floats.
pub fn rule_entry(check: &DeclaredCheck, params: &Map<String, Value>) -> RuleEntry {
    // A `repeated` has its inner check's threshold and tolerance, as declared there.
    let mut params = params;
    let mut current = check;
    while let (Check::Repeated { inner, .. }, Some(Value::Object(table))) =
        (&current.check, params.get("inner"))
    {
        current = inner;
        params = table;
    }
    let declared = |key: &str, parsed: Level| match params.get(key) {
        Some(Value::Number(n)) => n.clone(),
        _ => parsed.to_number(),
    };
    RuleEntry {
        assertion_id: check.assertion_id.clone(),
        threshold: declared("threshold", check.threshold),
        tolerance: declared("tolerance", check.tolerance),
    }
}

/// Validate one entry (`type` token plus its other keys, TOML integers and
/// floats kept apart) into a [`DeclaredCheck`].
///
/// Order of refusals: unknown type, unknown parameters (the loader adds the
/// near miss), Python-only walls, missing parameters, then — for the six
/// built checks — each value by type and range. Every other 0.10.0 type is
/// [`BuildErrorKind::NotBuiltYet`]. A `repeated` builds its inner check by
/// the same rules (errors located in `inner`) and takes its threshold,
/// tolerance and accepts.
///
/// # Errors
/// A [`BuildError`] saying which key is wrong and why.
pub fn build(token: &str, params: &Map<String, Value>) -> Result<DeclaredCheck, BuildError> {
    let payload = identity_payload(token, params)?;
    if !BUILT_TYPES.contains(&token) {
        return Err(BuildError::new(BuildErrorKind::NotBuiltYet {
            token: token.to_string(),
        }));
    }
    if token == "repeated" {
        return build_repeated(params, payload);
    }
    let spec = lookup(token)?;
    let default_of = |key: &str| {
        spec.fields
            .iter()
            .find(|f| f.name == key)
            .map(|f| f.def)
            .unwrap_or(Def::Null)
    };
    let name = match params.get("name") {
        // The payload holds the default, derived where 0.10.0 derives it
        // (`affix` → `starts_with`/`ends_with`).
        None => match payload.get("name").and_then(Value::as_str) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => token.to_string(),
        },
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(other) => {
            return Err(BuildError::invalid(
                token,
                "name",
                format!(
                    "`name` is {}, and it has to be a non-empty string: the name is what \
                     reports and aggregates call the check",
                    describe(other)
                ),
            ))
        }
    };
    let threshold = match params.get("threshold") {
        None => Level::float(match default_of("threshold") {
            Def::Float(x) => x,
            _ => 1.0,
        }),
        Some(v) => {
            let t = as_ratio(v, "threshold")
                .map_err(|e| BuildError::invalid(token, "threshold", e.message))?;
            if !(0.0..=1.0).contains(&t) {
                return Err(BuildError::invalid(
                    token,
                    "threshold",
                    format!(
                        "`threshold` is {}, outside 0–1: a score is a share",
                        describe(v)
                    ),
                ));
            }
            as_level(v, t)
        }
    };
    let tolerance = match params.get("tolerance") {
        None => Level::float(0.0),
        Some(v) => {
            let t = as_ratio(v, "tolerance")
                .map_err(|e| BuildError::invalid(token, "tolerance", e.message))?;
            if t < 0.0 {
                return Err(BuildError::invalid(
                    token,
                    "tolerance",
                    format!(
                        "`tolerance` is {}, below 0: it is how far a score may move",
                        describe(v)
                    ),
                ));
            }
            as_level(v, t)
        }
    };
    let accepts = match params.get("accepts") {
        None => match default_of("accepts") {
            Def::Kinds(kinds) => kinds.iter().filter_map(|k| kind(k)).collect(),
            _ => vec![OutputKind::Text],
        },
        Some(v) => accepts_kinds(token, v)?,
    };
    let check = match token {
        "contains" | "not_contains" => {
            let needle = string_param(token, params, "needle")?;
            if needle.is_empty() {
                return Err(BuildError::invalid(
                    token,
                    "needle",
                    "`needle` is empty, and searching for nothing always passes".to_string(),
                ));
            }
            let case_sensitive = bool_param(token, params, "case_sensitive", true)?;
            if token == "contains" {
                Check::Contains {
                    needle,
                    case_sensitive,
                }
            } else {
                Check::NotContains {
                    needle,
                    case_sensitive,
                }
            }
        }
        "regex" => {
            let pattern = string_param(token, params, "pattern")?;
            if pattern.is_empty() {
                return Err(BuildError::invalid(
                    token,
                    "pattern",
                    "`pattern` is empty, and an empty pattern matches every output".to_string(),
                ));
            }
            let compiled = pattern::compile(&pattern).map_err(|why| {
                BuildError::invalid(
                    token,
                    "pattern",
                    format!("`pattern` does not compile: {why}"),
                )
            })?;
            Check::Regex { pattern, compiled }
        }
        "length" => build_length(params)?,
        "cost_budget" => Check::CostBudget {
            max_usd: positive(token, params, "max_usd")?,
        },
        "latency_budget" => Check::LatencyBudget {
            max_ms: positive(token, params, "max_ms")?,
        },
        "llm_rubric" => {
            let rubric = string_param(token, params, "rubric")?;
            if rubric.trim().is_empty() {
                return Err(BuildError::invalid(
                    token,
                    "rubric",
                    "`rubric` is empty, and a judge with nothing to grade against grades nothing"
                        .to_string(),
                ));
            }
            Check::LlmRubric {
                rubric,
                judge: coordinate_param(token, params)?,
            }
        }
        "faithfulness" => Check::Faithfulness {
            judge: coordinate_param(token, params)?,
        },
        "equals" => Check::Equals,
        "levenshtein" => Check::Levenshtein,
        "pii_absent" => Check::PiiAbsent,
        "affix" => build_affix(params)?,
        "is_json" => Check::IsJson {
            top_level: match params.get("top_level") {
                None => TopLevel::Any,
                Some(Value::String(s)) if s == "any" => TopLevel::Any,
                Some(Value::String(s)) if s == "object" => TopLevel::Object,
                Some(Value::String(s)) if s == "array" => TopLevel::Array,
                Some(other) => {
                    return Err(BuildError::invalid(
                        token,
                        "top_level",
                        format!(
                            "`top_level` is {}, and it has to be \"any\", \"object\" or \"array\"",
                            describe(other)
                        ),
                    ))
                }
            },
        },
        "json_schema" => {
            let schema = params.get("schema").unwrap_or(&Value::Null);
            let schema = CompiledSchema::compile(schema).map_err(|why| {
                BuildError::invalid(
                    token,
                    "schema",
                    format!("`schema` is not a valid Draft 2020-12 schema: {why}"),
                )
            })?;
            Check::JsonSchema { schema }
        }
        "tools_called" => Check::ToolsCalled {
            expected: tool_names(params)?,
        },
        _ => {
            return Err(BuildError::new(BuildErrorKind::NotBuiltYet {
                token: token.to_string(),
            }))
        }
    };
    Ok(DeclaredCheck {
        token: token.to_string(),
        name,
        check,
        threshold,
        tolerance,
        accepts,
        assertion_id: identity::digest(&payload),
        identity_payload: payload,
    })
}

/// `judge`: a `provider/model` coordinate with both halves non-empty (the
/// loader checks that digline speaks the provider).
fn coordinate_param(token: &str, params: &Map<String, Value>) -> Result<String, BuildError> {
    let judge = string_param(token, params, "judge")?;
    match judge.split_once('/') {
        Some((provider, model)) if !provider.is_empty() && !model.is_empty() => Ok(judge),
        _ => Err(BuildError::invalid(
            token,
            "judge",
            format!(
                "`judge` is '{judge}', which is not a provider/model coordinate such as \
                 \"anthropic/claude-haiku-4-5\""
            ),
        )),
    }
}

/// `repeated`: build the inner check (errors located in `inner`), take its
/// threshold, tolerance and accepts, and its name unless one is given.
fn build_repeated(
    params: &Map<String, Value>,
    payload: Value,
) -> Result<DeclaredCheck, BuildError> {
    let token = "repeated";
    let located = |mut e: BuildError| {
        e.within.insert(0, "inner".to_string());
        e
    };
    let mut inner_params = match params.get("inner") {
        Some(Value::Object(table)) => table.clone(),
        _ => {
            return Err(BuildError::invalid(
                token,
                "inner",
                "`inner` has to be a table: write the wrapped check as [assertions.inner]"
                    .to_string(),
            ))
        }
    };
    let inner_token = match inner_params.remove("type") {
        Some(Value::String(t)) => t,
        _ => return Err(located(BuildError::new(BuildErrorKind::MissingType))),
    };
    let inner = build(&inner_token, &inner_params).map_err(located)?;
    let samples = params
        .get("samples")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 2)
        .ok_or_else(|| {
            BuildError::invalid(
                token,
                "samples",
                "`samples` has to be a whole number of at least 2".to_string(),
            )
        })?;
    let min_agreement = as_agreement(
        params.get("min_agreement").unwrap_or(&Value::Null),
        samples,
        "min_agreement",
    )
    .map_err(|e| BuildError::invalid(token, "min_agreement", e.message))?;
    let name = match params.get("name") {
        None => inner.name.clone(),
        Some(Value::String(s)) if s.is_empty() => inner.name.clone(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(BuildError::invalid(
                token,
                "name",
                format!("`name` is {}, and it has to be a string", describe(other)),
            ))
        }
    };
    Ok(DeclaredCheck {
        token: token.to_string(),
        name,
        threshold: inner.threshold,
        tolerance: inner.tolerance,
        accepts: inner.accepts.clone(),
        assertion_id: identity::digest(&payload),
        identity_payload: payload,
        check: Check::Repeated {
            inner: Box::new(inner),
            samples,
            min_agreement,
        },
    })
}

fn kind(word: &str) -> Option<OutputKind> {
    match word {
        "text" => Some(OutputKind::Text),
        "structured" => Some(OutputKind::Structured),
        "conversation" => Some(OutputKind::Conversation),
        _ => None,
    }
}

fn accepts_kinds(token: &str, value: &Value) -> Result<Vec<OutputKind>, BuildError> {
    let words = accepts_value(token, value)?;
    let mut kinds = Vec::new();
    for word in words.as_array().into_iter().flatten() {
        let word = word.as_str().unwrap_or_default();
        match kind(word) {
            Some(k) => kinds.push(k),
            None => {
                return Err(BuildError::invalid(
                    token,
                    "accepts",
                    format!(
                        "`accepts` holds '{word}', and the output kinds are \"text\", \
                         \"structured\" and \"conversation\""
                    ),
                ))
            }
        }
    }
    if kinds.is_empty() {
        return Err(BuildError::invalid(
            token,
            "accepts",
            "`accepts` is empty, so the check would judge no output at all".to_string(),
        ));
    }
    kinds.sort();
    Ok(kinds)
}

fn string_param(token: &str, params: &Map<String, Value>, key: &str) -> Result<String, BuildError> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        other => Err(BuildError::invalid(
            token,
            key,
            format!(
                "`{key}` is {}, and it has to be a string",
                describe(other.unwrap_or(&Value::Null))
            ),
        )),
    }
}

fn bool_param(
    token: &str,
    params: &Map<String, Value>,
    key: &str,
    default: bool,
) -> Result<bool, BuildError> {
    match params.get(key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(BuildError::invalid(
            token,
            key,
            format!(
                "`{key}` is {}, and it has to be true or false",
                describe(other)
            ),
        )),
    }
}

/// A number (int or float as written) that is > 0.
fn positive(token: &str, params: &Map<String, Value>, key: &str) -> Result<Number, BuildError> {
    match params.get(key) {
        Some(Value::Number(n)) if n.as_f64().is_some_and(|x| x > 0.0 && x.is_finite()) => {
            Ok(n.clone())
        }
        Some(Value::Number(n)) => Err(BuildError::invalid(
            token,
            key,
            format!("`{key}` is {n}, and a cap has to be above 0"),
        )),
        other => Err(BuildError::invalid(
            token,
            key,
            format!(
                "`{key}` is {}, and it has to be a number",
                describe(other.unwrap_or(&Value::Null))
            ),
        )),
    }
}

fn build_affix(params: &Map<String, Value>) -> Result<Check, BuildError> {
    let affix = string_param("affix", params, "affix")?;
    if affix.is_empty() {
        return Err(BuildError::invalid(
            "affix",
            "affix",
            "`affix` is empty, and every output starts and ends with nothing".to_string(),
        ));
    }
    // `at` was checked when the name was derived (identity_payload).
    let at_end = params.get("at").and_then(Value::as_str) == Some("end");
    Ok(Check::Affix {
        affix,
        at_end,
        case_sensitive: bool_param("affix", params, "case_sensitive", true)?,
    })
}

/// `tools_called.expected`: an array of non-empty tool names (may be empty:
/// "no tool may be called").
fn tool_names(params: &Map<String, Value>) -> Result<Vec<String>, BuildError> {
    let invalid = |message: String| BuildError::invalid("tools_called", "expected", message);
    let Some(Value::Array(items)) = params.get("expected") else {
        return Err(invalid(format!(
            "`expected` is {}, and it has to be an array of tool names in call order, \
             e.g. [\"search_orders\"]",
            describe(params.get("expected").unwrap_or(&Value::Null))
        )));
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(s) if !s.is_empty() => Ok(s.clone()),
            other => Err(invalid(format!(
                "`expected` holds {}, and every entry has to be a tool's name",
                describe(other)
            ))),
        })
        .collect()
}

fn build_length(params: &Map<String, Value>) -> Result<Check, BuildError> {
    let bound = |key: &str| -> Result<Option<Number>, BuildError> {
        match params.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) if n.as_f64().is_some_and(|x| x >= 0.0) => Ok(Some(n.clone())),
            Some(Value::Number(n)) => Err(BuildError::invalid(
                "length",
                key,
                format!("`{key}` is {n}, and a length cannot be negative"),
            )),
            Some(other) => Err(BuildError::invalid(
                "length",
                key,
                format!("`{key}` is {}, and it has to be a number", describe(other)),
            )),
        }
    };
    let minimum = bound("minimum")?;
    let maximum = bound("maximum")?;
    if minimum.is_none() && maximum.is_none() {
        return Err(BuildError::invalid(
            "length",
            "minimum",
            "it needs `minimum`, `maximum` or both: with neither, every output passes".to_string(),
        ));
    }
    if maximum.is_none() && minimum.as_ref().is_some_and(|lo| lo.as_f64() == Some(0.0)) {
        return Err(BuildError::invalid(
            "length",
            "minimum",
            "`minimum` is 0 and there is no `maximum`: every output is at least 0 long, so \
             this check always passes. Give a minimum above 0, or a maximum"
                .to_string(),
        ));
    }
    if let (Some(lo), Some(hi)) = (&minimum, &maximum) {
        if lo.as_f64() > hi.as_f64() {
            return Err(BuildError::invalid(
                "length",
                "minimum",
                format!("`minimum` ({lo}) is above `maximum` ({hi}): no output can meet both"),
            ));
        }
    }
    let unit = match params.get("unit") {
        None => LengthUnit::Characters,
        Some(Value::String(s)) if s == "characters" => LengthUnit::Characters,
        Some(Value::String(s)) if s == "words" => LengthUnit::Words,
        Some(other) => {
            return Err(BuildError::invalid(
                "length",
                "unit",
                format!(
                    "`unit` is {}, and it has to be \"characters\" or \"words\"",
                    describe(other)
                ),
            ))
        }
    };
    Ok(Check::Length {
        minimum,
        maximum,
        unit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn the_six_checks_build_with_defaults_and_ids() {
        let table: &[(&str, Value, &str, f64, &str)] = &[
            (
                "contains",
                json!({"needle": "Northwind"}),
                "contains",
                1.0,
                "88a931f8f1842070",
            ),
            (
                "not_contains",
                json!({"needle": "refund"}),
                "not_contains",
                1.0,
                "8acc90829c64bf98",
            ),
            (
                "regex",
                json!({"pattern": "\\d{4}"}),
                "regex",
                1.0,
                "3f987980db643d4b",
            ),
            (
                "length",
                json!({"maximum": 60}),
                "length",
                1.0,
                "ff325ab83dcbebdf",
            ),
            (
                "cost_budget",
                json!({"max_usd": 1, "tolerance": 0.0}),
                "cost_budget",
                0.5,
                "826d9de4ef07cb58",
            ),
            (
                "latency_budget",
                json!({"max_ms": 800.0, "tolerance": 0.0}),
                "latency_budget",
                0.5,
                "b0f42e6ea7e15d56",
            ),
        ];
        for (token, p, name, threshold, id) in table {
            let check = build(token, &params(p.clone())).unwrap_or_else(|e| panic!("{token}: {e}"));
            assert_eq!(check.name, *name);
            assert_eq!(*check.threshold, *threshold);
            assert_eq!(check.assertion_id, *id, "{token}");
        }
    }

    #[test]
    fn bad_values_are_refused_with_the_key_named() {
        let table: &[(&str, Value, &str)] = &[
            ("contains", json!({"needle": ""}), "needle"),
            ("contains", json!({"needle": 5}), "needle"),
            (
                "contains",
                json!({"needle": "x", "case_sensitive": "no"}),
                "case_sensitive",
            ),
            (
                "contains",
                json!({"needle": "x", "threshold": "high"}),
                "threshold",
            ),
            (
                "contains",
                json!({"needle": "x", "threshold": 1.5}),
                "threshold",
            ),
            (
                "contains",
                json!({"needle": "x", "tolerance": -0.1}),
                "tolerance",
            ),
            (
                "contains",
                json!({"needle": "x", "accepts": ["txt"]}),
                "accepts",
            ),
            ("contains", json!({"needle": "x", "accepts": []}), "accepts"),
            (
                "contains",
                json!({"needle": "x", "accepts": "text"}),
                "accepts",
            ),
            ("contains", json!({"needle": "x", "name": ""}), "name"),
            ("regex", json!({"pattern": "(unclosed"}), "pattern"),
            ("regex", json!({"pattern": ""}), "pattern"),
            ("length", json!({}), "minimum"),
            ("length", json!({"minimum": -1}), "minimum"),
            ("length", json!({"minimum": 5, "maximum": 2}), "minimum"),
            ("length", json!({"maximum": "60"}), "maximum"),
            ("length", json!({"maximum": 6, "unit": "lines"}), "unit"),
            (
                "cost_budget",
                json!({"max_usd": 0, "tolerance": 0}),
                "max_usd",
            ),
            (
                "cost_budget",
                json!({"max_usd": "1", "tolerance": 0}),
                "max_usd",
            ),
            (
                "latency_budget",
                json!({"max_ms": -5, "tolerance": 0}),
                "max_ms",
            ),
        ];
        for (token, p, key) in table {
            let err = build(token, &params(p.clone())).expect_err(&format!("{token} {p}"));
            match err.kind {
                BuildErrorKind::Invalid { key: Some(k), .. } => assert_eq!(k, *key, "{token} {p}"),
                other => panic!("{token} {p}: {other:?}"),
            }
        }
    }

    #[test]
    fn structure_errors_come_before_values() {
        type Row = (&'static str, Value, fn(&BuildErrorKind) -> bool);
        let cases: &[Row] = &[
            ("contain", json!({}), |k| {
                matches!(k, BuildErrorKind::UnknownType { .. })
            }),
            ("from_autoevals", json!({}), |k| {
                matches!(k, BuildErrorKind::PythonOnly { .. })
            }),
            (
                "contains",
                json!({"needle": "", "treshold": 1}),
                |k| matches!(k, BuildErrorKind::UnknownParameters { keys, .. } if keys == &["treshold"]),
            ),
            (
                "cost_budget",
                json!({"max_usd": 1}),
                |k| matches!(k, BuildErrorKind::MissingParameters { keys, .. } if keys == &["tolerance"]),
            ),
            ("pii_absent", json!({"patterns": []}), |k| {
                matches!(k, BuildErrorKind::PythonOnly { .. })
            }),
            (
                "llm_rubric",
                json!({"rubric": "r", "judge": "pkg:Class", "threshold": 0.5, "tolerance": 0}),
                |k| matches!(k, BuildErrorKind::PythonOnly { .. }),
            ),
            (
                "llm_rubric",
                json!({"rubric": "r", "judge": {"p": 1}, "threshold": 0.5, "tolerance": 0}),
                |k| matches!(k, BuildErrorKind::PythonOnly { .. }),
            ),
            (
                "llm_rubric",
                json!({"rubric": "r", "judge": "anthropic", "threshold": 0.5, "tolerance": 0}),
                |k| matches!(k, BuildErrorKind::Invalid { key: Some(key), .. } if key == "judge"),
            ),
            (
                "llm_rubric",
                json!({"rubric": " ", "judge": "anthropic/m", "threshold": 0.5, "tolerance": 0}),
                |k| matches!(k, BuildErrorKind::Invalid { key: Some(key), .. } if key == "rubric"),
            ),
            (
                "precision",
                json!({"over": "x", "threshold": 0.5, "tolerance": 0}),
                |k| matches!(k, BuildErrorKind::NotBuiltYet { .. }),
            ),
            (
                "precision",
                json!({"over": "x", "threshold": 0.5, "tolerance": 0, "group": "g"}),
                |k| matches!(k, BuildErrorKind::UnknownParameters { .. }),
            ),
            (
                "repeated",
                json!({"samples": 3, "min_agreement": "2/3", "threshold": 1}),
                |k| matches!(k, BuildErrorKind::UnknownParameters { .. }),
            ),
        ];
        for (token, p, want) in cases {
            let err = build(token, &params(p.clone())).expect_err(token);
            assert!(want(&err.kind), "{token} {p}: {:?}", err.kind);
        }
    }

    #[test]
    fn an_inner_error_is_located_in_inner() {
        let p = params(json!({"samples": 3, "min_agreement": "2/3",
            "inner": {"type": "contains", "neddle": "x"}}));
        let err = build("repeated", &p).unwrap_err();
        assert_eq!(err.within, vec!["inner".to_string()]);
        assert!(matches!(err.kind, BuildErrorKind::UnknownParameters { .. }));
        let p = params(json!({"samples": 3, "min_agreement": "2/3", "inner": {"needle": "x"}}));
        assert_eq!(
            build("repeated", &p).unwrap_err().kind,
            BuildErrorKind::MissingType
        );
        let p = params(json!({"samples": 3, "min_agreement": "2/3",
            "inner": {"type": "precision", "over": "x", "threshold": 1, "tolerance": 0}}));
        assert!(matches!(
            build("repeated", &p).unwrap_err().kind,
            BuildErrorKind::Invalid { .. }
        ));
        let p = params(json!({"samples": 3, "min_agreement": "2/5", "inner": {"type": "equals"}}));
        assert!(matches!(
            build("repeated", &p).unwrap_err().kind,
            BuildErrorKind::Invalid { .. }
        ));
    }

    #[test]
    fn repeated_payload_nests_the_inner_check() {
        let p = params(json!({"samples": 3, "min_agreement": "2/3",
            "inner": {"type": "contains", "needle": "Northwind"}}));
        let payload = identity_payload("repeated", &p).unwrap();
        assert_eq!(
            crate::core::pyjson::dumps_canonical(&payload),
            r#"{"__type__":"Repeated","accepts":["text"],"inner":{"accepts":["text"],"case_sensitive":true,"name":"contains","needle":"Northwind","threshold":1.0,"tolerance":0.0},"min_agreement":0.666667,"name":"contains","samples":3}"#
        );
        assert_eq!(identity::digest(&payload), "cabbf7b8bcbc2d95");
    }

    #[test]
    fn group_copies_carry_their_group_in_the_name() {
        let p = params(
            json!({"over": "contains", "threshold": "9/10", "tolerance": 0.05, "by_group": true}),
        );
        let payload = identity_payload("accuracy", &p).unwrap();
        assert_eq!(identity::digest(&payload), "ddb968366023a5a1");
        assert_eq!(
            identity::digest(&group_copy_payload(&payload, "alpha")),
            "ecc5117c4cecaff1"
        );
        assert_eq!(
            identity::digest(&group_copy_payload(&payload, "beta")),
            "e6ee5e9153bf89d6"
        );
    }
}
