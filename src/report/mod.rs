//! `report`: what people read — terminal text (and later the markdown
//! comment and the HTML report).
//!
//! Pure renderers: no I/O, no clock. May import `store` and `core` only.

pub mod diff;
pub mod text;
