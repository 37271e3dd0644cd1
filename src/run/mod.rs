//! `run`: the driver — asks the target for every case and sample, grades
//! the answers and assembles the run document.
//!
//! May import `target`, `report`, `wire`, `store`, `core`; reads no clock
//! or environment (the caller passes `created_at`).
