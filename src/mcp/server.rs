//! The MCP handler: `initialize`, `tools/list`, `tools/call`, and the one
//! envelope every tool answers in.
//!
//! A tool's work runs on the blocking pool (it reads files and may call the
//! target). Its answer becomes a result in one place, [`envelope`]: the
//! response object as `structuredContent` with the CLI's exact `--json` text
//! beside it, or a tool error carrying digline's sentence. A panic is not
//! caught into either: the released binary aborts on a panic, so the panic
//! hook says it is a bug and the server exits 70; where panics unwind
//! (debug and test builds) it is a JSON-RPC internal error saying so.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use crate::wire::compare::print;

use super::calls::{self, Repository};
use super::refusal::Refusal;
use super::rules::INSTRUCTIONS;
use super::tools::{catalog, NAMES};

/// The server over one repository.
#[derive(Clone, Debug)]
pub struct DiglineServer {
    repo: Arc<Repository>,
}

impl DiglineServer {
    /// A server answering about `repo`.
    pub fn new(repo: Repository) -> DiglineServer {
        DiglineServer {
            repo: Arc::new(repo),
        }
    }
}

/// The one envelope: a response object, or a refusal as a tool error.
pub fn envelope(result: Result<Value, Refusal>) -> CallToolResult {
    match result {
        Ok(value) => {
            let mut answer = CallToolResult::structured(value);
            if let Some(value) = &answer.structured_content {
                answer.content = vec![ContentBlock::text(print(value))];
            }
            answer
        }
        Err(refusal) => CallToolResult::error(vec![ContentBlock::text(refusal.text())]),
    }
}

impl ServerHandler for DiglineServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("digline", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(catalog()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !NAMES.contains(&name.as_str()) {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named '{name}' on this server; it has {}",
                    NAMES.join(", ")
                ),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let repo = Arc::clone(&self.repo);
        let tool = name.clone();
        let answer =
            tokio::task::spawn_blocking(move || calls::call(&repo, &tool, &arguments)).await;
        match answer {
            Ok(Some(result)) => Ok(envelope(result).into()),
            Ok(None) => Err(ErrorData::invalid_params(
                format!("no tool named '{name}' on this server"),
                None,
            )),
            Err(_) => Err(ErrorData::internal_error(
                format!(
                    "digline hit an internal error in {name}. This is a bug in digline, not a verdict on the suite and not a refusal"
                ),
                None,
            )),
        }
    }
}
