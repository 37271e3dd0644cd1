//! The terminal text of `compare`: headline sentence and per-check lines.
//!
//! (Skeleton: filled in by the comparison work.)
