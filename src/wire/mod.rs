//! `wire`: every machine-readable shape digline prints (`--json`) and every
//! MCP response — one function per shape, two front ends.
//!
//! Pure: no I/O, no clock. Never carries payload (outputs, reasons, vars,
//! metadata). May import `store` and `core` only.

pub mod compare;
pub mod diff;
pub mod list;
pub mod projection;
pub mod run;

/// The version shared by every `--json` shape (see [`compare::OUTPUT_VERSION`]).
pub use compare::OUTPUT_VERSION;
