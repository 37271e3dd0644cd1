//! Why an `[[assertions]]` entry could not become a check: the typed error
//! every check file's parameter validation returns, and its sentence
//! (without a location: the loader adds file, entry and near miss).
//!
//! One entry can have several independent problems (an unknown key, a
//! `threshold` that is not a number, an empty `needle`): [`Problems`]
//! collects them in validation order, and the [`BuildError`] it gives is
//! the first carrying the others, one refusal each ([`BuildError::problems`]).
//! A problem that follows from one already noted is dropped: a key is
//! blamed once, and while the entry has an unknown key (perhaps the
//! misspelling of a missing one) nothing is said about keys it does not give.

/// Why an `[[assertions]]` entry could not become a check. The loader adds
/// the location (file, entry) and the near-miss hint.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildError {
    /// What went wrong.
    pub kind: BuildErrorKind,
    /// Where inside the entry, outermost first: `["inner"]` for an error in
    /// `[assertions.inner]` of a `repeated`; empty at the entry itself.
    pub within: Vec<String>,
    /// The entry's other independent problems, in validation order (flat:
    /// none of them carries further ones; a slice keeps the error small).
    further: Box<[BuildError]>,
}

/// The kinds of [`BuildError`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BuildErrorKind {
    /// Keys the check does not take; `known` lists the keys it does take.
    UnknownParameters {
        /// The check's token (the owner in the message).
        token: String,
        /// The unknown keys, in file order.
        keys: Vec<String>,
        /// Every parameter the check takes, sorted.
        known: Vec<String>,
    },
    /// Mandatory parameters the entry does not give.
    MissingParameters {
        /// The check's token.
        token: String,
        /// The missing keys.
        keys: Vec<String>,
    },
    /// A parameter has a value the check refuses; `message` is a full sentence.
    Invalid {
        /// The check's token.
        token: String,
        /// The parameter, when one is to blame.
        key: Option<String>,
        /// What is wrong and what would be right.
        message: String,
    },
    /// No check has this `type`.
    UnknownType {
        /// The token as written.
        token: String,
    },
    /// A check digline knows but this release does not run yet.
    NotBuiltYet {
        /// The token.
        token: String,
    },
    /// Something only a Python suite can express; `message` names the wall.
    PythonOnly {
        /// The parameter that holds it, when one does.
        key: Option<String>,
        /// The full sentence.
        message: String,
    },
    /// A nested check (`[assertions.inner]`) has no `type`.
    MissingType,
    /// A `type` that is not a string; `found` describes what it is.
    TypeNotAName {
        /// `an integer`, `a table` …
        found: String,
    },
}

impl BuildError {
    pub(crate) fn new(kind: BuildErrorKind) -> BuildError {
        BuildError {
            kind,
            within: Vec::new(),
            further: Box::default(),
        }
    }

    pub(crate) fn invalid(token: &str, key: &str, message: String) -> BuildError {
        BuildError::new(BuildErrorKind::Invalid {
            token: token.to_string(),
            key: Some(key.to_string()),
            message,
        })
    }

    /// This problem and the entry's further ones, in validation order.
    pub fn problems(&self) -> impl Iterator<Item = &BuildError> {
        std::iter::once(self).chain(self.further.iter())
    }

    /// The same problems one level further in: inside `[<part>]` of the entry.
    pub(crate) fn inside(mut self, part: &str) -> BuildError {
        self.within.insert(0, part.to_string());
        self.further = std::mem::take(&mut self.further)
            .into_vec()
            .into_iter()
            .map(|e| e.inside(part))
            .collect();
        self
    }

    /// True when one of the entry's problems is about parameter `key` at
    /// the entry itself (not inside `[inner]`).
    pub fn blames(&self, key: &str) -> bool {
        self.problems()
            .any(|p| p.within.is_empty() && p.keys().contains(&key))
    }

    /// The parameters this problem is about (`type` for the check's type).
    fn keys(&self) -> Vec<&str> {
        match &self.kind {
            BuildErrorKind::MissingParameters { keys, .. } => {
                keys.iter().map(String::as_str).collect()
            }
            BuildErrorKind::Invalid { key, .. } | BuildErrorKind::PythonOnly { key, .. } => {
                key.iter().map(String::as_str).collect()
            }
            BuildErrorKind::UnknownType { .. }
            | BuildErrorKind::MissingType
            | BuildErrorKind::TypeNotAName { .. } => vec!["type"],
            _ => Vec::new(),
        }
    }
}

/// The independent problems of one entry, collected in validation order
/// (see the module doc for what is dropped as a consequence).
#[derive(Debug, Default)]
pub(crate) struct Problems {
    found: Vec<BuildError>,
}

impl Problems {
    /// Keep `result`'s value, or note its problems.
    pub(crate) fn note<T>(&mut self, result: Result<T, BuildError>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    /// Note `error` and the further problems it carries.
    pub(crate) fn push(&mut self, mut error: BuildError) {
        let further = std::mem::take(&mut error.further).into_vec();
        for problem in std::iter::once(error).chain(further) {
            let blamed = |p: &BuildError| {
                p.within == problem.within && p.keys().iter().any(|k| problem.keys().contains(k))
            };
            if !self.found.contains(&problem) && !self.found.iter().any(blamed) {
                self.found.push(problem);
            }
        }
    }

    /// [`Problems::finish`], then `value`: a value left out (`None`) always
    /// noted the problem that left it out.
    pub(crate) fn give<T>(
        self,
        params: &super::catalogue::Params,
        value: Option<T>,
    ) -> Result<T, BuildError> {
        self.finish(params)?;
        match value {
            Some(value) => Ok(value),
            None => unreachable!("every value that is missing noted a problem"),
        }
    }

    /// `Ok` when nothing was noted, else the first problem carrying the
    /// others. `params` are the entry's keys: while it has an unknown key,
    /// a problem about a key it does not give is dropped (the unknown key
    /// may be that one, misspelled).
    pub(crate) fn finish(self, params: &super::catalogue::Params) -> Result<(), BuildError> {
        let misspelt = self.found.iter().any(|p| {
            p.within.is_empty() && matches!(p.kind, BuildErrorKind::UnknownParameters { .. })
        });
        let mut kept = self.found.into_iter().filter(|p| {
            !(misspelt
                && p.within.is_empty()
                && p.keys()
                    .iter()
                    .any(|k| *k != "type" && !params.contains_key(*k)))
        });
        match kept.next() {
            None => Ok(()),
            Some(mut first) => {
                first.further = kept.collect();
                Err(first)
            }
        }
    }
}

impl std::fmt::Display for BuildError {
    /// The sentence without a location (the loader prefixes file and entry).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            BuildErrorKind::UnknownParameters { token, keys, .. } => {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                write!(f, "`{token}` has no parameter {}.", keys.join(", "))
            }
            BuildErrorKind::MissingParameters { token, keys } => {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                write!(
                    f,
                    "`{token}` needs {}, which this entry does not give it.",
                    keys.join(", ")
                )
            }
            BuildErrorKind::Invalid { token, message, .. } => write!(f, "`{token}`: {message}"),
            BuildErrorKind::UnknownType { token } => {
                write!(f, "there is no check called `{token}`.")
            }
            BuildErrorKind::NotBuiltYet { token } => write!(
                f,
                "`{token}` is a digline check that this release does not run yet. \
                 Remove it, or run this suite with a release that has it."
            ),
            BuildErrorKind::PythonOnly { message, .. } => f.write_str(message),
            BuildErrorKind::MissingType => {
                f.write_str("no `type`, so nothing says which check this is.")
            }
            BuildErrorKind::TypeNotAName { found } => {
                write!(
                    f,
                    "`type` is {found}, and it has to be the name of a check."
                )
            }
        }
    }
}
