//! `mcp`: the MCP server front end (`digline mcp`) — the agent surface that
//! reads and measures and cannot promote.
//!
//! Stdio only, one repository per process, no listening socket. Exactly six
//! tools ([`tools::NAMES`]); promotion, migration and the HTML report are
//! absent from this module, not refused (ADR 0011 §1,
//! `shared/seeds/000_*`; spec `70-mcp.md`). Responses are built by the
//! same `wire` functions as the CLI's `--json`. May import every layer
//! below the front ends; never `cli`.

use std::path::{Path, PathBuf};

use rmcp::ServiceExt;

pub mod calls;
pub mod framing;
pub mod refusal;
pub mod rules;
pub mod server;
pub mod tools;

/// Serve the repository at `root` on stdin/stdout until the client closes
/// stdin. `tenant` and `environment` verify each suite; they never override.
///
/// # Errors
/// The sentence when the server cannot start (`root` is not a directory,
/// no runtime) or the transport fails.
pub fn serve(root: &Path, tenant: Option<&str>, environment: Option<&str>) -> Result<(), String> {
    let mut repo = calls::repository(root, tenant, environment).map_err(|r| r.text())?;
    // One repository per process: the server works from inside it, so
    // paths in its sentences read as the CLI's do when run from the root.
    std::env::set_current_dir(&repo.root)
        .map_err(|e| format!("--root {} cannot be entered: {e}", root.display()))?;
    repo.base = PathBuf::from(".");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the MCP server cannot start: {e}"))?;
    runtime.block_on(async move {
        let service = server::DiglineServer::new(repo)
            .serve(framing::Framing::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
            ))
            .await
            .map_err(|e| format!("the MCP session did not start: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| format!("the MCP session ended abnormally: {e}"))?;
        Ok(())
    })
}
