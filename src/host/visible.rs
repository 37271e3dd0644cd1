//! Names people read must be visible: a check's `name` and a `group` that
//! hold a control character (a line break, ESC, BEL…) are refused at load,
//! as case ids are. Such a name reaches terminals, comments, reports and,
//! on GitHub Actions, the workflow-command parser, where a line break or an
//! escape sequence could forge a line, a colour or a command.
//!
//! The loader calls [`refusal`] for every text it keeps as a name; this
//! module holds the rule and its sentence only.

use serde_json::{Map, Value};

/// The sentence refusing `field` when `value` holds a control character
/// (tab included: a name is one visible line); `None` when it is visible.
pub fn refusal(field: &str, value: &str) -> Option<String> {
    let bad = value.chars().find(|c| c.is_control())?;
    Some(format!(
        "`{field}` holds a control character (U+{:04X}: a line break, an escape, a bell…): \
         a name is printed in terminals, comments and reports, where it could forge lines \
         or commands. Use visible characters",
        u32::from(bad)
    ))
}

/// The first name in a check's parameters (`name`, `group`, and those of a
/// wrapped check) that [`refusal`] refuses: its key and the sentence.
pub fn check_params(params: &Map<String, Value>) -> Option<(String, String)> {
    for (key, value) in params {
        match value {
            Value::String(text) if key == "name" || key == "group" => {
                if let Some(why) = refusal(key, text) {
                    return Some((key.clone(), why));
                }
            }
            Value::Object(inner) => {
                if let Some(found) = check_params(inner) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_in_names_are_refused_with_a_sentence() {
        for bad in ["a\nb", "a\u{1b}[31mred", "bell\u{7}", "tab\there", "cr\r"] {
            let why = refusal("name", bad).expect(bad);
            assert!(
                why.starts_with("`name` holds a control character (U+"),
                "{why}"
            );
        }
        assert_eq!(refusal("name", "visible · names @org #1"), None);
        let params: Map<String, Value> =
            serde_json::from_str(r#"{"check": {"name": "x\u001b]8;;"}, "samples": 2}"#).unwrap();
        let (key, why) = check_params(&params).unwrap();
        assert_eq!(key, "name");
        assert!(why.contains("U+001B"), "{why}");
        let params: Map<String, Value> =
            serde_json::from_str(r#"{"group": "ok", "name": "fine"}"#).unwrap();
        assert_eq!(check_params(&params), None);
    }
}
