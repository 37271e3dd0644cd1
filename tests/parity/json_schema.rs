//! The JSON-Schema-Test-Suite through the `json_schema` check.
//!
//! Each test's data are handed to the check as JSON text (as 0.10.0's
//! verdicts in `digline-0.10.0.jsonl` were taken); a boolean schema is
//! wrapped in `allOf`, since the check takes a table. A test agrees when
//! the check passes valid data and fails invalid data; a refused schema or
//! an `error` verdict disagrees.

use std::collections::BTreeMap;

use digline::core::checks::json_schema::CompiledSchema;
use serde_json::{json, Value};

use super::{agree, parity_file};

#[test]
fn json_schema_suite() {
    let oracle: BTreeMap<String, String> =
        std::fs::read_to_string(parity_file("json-schema/digline-0.10.0.jsonl"))
            .unwrap_or_else(|e| panic!("{e}"))
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| {
                (
                    v["key"].as_str().unwrap_or_default().to_string(),
                    v["verdict"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
    let mut measured = BTreeMap::new();
    let mut total = 0;
    let mut agreeing = 0;
    for draft in ["draft2020-12", "draft7"] {
        let dir = parity_file(&format!("JSON-Schema-Test-Suite/tests/{draft}"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let groups: Value = serde_json::from_str(
                &std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}")),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
                let schema = match &group["schema"] {
                    b @ Value::Bool(_) => json!({"allOf": [b]}),
                    other => other.clone(),
                };
                let compiled = CompiledSchema::compile(&schema);
                for (t, test) in group["tests"].as_array().into_iter().flatten().enumerate() {
                    total += 1;
                    let key = format!("{draft}/{name}#{g}/{t}");
                    let valid = test["valid"].as_bool() == Some(true);
                    let text = serde_json::to_string(&test["data"]).unwrap_or_default();
                    let ours = match &compiled {
                        Err(_) => "refused",
                        Ok(c) => match c.conforms(&Value::String(text)) {
                            Ok(true) => "pass",
                            Ok(false) => "fail",
                            Err(_) => "error",
                        },
                    };
                    let wanted = if valid { "pass" } else { "fail" };
                    if ours == wanted {
                        agreeing += 1;
                        continue;
                    }
                    let old = oracle.get(&key).map_or("?", String::as_str);
                    measured.insert(
                        key,
                        format!(
                            "{ours}, the suite says {wanted}, 0.10.0 {old}: {} / {}",
                            group["description"].as_str().unwrap_or_default(),
                            test["description"].as_str().unwrap_or_default()
                        ),
                    );
                }
            }
        }
    }
    assert_eq!(oracle.len(), total, "0.10.0's verdicts cover every test");
    assert_eq!(agreeing + measured.len(), total);
    agree(
        "json-schema/differences.tsv",
        "# Tests of the vendored JSON-Schema-Test-Suite where the json_schema check's verdict\n\
         # differs from the suite's. <draft/file#group/test>\\t<why>\n",
        &measured,
        total,
    );
    // docs/checks.md quotes these counts.
    assert_eq!(
        (agreeing, total),
        (2066, 2226),
        "tests agreeing with the suite, of all"
    );
}
