//! Why an `[[assertions]]` entry could not become a check: the typed error
//! every check file's parameter validation returns, and its sentence
//! (without a location: the loader adds file, entry and near miss).

/// Why an `[[assertions]]` entry could not become a check. The loader adds
/// the location (file, entry) and the near-miss hint.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildError {
    /// What went wrong.
    pub kind: BuildErrorKind,
    /// Where inside the entry, outermost first: `["inner"]` for an error in
    /// `[assertions.inner]` of a `repeated`; empty at the entry itself.
    pub within: Vec<String>,
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
    pub(super) fn new(kind: BuildErrorKind) -> BuildError {
        BuildError {
            kind,
            within: Vec::new(),
        }
    }

    pub(super) fn invalid(token: &str, key: &str, message: String) -> BuildError {
        BuildError::new(BuildErrorKind::Invalid {
            token: token.to_string(),
            key: Some(key.to_string()),
            message,
        })
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
            BuildErrorKind::PythonOnly { message } => f.write_str(message),
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
