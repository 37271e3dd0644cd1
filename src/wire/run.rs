//! What `digline run --json` prints and the MCP `run` tool returns: the run
//! that was written, named, with the plan sentence that said what it cost.
//!
//! Keys: `output_version`, `key`, `tenant`, `suite`, `sentence` (the plan
//! sentence the CLI prints on stderr before the first call; over MCP there is
//! no stderr, and the acknowledged integer counts target calls only, so the
//! sentence is what carries any judge repeats). No exit code: a run reports
//! that it was written, not whether it was any good (ADR 0011 §4).

use serde_json::{json, Value};

use super::OUTPUT_VERSION;

/// The `run --json` object for the run stored under `key`.
pub fn run_json(key: &str, tenant: &str, suite: &str, sentence: &str) -> Value {
    json!({
        "output_version": OUTPUT_VERSION,
        "key": key,
        "tenant": tenant,
        "suite": suite,
        "sentence": sentence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_object_has_five_keys_and_no_verdict() {
        let v = run_json("k", "t", "s", "1 case × 1 sample = 1 call to the target");
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["key", "output_version", "sentence", "suite", "tenant"]
        );
    }
}
