//! `wire`: every machine-readable shape digline prints (`--json`).
//!
//! Pure: no I/O, no clock. Never carries payload (outputs, reasons, vars,
//! metadata). May import `store` and `core` only.

pub mod compare;
pub mod diff;

/// The version shared by every `--json` shape (see [`compare::OUTPUT_VERSION`]).
pub use compare::OUTPUT_VERSION;
