//! Loading `cases.json`.
