//! The per-run checks of digline 0.10.0 (`precision`, `recall`,
//! `accuracy`, `f1`): their catalogue rows, from which their identity
//! payloads are made. They judge the whole run, not one answer, so they
//! build no per-case grader: `core::aggregate` declares and computes them.

use super::catalogue::{derive_nothing, derived, field, no_walls, Build, Def, Field, Kind};

/// The fields every aggregate shares, its name's default apart.
macro_rules! aggregate_fields {
    ($name:literal) => {
        &[
            field("over", Def::Mandatory),
            field("threshold", Def::Mandatory),
            field("tolerance", Def::Mandatory),
            field("name", Def::Str($name)),
            field("by_group", Def::Bool(false)),
            derived("group", Def::Null),
        ]
    };
}

const fn aggregate(token: &'static str, class: &'static str, fields: &'static [Field]) -> Kind {
    Kind {
        token,
        class,
        per_run: true,
        fields,
        walls: no_walls,
        derive: derive_nothing,
        build: Build::NotYet,
    }
}

/// The catalogue row of `accuracy`.
pub const ACCURACY: Kind = aggregate("accuracy", "Accuracy", aggregate_fields!("accuracy"));
/// The catalogue row of `f1`.
pub const F1: Kind = aggregate("f1", "F1", aggregate_fields!("f1"));
/// The catalogue row of `precision`.
pub const PRECISION: Kind = aggregate("precision", "Precision", aggregate_fields!("precision"));
/// The catalogue row of `recall`.
pub const RECALL: Kind = aggregate("recall", "Recall", aggregate_fields!("recall"));
