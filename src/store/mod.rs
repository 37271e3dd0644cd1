//! `store`: `.digline/` — layout, run documents, baselines, promotion.
//!
//! Owns every file under `.digline/`: safe names, atomic writes, the strict
//! schema-10 reader and the Python-compatible writer, finding runs, and the
//! promotion rules. May import `core` only. Design record: ADR 0014
//! (`shared/seeds/001_*`); spec `30-documents.md`.

pub mod atomic;
pub mod document;
pub mod error;
pub mod history;
pub mod journal;
pub mod masked;
pub mod memo;
pub mod migrate;
pub mod promote;
pub mod reasks;
pub mod repo;
pub mod reruns;
pub mod sealed;
pub mod spend;
pub mod timings;

pub use error::StoreError;
pub use repo::Store;
pub use sealed::Vouch;
