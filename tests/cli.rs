//! The one integration test binary: digline driven as a user drives it.
//!
//! Each module is one concern; `util` holds the helpers (temp dirs, the
//! binary, the loopback stub).

#[path = "cli/boundary.rs"]
mod boundary;
#[path = "cli/checks.rs"]
mod checks;
#[path = "cli/delivery.rs"]
mod delivery;
#[path = "cli/docs.rs"]
mod docs;
#[path = "cli/documents.rs"]
mod documents;
#[path = "cli/examples.rs"]
mod examples;
#[path = "cli/exits.rs"]
mod exits;
#[path = "cli/fake_llm.rs"]
mod fake_llm;
#[path = "cli/fault_server.rs"]
mod fault_server;
#[path = "cli/faults.rs"]
mod faults;
#[path = "cli/forges.rs"]
mod forges;
#[path = "cli/fuzz_replay.rs"]
mod fuzz_replay;
#[path = "cli/gate.rs"]
mod gate;
#[path = "cli/help.rs"]
mod help;
#[path = "cli/integrity.rs"]
mod integrity;
#[path = "cli/interop.rs"]
mod interop;
#[path = "cli/layering.rs"]
mod layering;
#[path = "cli/lifecycle.rs"]
mod lifecycle;
#[path = "cli/mcp.rs"]
mod mcp;
#[path = "cli/nothing_lost.rs"]
mod nothing_lost;
#[path = "cli/pacing.rs"]
mod pacing;
#[path = "cli/providers.rs"]
mod providers;
#[path = "cli/quickstart.rs"]
mod quickstart;
#[path = "cli/refusals.rs"]
mod refusals;
#[path = "cli/rejudge.rs"]
mod rejudge;
#[path = "cli/report.rs"]
mod report;
#[path = "cli/sampled.rs"]
mod sampled;
#[path = "cli/secrets.rs"]
mod secrets;
#[path = "cli/slice.rs"]
mod slice;
#[path = "cli/surfaces.rs"]
mod surfaces;
#[path = "cli/util.rs"]
mod util;
