//! Loading `suite.toml` + `cases.json`.
//!
//! (Skeleton: filled in by the suite loader work.)
