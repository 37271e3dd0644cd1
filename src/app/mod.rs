//! `app`: the use cases — one file per thing a user asks for (gate, run,
//! compare, merge, promote, report, rejudge, list and diff, publish), each
//! taking a typed request and returning typed facts (and notices through
//! the run's [`crate::run::Notifier`]).
//!
//! Nothing here prints, exits the process or knows a clap or JSON-RPC type:
//! `cli` parses flags into a request and renders the facts; `mcp` parses
//! JSON-RPC into the same request and renders the same facts, so the two
//! front ends answer from one piece of code. A refusal is a typed
//! [`Refusal`] (its facts, its hint as data), worded by each front end.
//! May import every layer below (`forge` and down); never `cli` or `mcp`.

pub mod compare;
pub mod gate;
pub mod history;
pub mod list;
pub mod merge;
pub mod promote;
pub mod publish;
pub mod refusal;
pub mod rejudge;
pub mod report;
pub mod run;
pub mod suite;

pub use refusal::Refusal;
pub use suite::SuiteRef;

/// Hand large read-only data (two 10,000-case documents are ≈400,000 small
/// allocations) to the process exit instead of freeing it piece by piece:
/// a command returns and the process ends right after, so freeing would
/// only cost time (≈20–40% of `compare` at 10,000 cases). Only for the
/// last values a one-shot command uses; never inside a long-lived server
/// (MCP), which never takes the paths that call it.
pub fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}
