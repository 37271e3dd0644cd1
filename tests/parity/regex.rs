//! The Python `re` parity table (see `tests/parity/regex/generate.py`).

use std::collections::BTreeMap;

use digline::core::checks::json_schema::CompiledSchema;
use digline::core::checks::{pattern, search};
use serde_json::{json, Map, Value};

use super::agree;

/// The probe texts and the rows of the table.
fn table() -> (Vec<String>, Vec<Value>) {
    let text = std::fs::read_to_string(super::parity_file("regex/table.jsonl"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut lines = text.lines();
    let head: Value = serde_json::from_str(lines.next().unwrap_or("{}")).unwrap_or(Value::Null);
    let probes: Vec<String> = head["probes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    assert!(probes.len() > 20, "the table names its probe texts");
    let rows = lines
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect();
    (probes, rows)
}

/// The same table as property names: each pattern Python compiles is a
/// `patternProperties` key whose schema is `false`, and each probe text a
/// property name, so the check fails exactly when the name matches. A
/// pattern refused at load because it needs the backtracking engine is
/// counted, not a difference (docs/checks.md says so).
#[test]
fn regex_table_as_property_names() {
    let (probes, rows) = table();
    let mut measured = BTreeMap::new();
    let mut total = 0;
    let mut backtracking = 0;
    for row in rows.iter().filter(|r| r["ok"].as_bool() == Some(true)) {
        let p = row["pattern"].as_str().unwrap_or_default();
        let key = serde_json::to_string(p).unwrap_or_default();
        total += 1;
        let schema = json!({"patternProperties": {p: false}});
        let compiled = match CompiledSchema::compile(&schema) {
            Ok(c) => c,
            Err(why) if why.contains("is not one property names can be matched with") => {
                backtracking += 1;
                continue;
            }
            Err(why) => {
                measured.insert(key, format!("refused here: {why}"));
                continue;
            }
        };
        let want = row["matches"].as_str().unwrap_or_default();
        let got: String = probes
            .iter()
            .map(|name| {
                let mut object = Map::new();
                object.insert(name.clone(), json!(1));
                match compiled.conforms(&Value::Object(object)) {
                    Ok(true) => '0',
                    Ok(false) => '1',
                    Err(_) => 'E',
                }
            })
            .collect();
        if got != want {
            let differ: Vec<String> = probes
                .iter()
                .zip(want.chars().zip(got.chars()))
                .filter(|(_, (w, g))| w != g)
                .map(|(t, (w, _))| format!("{t:?} python={w}"))
                .collect();
            measured.insert(key, format!("names differ: {}", differ.join(", ")));
        }
    }
    assert!(
        total > 1000 && backtracking < total / 2,
        "{backtracking} of {total}"
    );
    agree(
        "regex/property-names.tsv",
        "# Patterns of table.jsonl that match property names (patternProperties) otherwise\n\
         # than Python 3.13's `re`. <pattern as JSON>\\t<why>\n",
        &measured,
        total,
    );
}

#[test]
fn regex_table() {
    let (probes, rows) = table();
    let mut measured = BTreeMap::new();
    let mut total = 0;
    for row in rows {
        let p = row["pattern"].as_str().unwrap_or_default();
        let key = serde_json::to_string(p).unwrap_or_default();
        total += 1;
        let python_runs = row["ok"].as_bool() == Some(true);
        match (python_runs, pattern::compile(p)) {
            (true, Err(why)) => {
                measured.insert(key, format!("refused here: {why}"));
            }
            (false, Ok(_)) => {
                let err = row["error"].as_str().unwrap_or_default();
                measured.insert(key, format!("accepted here; Python: {err}"));
            }
            (false, Err(why)) => {
                // A refusal points into the user's pattern, never past it.
                if let Some(at) = why.split("position ").nth(1) {
                    let n: usize = at
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                        .parse()
                        .unwrap_or(usize::MAX);
                    if n > p.chars().count() {
                        measured.insert(key, format!("refusal points past the pattern: {why}"));
                    }
                }
            }
            (true, Ok(compiled)) => {
                let want = row["matches"].as_str().unwrap_or_default();
                let got: String = probes
                    .iter()
                    .map(
                        |t| match search::is_match(&compiled, t, search::Budget::default()) {
                            Ok(true) => '1',
                            Ok(false) => '0',
                            Err(_) => 'E',
                        },
                    )
                    .collect();
                if got != want {
                    let differ: Vec<String> = probes
                        .iter()
                        .zip(want.chars().zip(got.chars()))
                        .filter(|(_, (w, g))| w != g)
                        .map(|(t, (w, _))| format!("{t:?} python={w}"))
                        .collect();
                    measured.insert(key, format!("searches differ: {}", differ.join(", ")));
                }
            }
        }
    }
    agree(
        "regex/differences.tsv",
        "# Patterns of table.jsonl where digline and Python 3.13's `re` differ.\n\
         # <pattern as JSON>\\t<why> (regenerate keys: DIGLINE_BLESS=1 cargo test --test parity)\n",
        &measured,
        total,
    );
    // docs/checks.md quotes these counts.
    assert_eq!(
        (total, probes.len(), measured.len()),
        (2230, 35, 9),
        "patterns, probe texts, differences"
    );
}
