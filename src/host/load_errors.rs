//! Load errors: located sentences for bad suite and cases files.
//!
//! Every refusal while loading names the file (`suite.toml`, `cases.json`,
//! by name only), the entry (`[suite]`, `[target]`, `[[assertions]] #2`,
//! `#4` of the cases file, 1-based), the key when one is to blame, and the
//! near miss when there is one. A load error always means exit 64, before
//! any call to the target. Spec `10-suite.md` "Errors are the feature".

use std::fmt;

/// What kind of refusal a [`LoadError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadErrorKind {
    /// A file could not be read, or is not UTF-8.
    Read,
    /// A file is not valid TOML / JSON, or holds a duplicate key or NaN.
    Syntax,
    /// A key, field, table or check type nobody knows.
    Unknown,
    /// Something mandatory is absent.
    Missing,
    /// A value is refused (wrong type, out of range, duplicate id …).
    Invalid,
    /// A check digline knows but this release does not run yet, or a
    /// target form not built yet.
    NotBuiltYet,
    /// Something only a Python suite can express; the sentence names the wall.
    PythonOnly,
    /// A credential written into the suite file.
    Credential,
    /// A path that leaves the repository root.
    Perimeter,
    /// A `${NAME}` a header names is not set in the environment.
    Environment,
}

/// A refusal while loading a suite: always exit 64, before any call.
///
/// `message` is the full located sentence, e.g.
/// ``suite.toml, [[assertions]] #2: `contains` has no parameter `treshold`. Did you mean `threshold`?``.
/// It may quote keys, types and parameters, never case vars, metadata or
/// expected values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// What went wrong, for callers that branch on it.
    pub kind: LoadErrorKind,
    /// The file's name only (`suite.toml`, `cases.json`), or the flag at fault.
    pub file: String,
    /// The entry inside the file (`[suite]`, `[[assertions]] #2, [inner]`,
    /// `#4` for a case), when the error is inside one.
    pub locator: Option<String>,
    /// The key, field or parameter to blame, when there is one.
    pub key: Option<String>,
    /// The full located sentence (`suite.toml, [[assertions]] #2: …`).
    pub message: String,
}

impl LoadError {
    /// Build a located error: `message` becomes `"<file>, <locator>: <sentence>"`
    /// (`"<file> #N: …"` for a locator starting with `#`, `"<file>: …"` without one).
    pub fn new(
        kind: LoadErrorKind,
        file: &str,
        locator: Option<&str>,
        key: Option<&str>,
        sentence: &str,
    ) -> LoadError {
        let place = match locator {
            Some(loc) if loc.starts_with('#') => format!("{file} {loc}"),
            Some(loc) => format!("{file}, {loc}"),
            None => file.to_string(),
        };
        LoadError {
            kind,
            file: file.to_string(),
            locator: locator.map(str::to_string),
            key: key.map(str::to_string),
            message: format!("{place}: {sentence}"),
        }
    }
}

impl LoadError {
    /// The same error about a file called `name` instead of `self.file`
    /// (the loader locates errors in `suite.toml`; the user's file may be
    /// called `support-suite.toml`).
    pub fn in_file(mut self, name: &str) -> LoadError {
        if self.file != name {
            if let Some(rest) = self.message.strip_prefix(self.file.as_str()) {
                self.message = format!("{name}{rest}");
            }
            self.file = name.to_string();
        }
        self
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_file_as_the_user_called_it() {
        let err = LoadError::new(
            LoadErrorKind::Invalid,
            "suite.toml",
            Some("[suite]"),
            None,
            "bad",
        )
        .in_file("support.toml");
        assert_eq!(err.message, "support.toml, [suite]: bad");
        assert_eq!(err.file, "support.toml");
        let same = LoadError::new(LoadErrorKind::Invalid, "cases.json", None, None, "bad");
        assert_eq!(same.clone().in_file("cases.json"), same);
    }

    #[test]
    fn the_sentence_names_file_and_entry() {
        let table: &[(Option<&str>, &str)] = &[
            (Some("[suite]"), "suite.toml, [suite]: bad"),
            (
                Some("[[assertions]] #2"),
                "suite.toml, [[assertions]] #2: bad",
            ),
            (Some("#4"), "suite.toml #4: bad"),
            (None, "suite.toml: bad"),
        ];
        for (locator, want) in table {
            let err = LoadError::new(LoadErrorKind::Invalid, "suite.toml", *locator, None, "bad");
            assert_eq!(err.to_string(), *want);
            assert_eq!(err.file, "suite.toml");
        }
    }
}
