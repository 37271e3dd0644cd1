//! `run`: the driver — asks the target for every case, grades the answers
//! (judges included) and assembles the run document; the plan said before
//! the first call, the preflight that lists every problem at once, retries
//! and the pool's pace, and progress (as notices the front end prints); and `rejudge`, the same
//! grading over a stored run's recorded answers.
//!
//! May import `client`, `report`, `wire`, `store`, `core`; reads no
//! environment (the caller passes `created_at`, the commit, the version,
//! keys and endpoints). Spec `25-targets.md` (the driver).

pub mod budget;
pub mod driver;
pub mod journal;
pub mod memo;
pub mod merge;
pub mod notice;
pub mod plan;
pub mod preflight;
pub mod progress;
pub mod quota;
pub mod reask;
pub mod rejudge;
pub mod retry;
pub mod shared_quota;

pub use driver::{
    execute, execute_journaled, execute_spent, Ask, CostControls, Judge, NoJudges, RunContext,
    RunError,
};
pub use notice::{Notice, Notices, Notifier};
pub use plan::Plan;
pub use progress::Display;
pub use rejudge::{rejudge, RejudgeError, Replay};
pub use retry::RetryPolicy;
