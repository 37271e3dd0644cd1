//! Check labels a reader can tell apart: two checks of one case that share
//! a reported name (two unnamed `contains` checks) are shown with the first
//! six hex digits of their identity (`contains [3f9a1c]`), and a check
//! declared twice alike with its occurrence (`#2`). A name no other check
//! of the case shares is shown as it is, so ordinary suites read as before.
//!
//! Display only: pairing never uses a label. Pure.

use std::collections::{HashMap, HashSet};

use super::{KeyRef, Scope};

/// The names shared within a case, from every check a surface shows.
#[derive(Clone, Debug, Default)]
pub struct CheckLabels {
    shared: HashSet<(Scope, String, String)>,
}

impl CheckLabels {
    /// From every (key, reported name) a surface shows: the run's verdicts,
    /// or a comparison's deltas (both sides).
    pub fn new<'a>(entries: impl IntoIterator<Item = (KeyRef<'a>, &'a str)>) -> CheckLabels {
        let mut seen: HashMap<(Scope, &str, &str), (&str, usize)> = HashMap::new();
        let mut shared = HashSet::new();
        for (key, name) in entries {
            let slot = (key.scope, key.case_id, name);
            let me = (key.assertion_id.as_str(), key.occurrence);
            match seen.get(&slot) {
                Some(first) if *first != me => {
                    shared.insert((key.scope, key.case_id.to_string(), name.to_string()));
                }
                Some(_) => {}
                None => {
                    seen.insert(slot, me);
                }
            }
        }
        CheckLabels { shared }
    }

    /// The label of the check at `key` reported as `name`.
    pub fn label(&self, key: KeyRef<'_>, name: &str) -> String {
        let probe = (key.scope, key.case_id.to_string(), name.to_string());
        if !self.shared.contains(&probe) {
            return name.to_string();
        }
        let id: String = key.assertion_id.chars().take(6).collect();
        if key.occurrence == 0 {
            format!("{name} [{id}]")
        } else {
            format!("{name} [{id}] #{}", key.occurrence + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::name::Name;

    fn key<'a>(case: &'a str, id: &'a Name, occurrence: usize) -> KeyRef<'a> {
        KeyRef {
            scope: Scope::Case,
            case_id: case,
            assertion_id: id,
            occurrence,
        }
    }

    #[test]
    fn only_names_shared_within_a_case_are_told_apart() {
        let a = Name::from("3f9a1c0000000000");
        let b = Name::from("77aa000000000000");
        let labels = CheckLabels::new([
            (key("x", &a, 0), "contains"),
            (key("x", &b, 0), "contains"),
            (key("x", &a, 1), "contains"),
            (key("y", &a, 0), "contains"),
            (key("x", &b, 0), "length"),
        ]);
        assert_eq!(
            labels.label(key("x", &a, 0), "contains"),
            "contains [3f9a1c]"
        );
        assert_eq!(
            labels.label(key("x", &b, 0), "contains"),
            "contains [77aa00]"
        );
        assert_eq!(
            labels.label(key("x", &a, 1), "contains"),
            "contains [3f9a1c] #2"
        );
        assert_eq!(labels.label(key("y", &a, 0), "contains"), "contains");
        assert_eq!(labels.label(key("x", &b, 0), "length"), "length");
    }
}
