//! Load errors: located sentences for bad suite and cases files.
//!
//! Every refusal while loading names the file (`suite.toml`, `cases.json`,
//! by name only), the entry (`[suite]`, `[target]`, `[[assertions]] #2`,
//! `#4` of the cases file, 1-based), the key when one is to blame, and the
//! near miss when there is one, and the place in the file as
//! `file:line:column` ([`super::located`]). A suite with several independent
//! problems gets them all in one [`LoadError`]: the first (in digline
//! 0.10.0's order, so the same one 0.10.0 named) and the `further` ones,
//! one per line. A load error always means exit 64, before any call to the
//! target. Spec `10-suite.md` "Errors are the feature".

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
    /// The full located sentence (`suite.toml:12:1, [[assertions]] #2: …`).
    pub message: String,
    /// The place and the further problems, when there are any (boxed: an
    /// error stays small on the happy path's `Result`).
    extra: Option<Box<Extra>>,
}

/// What a [`LoadError`] knows beyond its sentence.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Extra {
    /// Where in the file (1-based line and column).
    line_column: Option<(usize, usize)>,
    /// The other independent problems of the same files, in load order.
    further: Vec<LoadError>,
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
            extra: None,
        }
    }

    /// Where in its file the problem is (1-based line and column), once placed.
    pub fn line_column(&self) -> Option<(usize, usize)> {
        self.extra.as_ref().and_then(|e| e.line_column)
    }

    /// The other independent problems reported with this one, in load order.
    pub fn further(&self) -> &[LoadError] {
        self.extra.as_ref().map_or(&[], |e| e.further.as_slice())
    }

    /// Take the further problems out (to place or rename each one).
    pub(crate) fn take_further(&mut self) -> Vec<LoadError> {
        self.extra
            .as_mut()
            .map(|e| std::mem::take(&mut e.further))
            .unwrap_or_default()
    }

    /// Set the further problems.
    pub(crate) fn set_further(&mut self, further: Vec<LoadError>) {
        if !further.is_empty() || self.extra.is_some() {
            self.extra.get_or_insert_with(Box::default).further = further;
        }
    }

    /// The same error placed at `line:column` of its file: the message
    /// starts `file:line:column` (`suite.toml:12:3, [[assertions]] #2: …`).
    pub fn at(mut self, (line, column): (usize, usize)) -> LoadError {
        if self.line_column().is_none() {
            if let Some(rest) = self.message.strip_prefix(self.file.as_str()) {
                self.message = format!("{}:{line}:{column}{rest}", self.file);
            }
            self.extra.get_or_insert_with(Box::default).line_column = Some((line, column));
        }
        self
    }

    /// The first of `problems` carrying the others as `further`, each
    /// problem's own further ones right after it (flat, in order); `None`
    /// when there is no problem.
    pub fn all(problems: Vec<LoadError>) -> Option<LoadError> {
        let mut flat = problems.into_iter().flat_map(|mut problem| {
            let further = problem.take_further();
            std::iter::once(problem).chain(further)
        });
        let mut first = flat.next()?;
        first.set_further(flat.collect());
        Some(first)
    }

    /// This error and its further ones, in order.
    pub fn problems(&self) -> impl Iterator<Item = &LoadError> {
        std::iter::once(self).chain(self.further().iter())
    }
}

impl LoadError {
    /// The same error about a file called `name` instead of `self.file`
    /// (the loader locates errors in `suite.toml`; the user's file may be
    /// called `support-suite.toml`).
    pub fn in_file(mut self, name: &str) -> LoadError {
        let from = self.file.clone();
        let further = self
            .take_further()
            .into_iter()
            .map(|e| if e.file == from { e.in_file(name) } else { e })
            .collect();
        self.set_further(further);
        if self.file != name {
            if let Some(rest) = self.message.strip_prefix(self.file.as_str()) {
                self.message = format!("{name}{rest}");
            }
            self.file = name.to_string();
        }
        self
    }
}

/// The first problem's sentence, then each further one on a line of its own.
impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for further in self.further() {
            write!(f, "\n{}", further.message)?;
        }
        Ok(())
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
    fn several_problems_print_one_per_line_each_at_its_place() {
        let one = LoadError::new(
            LoadErrorKind::Unknown,
            "suite.toml",
            Some("[suite]"),
            None,
            "a",
        )
        .at((7, 1));
        let two = LoadError::new(LoadErrorKind::Invalid, "suite.toml", Some("#2"), None, "b");
        let three =
            LoadError::new(LoadErrorKind::Invalid, "cases.json", Some("#2"), None, "c").at((3, 4));
        let all = LoadError::all(vec![one, two.at((12, 3)), three])
            .unwrap()
            .in_file("support.toml");
        assert_eq!(
            all.to_string(),
            "support.toml:7:1, [suite]: a\nsupport.toml:12:3 #2: b\ncases.json:3:4 #2: c"
        );
        assert_eq!(all.problems().count(), 3);
        // A problem that carries its own further ones keeps them, in order.
        let inner = |s: &str| LoadError::new(LoadErrorKind::Invalid, "suite.toml", None, None, s);
        let nested = LoadError::all(vec![inner("b"), inner("c")]).unwrap();
        let flat = LoadError::all(vec![inner("a"), nested, inner("d")]).unwrap();
        assert_eq!(
            flat.to_string(),
            "suite.toml: a\nsuite.toml: b\nsuite.toml: c\nsuite.toml: d"
        );
        assert_eq!(all.line_column(), Some((7, 1)));
        assert!(LoadError::all(Vec::new()).is_none());
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
