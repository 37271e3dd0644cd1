//! What a check type is: its catalogue row (digline 0.10.0's class name
//! and fields with their defaults), its identity hooks, how its parameters
//! are validated, and the [`Grader`] its validated parameters become.
//!
//! Every check file (`contains.rs`, `length.rs` …) declares one [`Kind`]
//! per token it owns; `registry` lists them all. Nothing here dispatches
//! on a check type: the registry and the judging code only call through a
//! [`Kind`]'s function pointers and a [`Grader`]'s methods.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::declared::DeclaredCheck;
pub use super::declared::{Grader, JudgeKind, Judged, Repetition};
use super::error::BuildError;

/// The keys of one `[[assertions]]` entry except `type`, TOML integers and
/// floats kept apart.
pub type Params = Map<String, Value>;

/// Output kinds as declared in `accepts`: all three.
pub const ALL_KINDS: &[&str] = &["conversation", "structured", "text"];
/// Output kinds as declared in `accepts`: text only.
pub const TEXT: &[&str] = &["text"];

/// A field's default, as digline 0.10.0 declares it.
#[derive(Clone, Copy, Debug)]
pub enum Def {
    /// No default: the suite must give it.
    Mandatory,
    /// `None`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(&'static str),
    /// A float (thresholds, tolerances).
    Float(f64),
    /// A set of output kinds.
    Kinds(&'static [&'static str]),
    /// The shipped PII pattern set.
    PiiPatterns,
}

/// One dataclass field: name, default, settable from a suite (`init=True`).
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The field's name (a key of the entry when settable).
    pub name: &'static str,
    /// Its default.
    pub def: Def,
    /// Whether a suite may set it.
    pub settable: bool,
}

/// A field a suite may set.
pub const fn field(name: &'static str, def: Def) -> Field {
    Field {
        name,
        def,
        settable: true,
    }
}

/// A field 0.10.0 fills in itself (`init=False`).
pub const fn derived(name: &'static str, def: Def) -> Field {
    Field {
        name,
        def,
        settable: false,
    }
}

/// How a check type's parameters become a runnable check.
#[derive(Clone, Copy)]
pub enum Build {
    /// A 0.10.0 check this release does not run yet.
    NotYet,
    /// The parameters become a [`Grader`]; name, threshold, tolerance and
    /// accepts are read the common way (`registry`).
    Grader(fn(&Params) -> Result<Arc<dyn Grader>, BuildError>),
    /// The check declares itself whole, from the entry and its identity
    /// payload (`repeated` takes name, threshold and accepts from its inner
    /// check).
    Whole(fn(&Params, Value) -> Result<DeclaredCheck, BuildError>),
}

/// One check type of the catalogue.
#[derive(Clone, Copy)]
pub struct Kind {
    /// The `type` token (`contains`).
    pub token: &'static str,
    /// 0.10.0's class name (`Contains`), the identity payload's `__type__`.
    pub class: &'static str,
    /// A per-run (aggregate) check: identity also drops `by_group`/`group`.
    pub per_run: bool,
    /// The dataclass fields in declaration order.
    pub fields: &'static [Field],
    /// Refusals that come before the missing-parameter check: what only a
    /// suite.py can express, and a nested check's own refusals.
    pub walls: fn(&Params) -> Result<(), BuildError>,
    /// Identity fields derived from others once defaults are filled in
    /// (`affix`'s name, `repeated`'s inner check).
    pub derive: fn(&mut Map<String, Value>, &Params) -> Result<(), BuildError>,
    /// Parameter validation.
    pub build: Build,
}

/// The catalogue row of a per-case check with no walls and nothing
/// derived; a check that has either sets it with `..per_case(…)`.
pub const fn per_case(
    token: &'static str,
    class: &'static str,
    fields: &'static [Field],
    build: Build,
) -> Kind {
    Kind {
        token,
        class,
        per_run: false,
        fields,
        walls: no_walls,
        derive: derive_nothing,
        build,
    }
}

/// The fields of an ordinary per-case check, in 0.10.0's order: its own
/// fields, then `name` (its default), `threshold` (its default),
/// `tolerance` (0.0) and `accepts` (its default kinds).
macro_rules! per_case_fields {
    ([$($own:expr),* $(,)?], $name:literal, $threshold:literal, $accepts:expr) => {
        &[
            $($own,)*
            $crate::core::checks::catalogue::field(
                "name",
                $crate::core::checks::catalogue::Def::Str($name),
            ),
            $crate::core::checks::catalogue::field(
                "threshold",
                $crate::core::checks::catalogue::Def::Float($threshold),
            ),
            $crate::core::checks::catalogue::field(
                "tolerance",
                $crate::core::checks::catalogue::Def::Float(0.0),
            ),
            $crate::core::checks::catalogue::field(
                "accepts",
                $crate::core::checks::catalogue::Def::Kinds($accepts),
            ),
        ]
    };
}
pub(crate) use per_case_fields;

/// [`Kind::walls`] for a check with none.
pub fn no_walls(_: &Params) -> Result<(), BuildError> {
    Ok(())
}

/// [`Kind::derive`] for a check that derives nothing.
pub fn derive_nothing(_: &mut Map<String, Value>, _: &Params) -> Result<(), BuildError> {
    Ok(())
}
