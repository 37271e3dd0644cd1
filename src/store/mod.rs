//! `store`: `.digline/` — layout, run documents, baselines, promotion.
//!
//! Owns every file under `.digline/`: names, atomic writes, the strict
//! schema-10 reader and writer. May import `core` only.
