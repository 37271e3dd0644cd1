//! `host`: the edge with the outside world.
//!
//! The only layer that reads the clock, git, environment variables and
//! suite files. Loads `suite.toml` + `cases.json` into a `core::suite::Suite`
//! and a target spec, refusing bad input with located sentences
//! ([`suite::errors::LoadError`]). May import `run`, `client`, `report`,
//! `wire`, `store`, `core`; never the front ends.

pub mod allowed_hosts;
pub mod artifacts;
pub mod base_ref;
pub mod ci_tokens;
pub mod clock;
pub mod crlf;
pub mod endpoints;
pub mod env;
pub mod git;
pub mod git_objects;
pub mod logging;
pub mod memory;
pub mod near_miss;
pub mod runner;
pub mod shards;
pub mod signals;
pub mod suite;
pub mod trust;
pub mod visible;
