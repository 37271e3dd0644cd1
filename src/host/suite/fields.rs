//! The field helper: one table of `suite.toml` read key by key, each
//! refusal placed at the span of what it blames.
//!
//! A section wraps its table (`[suite]`, `[target]`, one `[[assertions]]`
//! entry …) in a [`Fields`] and asks it, in 0.10.0's order:
//! [`Fields::known`] refuses the keys nobody knows (with the near miss)
//! and says which known keys they were meant to be; [`Fields::missing`]
//! names the required keys that are absent; [`Fields::optional`] reads a
//! key as one value shape ([`FromToml`]), refused in one sentence,
//! "`` `key` is <what it is>, and <what it has to be> ``". A refusal is
//! placed at the key it blames, an element of an array at that element,
//! and an absent key at the table's own header.

use std::fmt;

use toml::de::{DeTable, DeValue};

use super::errors::{LoadError, LoadErrorKind};
use super::located::line_column;
use super::toml_values::{float, integer, kind, Node};
use super::{err, SUITE_FILE};
use crate::host::near_miss::{did_you_mean, hint, listing};

/// One table of the suite file: its entry (`[suite]`), where its header
/// is, and the file's text (which turns a span into `line:column`).
#[derive(Clone, Copy)]
pub(super) struct Fields<'a, 't> {
    pub(super) text: &'a str,
    pub(super) locator: Option<&'a str>,
    pub(super) at: usize,
    pub(super) table: &'a DeTable<'t>,
}

impl<'a, 't> Fields<'a, 't> {
    /// The table under `key`, named `locator`, if `key` holds a table.
    pub(super) fn table(&self, key: &str, locator: Option<&'a str>) -> Option<Fields<'a, 't>> {
        let (k, v) = self.table.get_key_value(key)?;
        let DeValue::Table(table) = v.get_ref() else {
            return None;
        };
        Some(Fields {
            locator,
            at: k.span().start,
            table,
            ..*self
        })
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Node<'t>> {
        self.table.get(key)
    }

    /// Each key, in the table's order, and its value.
    pub(super) fn entries(&self) -> impl Iterator<Item = (&'a str, &'a Node<'t>)> {
        self.table.iter().map(|(k, v)| (k.get_ref().as_ref(), v))
    }

    /// Where `key` is written; the table's header when it is absent.
    pub(super) fn at_key(&self, key: &str) -> usize {
        self.table
            .get_key_value(key)
            .map_or(self.at, |(k, _)| k.span().start)
    }

    /// The table `path` names below this one (`["inner"]` for the
    /// `[assertions.inner]` of an entry), as far as it is written.
    pub(super) fn below(&self, path: &[String]) -> Fields<'a, 't> {
        let mut fields = *self;
        for part in path {
            let Some((k, v)) = fields.table.get_key_value(part.as_str()) else {
                break;
            };
            fields.at = k.span().start;
            let DeValue::Table(inner) = v.get_ref() else {
                break;
            };
            fields.table = inner;
        }
        fields
    }

    /// Where `key` is written: the key, a dotted path into a table
    /// (`headers.api_key`), or the first key of that name in a table
    /// below; the table's header when it is none of these.
    pub(super) fn find(&self, key: &str) -> usize {
        find_key(self.table, key).unwrap_or(self.at)
    }

    /// A refusal of this table at byte `at` of the file.
    pub(super) fn refuse(
        &self,
        kind: LoadErrorKind,
        key: Option<&str>,
        at: usize,
        sentence: &str,
    ) -> LoadError {
        err(kind, self.locator, key, sentence).at(line_column(self.text, at))
    }

    /// `key`'s value refused, at `key`.
    pub(super) fn invalid(&self, key: &str, sentence: &str) -> LoadError {
        self.refuse(
            LoadErrorKind::Invalid,
            Some(key),
            self.at_key(key),
            sentence,
        )
    }

    /// `error` (built elsewhere) placed at byte `at`, if it is about this file.
    pub(super) fn place(&self, error: LoadError, at: usize) -> LoadError {
        if error.file == SUITE_FILE {
            error.at(line_column(self.text, at))
        } else {
            error
        }
    }

    /// Refuse (into `problems`) every key that is neither in `known` nor
    /// in `also` (keys a section refuses on its own), at the first of
    /// them; returns the known keys they were near misses of, which are
    /// then not also reported missing.
    pub(super) fn known<'k>(
        &self,
        known: &[&'k str],
        also: &[&str],
        owner: Option<&str>,
        noun: &str,
        problems: &mut Vec<LoadError>,
    ) -> Vec<&'k str> {
        let unknown: Vec<&str> = (self.entries().map(|(k, _)| k))
            .filter(|k| !known.contains(k) && !also.contains(k))
            .collect();
        if let Some(first) = unknown.first() {
            let sentence = unknown_sentence(owner, noun, &unknown, known);
            let at = self.at_key(first);
            problems.push(self.refuse(LoadErrorKind::Unknown, Some(first), at, &sentence));
        }
        unknown
            .iter()
            .filter_map(|k| did_you_mean(k, known))
            .collect()
    }

    /// The refusal naming every `required` key this table does not give,
    /// leaving out those a typo'd key stands for (`meant`): that typo is
    /// the one problem. `None` when nothing is missing.
    pub(super) fn missing(
        &self,
        required: &[&str],
        needer: &str,
        meant: &[&str],
    ) -> Option<LoadError> {
        let missing: Vec<&str> = (required.iter().copied())
            .filter(|k| self.get(k).is_none() && !meant.contains(k))
            .collect();
        let named: Vec<String> = missing.iter().map(|k| format!("`{k}`")).collect();
        Some(self.refuse(
            LoadErrorKind::Missing,
            Some(missing.first()?),
            self.at,
            &format!(
                "{needer} needs {}, which this table does not give it.",
                named.join(", ")
            ),
        ))
    }

    /// `key` read as `T`, if given; refused at `key` as
    /// "`` `key` is <what it is>, and <must> ``".
    pub(super) fn optional<T: FromToml>(
        &self,
        key: &str,
        must: &str,
    ) -> Result<Option<T>, LoadError> {
        self.bounded(key, must, |_: &T| true)
    }

    /// `key` read as `T` and accepted by `ok`, if given; a value of the
    /// shape that `ok` refuses is shown as written (`` `max_tokens` is 0 ``).
    pub(super) fn bounded<T: FromToml>(
        &self,
        key: &str,
        must: &str,
        ok: impl Fn(&T) -> bool,
    ) -> Result<Option<T>, LoadError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        match T::from_toml(value.get_ref()) {
            Ok(read) if ok(&read) => Ok(Some(read)),
            Ok(read) => Err(self.invalid(key, &format!("`{key}` is {}, and {must}", read.shown()))),
            Err(what) => Err(self.invalid(key, &format!("`{key}` is {what}, and {must}"))),
        }
    }
}

fn find_key(table: &DeTable<'_>, key: &str) -> Option<usize> {
    if let Some((k, _)) = table.get_key_value(key) {
        return Some(k.span().start);
    }
    fn inner<'a, 't>(v: &'a Node<'t>) -> Option<&'a DeTable<'t>> {
        match v.get_ref() {
            DeValue::Table(inner) => Some(inner),
            _ => None,
        }
    }
    let dotted = key
        .split_once('.')
        .and_then(|(head, rest)| find_key(table.get(head).and_then(inner)?, rest));
    dotted.or_else(|| {
        table
            .values()
            .filter_map(inner)
            .find_map(|t| find_key(t, key))
    })
}

/// "no such key `x`. Did you mean `y`?" for one unknown key (the
/// known ones listed when nothing is near), one line per near miss for
/// several.
pub(super) fn unknown_sentence(
    owner: Option<&str>,
    noun: &str,
    keys: &[&str],
    known: &[&str],
) -> String {
    let subject = match owner {
        Some(owner) => format!("`{owner}` has no"),
        None => "no such".to_string(),
    };
    if let [key] = keys {
        return match hint(key, known) {
            Some(h) => format!("{subject} {noun} `{key}`. {h}"),
            None if known.is_empty() => format!("{subject} {noun} `{key}`. It takes none at all."),
            None => format!(
                "{subject} {noun} `{key}`. Known {noun}s: {}",
                listing(known)
            ),
        };
    }
    let named: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    let mut lines = vec![format!("{subject} {noun}s {}.", named.join(", "))];
    let hints: Vec<String> = (keys.iter())
        .filter_map(|k| did_you_mean(k, known).map(|h| format!("  `{k}`: did you mean `{h}`?")))
        .collect();
    if hints.is_empty() {
        lines.push(format!("Known {noun}s: {}", listing(known)));
    }
    lines.extend(hints);
    lines.join("\n")
}

/// A value shape a key can be read as.
pub(super) trait FromToml: Sized {
    /// The value as this shape, or how a refusal names what it is
    /// instead (`a string`, `empty`).
    fn from_toml(value: &DeValue<'_>) -> Result<Self, String>;

    /// How a refusal shows a value of this shape that is out of range.
    fn shown(&self) -> String {
        String::new()
    }
}

impl FromToml for String {
    fn from_toml(value: &DeValue<'_>) -> Result<Self, String> {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| kind(value).to_string())
    }
}

impl FromToml for bool {
    fn from_toml(value: &DeValue<'_>) -> Result<Self, String> {
        value.as_bool().ok_or_else(|| kind(value).to_string())
    }
}

impl FromToml for i64 {
    fn from_toml(value: &DeValue<'_>) -> Result<Self, String> {
        value
            .as_integer()
            .map(integer)
            .ok_or_else(|| kind(value).to_string())
    }

    fn shown(&self) -> String {
        self.to_string()
    }
}

/// A string that is not empty; an empty one is shown as `empty`.
pub(super) struct NonEmpty(pub(super) String);

impl FromToml for NonEmpty {
    fn from_toml(value: &DeValue<'_>) -> Result<Self, String> {
        match value.as_str() {
            Some("") => Err("empty".to_string()),
            _ => String::from_toml(value).map(NonEmpty),
        }
    }
}

/// A number, integer or float, as written (`-1`, `0.5`, `NaN`).
#[derive(Clone, Copy)]
pub(super) struct Num {
    /// Its value.
    pub(super) x: f64,
    /// The integer, when it is written as one.
    pub(super) int: Option<i64>,
}

impl FromToml for Num {
    fn from_toml(value: &DeValue<'_>) -> Result<Self, String> {
        match value {
            DeValue::Integer(n) => Ok(Num {
                x: integer(n) as f64,
                int: Some(integer(n)),
            }),
            DeValue::Float(x) => Ok(Num {
                x: float(x),
                int: None,
            }),
            other => Err(kind(other).to_string()),
        }
    }

    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Num {
    /// Finite and at least `floor`.
    pub(super) fn at_least(&self, floor: f64) -> bool {
        self.x.is_finite() && self.x >= floor
    }

    /// Finite and above `floor`.
    pub(super) fn above(&self, floor: f64) -> bool {
        self.x.is_finite() && self.x > floor
    }

    /// As JSON, an integer kept one (`None` for NaN or an infinity).
    pub(super) fn json(&self) -> Option<serde_json::Number> {
        match self.int {
            Some(n) => Some(n.into()),
            None => serde_json::Number::from_f64(self.x),
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.int {
            Some(n) => write!(f, "{n}"),
            None => write!(f, "{}", self.x),
        }
    }
}
