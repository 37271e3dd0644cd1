//! `digline mcp`: start the MCP server on stdio (spec `70-mcp.md`).
//!
//! A thin command: the flags, then the server the binary hands in. The two
//! front ends never import each other, so `main.rs` — above both — passes
//! `mcp::serve` to [`super::main`] as an [`McpServer`]. Exit 0 when the
//! client closes the session; 64 when the server cannot start.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CliError, ExitStatus};

/// The server `digline mcp` starts: `(root, --tenant, --env)`, returning
/// when the session ends, or the sentence saying why it could not start.
pub type McpServer = fn(&Path, Option<&str>, Option<&str>) -> Result<(), String>;

/// Flags of `digline mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The repository the server serves (holding .digline/); suites are paths inside it.
    #[arg(long, value_name = "DIR")]
    pub root: PathBuf,
    /// Verify each suite's tenant (never overrides it).
    #[arg(long)]
    pub tenant: Option<String>,
    /// Verify each suite's environment (never overrides it).
    #[arg(long = "env", value_name = "ENV")]
    pub environment: Option<String>,
}

/// Execute `digline mcp` with `server`.
///
/// # Errors
/// [`CliError::Refused`] (exit 64) when the server cannot start.
pub fn execute(args: McpArgs, server: McpServer) -> Result<ExitStatus, CliError> {
    server(
        &args.root,
        args.tenant.as_deref(),
        args.environment.as_deref(),
    )
    .map_err(CliError::Refused)?;
    Ok(ExitStatus::Proceed)
}
