//! The one integration test binary: digline driven as a user drives it.
//!
//! Each module is one concern; `util` holds the helpers (temp dirs, the
//! binary, the loopback stub).

mod agreement;
mod anchors;
mod boundary;
mod checks;
mod cost;
mod delivery;
mod docs;
mod documents;
mod examples;
mod exits;
mod fake_llm;
mod fault_server;
mod faults;
mod fixtures;
mod forges;
mod fuzz_replay;
mod gate;
mod help;
mod history;
mod integrity;
mod interop;
mod judgebench;
mod layering;
mod lifecycle;
mod mcp;
mod noisy;
mod nothing_lost;
mod pacing;
mod providers;
mod quickstart;
mod refusals;
mod rejudge;
mod report;
mod sampled;
mod secrets;
mod shards;
mod slice;
mod spend;
mod surfaces;
mod trust;
mod util;
mod verdict_files;
