//! `client`: the clients that ask the system under test (the target) and the judges.
//!
//! Owns the HTTP target, the model providers (Anthropic, OpenAI), the LLM
//! judges, prompt templates and price tables: building a request, calling,
//! reading the answer, and turning every failure into a one-line cause that
//! names the endpoint by host:port only (a [`failure::Failure`], which says
//! whether another attempt could help). May import `core`, `wire`,
//! `report`, `store`; never `run`, `host`, `forge` or the front ends.
//! Reads no environment variable: header secrets, API keys and base URLs
//! arrive from `host`.

pub mod failure;
pub mod http;
pub mod judge;
pub mod mask;
pub mod pricing;
pub mod provider;
pub mod rate_limits;
pub mod template;
pub mod tls;
