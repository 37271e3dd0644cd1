//! The six tools: names, descriptions, input schemas and annotations.
//!
//! Exactly `list_runs`, `get_run`, `get_baseline`, `compare`, `diff` and
//! `run`. Nothing that writes into the repository's committed state exists
//! here — not refused: absent (ADR 0011 §1). The five readers are
//! read-only, non-destructive, idempotent and closed-world; `run` writes one
//! new run file (additive, so not destructive), is not idempotent, and
//! reaches the system under test (open-world). Each description ends with
//! the rules that govern the tool's misuse ([`super::rules`]).

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

use super::rules::CARRIED_BY;

/// The tool names, in the order `tools/list` gives them.
pub const NAMES: [&str; 6] = [
    "list_runs",
    "get_run",
    "get_baseline",
    "compare",
    "diff",
    "run",
];

/// What each tool does, before its rules.
const INTROS: [(&str, &str); 6] = [
    (
        "list_runs",
        "Every stored run of a suite, newest first by when it was made, with the baseline's key. \
         This is the list you choose a run from. `note`, `advice`, `skipped` and `unreadable` say \
         what the listing left out (runs at another schema, files that could not be read); an \
         empty note means nothing was left out, and a non-empty one is said beside the result. \
         `baseline_unreadable` is true when a baseline exists and could not be read.",
    ),
    (
        "get_run",
        "One stored run (`run`: a key from list_runs, or `latest`): its verdicts per case and \
         check with scores, thresholds, tolerances and sampled intervals, which cases were \
         suspended, and the configuration that produced it. Verdicts only: reasons, outputs, \
         case inputs, suspension reasons and artifact text never appear here, because a reason \
         quotes the output and stays inside the perimeter it was measured in.",
    ),
    (
        "get_baseline",
        "The approved reference of a suite: the run a person decided to hold the others against. \
         Same shape and same boundary as get_run. With no baseline yet the call is refused: that \
         is the first round, and what it needs is a person.",
    ),
    (
        "compare",
        "A stored run (`run`: a key or `latest`) against the baseline; answers \"did it get \
         worse?\". The response is `digline compare --json full`, field for field: the headline, \
         `exit_code`, and every delta with its measured interval. Refused when the suite has no \
         baseline.",
    ),
    (
        "diff",
        "What differs between two stored runs of one suite (`run1`, `run2`: keys or `latest`); \
         answers \"should I switch?\". The response is `digline diff --json full`. Refused for the \
         same run twice and for runs measured under different rules.",
    ),
    (
        "run",
        "Execute the suite against its target and store one new run. This spends money. \
         `acknowledge_calls` must equal the suite's planned calls to the target (suspended cases \
         are never called and not counted); call without it once and the refusal states the \
         number and the plan sentence. With the right number the suite runs once and the response \
         names the stored run (`digline run --json`). It carries no verdict: compare it.",
    ),
];

/// The description of tool `name`: what it does, then its rules.
pub fn description(name: &str) -> String {
    let intro = INTROS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, text)| *text);
    let mut text = intro.to_string();
    for (_, rules) in CARRIED_BY.iter().filter(|(n, _)| *n == name) {
        for rule in *rules {
            text.push_str("\n\n");
            text.push_str(rule);
        }
    }
    text
}

fn suite_property() -> Value {
    json!({
        "type": "string",
        "description": "The suite file (suite.toml), as a path relative to the repository root this server serves."
    })
}

fn run_property(what: &str) -> Value {
    json!({"type": "string", "description": what})
}

/// The JSON Schema of tool `name`'s arguments.
pub fn input_schema(name: &str) -> JsonObject {
    let latest =
        "A run key from list_runs, or `latest` (the most recent run, by when it was made).";
    let schema = match name {
        "get_run" | "compare" => json!({
            "type": "object",
            "properties": {
                "suite": suite_property(),
                "run": {"type": "string", "default": "latest", "description": latest},
            },
            "required": ["suite"],
            "additionalProperties": false,
        }),
        "diff" => json!({
            "type": "object",
            "properties": {
                "suite": suite_property(),
                "run1": run_property(latest),
                "run2": run_property(latest),
            },
            "required": ["suite", "run1", "run2"],
            "additionalProperties": false,
        }),
        "run" => json!({
            "type": "object",
            "properties": {
                "suite": suite_property(),
                "acknowledge_calls": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "The number of calls to the target this run will make, exactly as the plan states it. Without it, or with another number, nothing is called and the refusal states the plan."
                },
            },
            "required": ["suite"],
            "additionalProperties": false,
        }),
        _ => json!({
            "type": "object",
            "properties": {"suite": suite_property()},
            "required": ["suite"],
            "additionalProperties": false,
        }),
    };
    match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The hints a client may show beside tool `name`.
pub fn annotations(name: &str) -> ToolAnnotations {
    if name == "run" {
        ToolAnnotations::from_raw(None, Some(false), Some(false), Some(false), Some(true))
    } else {
        ToolAnnotations::from_raw(None, Some(true), Some(false), Some(true), Some(false))
    }
}

/// The six tools as `tools/list` returns them.
pub fn catalog() -> Vec<Tool> {
    NAMES
        .iter()
        .map(|name| {
            Tool::new(*name, description(name), Arc::new(input_schema(name)))
                .with_annotations(annotations(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_tools_each_described_with_its_rules() {
        let tools = catalog();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, NAMES);
        for (name, rules) in CARRIED_BY {
            let text = description(name);
            assert!(!text.is_empty());
            for rule in rules {
                assert!(text.contains(rule), "{name} lacks {rule}");
            }
        }
    }

    #[test]
    fn only_run_changes_anything() {
        for name in NAMES {
            let a = annotations(name);
            assert_eq!(a.read_only_hint, Some(name != "run"), "{name}");
            assert_eq!(a.idempotent_hint, Some(name != "run"), "{name}");
            assert_eq!(a.open_world_hint, Some(name == "run"), "{name}");
            assert_eq!(a.destructive_hint, Some(false), "{name}");
        }
    }
}
