//! The kinds of answer a check reads (`text`, `structured`,
//! `conversation`) and `length`'s unit: small value types the check files
//! share, kept out of `mod.rs` so a check file imports them without
//! importing the dispatch that calls it back.

use serde_json::Value;

/// The kind of an answer, by its JSON shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutputKind {
    /// A string.
    Text,
    /// A JSON object.
    Structured,
    /// A list of messages.
    Conversation,
}

impl OutputKind {
    /// The word used in `accepts` and in reasons (`text`, `structured`, `conversation`).
    pub fn as_str(self) -> &'static str {
        match self {
            OutputKind::Text => "text",
            OutputKind::Structured => "structured",
            OutputKind::Conversation => "conversation",
        }
    }
}

/// `length`'s unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthUnit {
    /// Unicode code points.
    Characters,
    /// Runs separated by whitespace, as Python's `str.split()` counts them.
    Words,
}

/// The kind of an output value, or `None` for a shape that is no valid output.
pub fn output_kind(output: &Value) -> Option<OutputKind> {
    match output {
        Value::String(_) => Some(OutputKind::Text),
        Value::Object(_) => Some(OutputKind::Structured),
        Value::Array(items) if items.iter().all(Value::is_object) => Some(OutputKind::Conversation),
        _ => None,
    }
}
